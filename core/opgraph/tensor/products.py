"""Products: Dot (1-D/2-D, BLAS through NumPy), MatMul (batched, NumPy's
``@``) and the functions dot, matmul, outer.

``dot`` follows PyTensor's ``pt.dot``: 0-d operands multiply elementwise,
1-D/2-D operands use Dot, and an N-d left operand with a 1-D/2-D right one
contracts its last axis (as ``np.dot`` does) through MatMul.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor import reduction as _reduction
from opgraph.tensor import ufuncs as _uf
from opgraph.tensor.elemwise import (
    DimShuffle,
    _is_disconnected,
    broadcast_static_shape,
)
from opgraph.tensor.type import TensorType, continuous_dtypes
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["Dot", "MatMul", "dot", "matmul", "outer"]


def _name(x: Variable) -> str:
    return x.name or str(x)


def _product_dtype(x: Variable, y: Variable, who: str) -> str:
    dtype = np.result_type(x.type.dtype, y.type.dtype).name
    return dtype


def _check_inner(xs: int | None, ys: int | None, x: Variable, y: Variable, who: str) -> None:
    if xs is not None and ys is not None and xs != ys:
        raise ValueError(
            f"{who}: inner dimensions do not match: {_name(x)} has shape {x.type.shape} and "
            f"{_name(y)} has shape {y.type.shape} (contracting {xs} with {ys})"
        )


def _grad_cast(g: Variable, x: Variable) -> Variable:
    if x.type.dtype not in continuous_dtypes:
        return g  # an integer operand gets the float gradient, as in PyTensor
    if g.type.dtype != x.type.dtype:
        return _uf.cast(g, x.type.dtype)
    return g


def _add_tangents(a: Variable | None, b: Variable | None) -> Variable:
    if a is None and b is None:
        return disconnected_type()
    if a is None:
        return b  # type: ignore[return-value]
    if b is None:
        return a
    return _uf.add(a, b)


def _live(t: Any) -> bool:
    return t is not None and not _is_disconnected(t)


def _product_rule(
    op: Op, inputs: Sequence[Variable], outputs: Sequence[Variable], tangents: Sequence[Variable]
) -> list[Variable]:
    """Pushforward of a bilinear product op (Dot, MatMul): d(x.y) = dx.y + x.dy."""
    x, y = inputs
    tx, ty = tangents
    a = op(tx, y) if _live(tx) else None
    b = op(x, ty) if _live(ty) else None
    return [_add_tangents(a, b)]


class Dot(Op):
    """Matrix/vector products of 1-D and 2-D tensors (``np.dot``)."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x = as_tensor_variable(x)
        y = as_tensor_variable(y)
        if x.type.ndim not in (1, 2) or y.type.ndim not in (1, 2):
            raise TypeError(
                f"Dot: inputs must be 1-D or 2-D, got {_name(x)} with ndim={x.type.ndim} and "
                f"{_name(y)} with ndim={y.type.ndim} (use pt.dot or pt.matmul for others)"
            )
        _check_inner(x.type.shape[-1], y.type.shape[0], x, y, "Dot")
        out_shape = x.type.shape[:-1] + y.type.shape[1:]
        out = TensorType(_product_dtype(x, y, "Dot"), out_shape)()
        return Apply(self, [x, y], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, y = inputs
        try:
            res = np.dot(x, y)
        except ValueError as exc:
            raise ValueError(
                f"Dot: shapes {x.shape} ({node.inputs[0]}) and {y.shape} ({node.inputs[1]}) "
                f"are not aligned: {exc}"
            ) from None
        output_storage[0][0] = np.asarray(res, dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list:
        xs, ys = input_shapes
        return [tuple(xs[:-1]) + tuple(ys[1:])]

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        cotangents: Sequence[Variable],
    ) -> list[Variable]:
        x, y = inputs
        (gz,) = cotangents
        if _is_disconnected(gz):
            return [disconnected_type(), disconnected_type()]
        xd, yd = x.type.ndim, y.type.ndim
        if xd == 1 and yd == 1:
            gx, gy = _uf.mul(gz, y), _uf.mul(gz, x)
        elif xd == 2 and yd == 1:
            gx, gy = outer(gz, y), dot(x.T, gz)
        elif xd == 1 and yd == 2:
            gx, gy = dot(y, gz), outer(x, gz)
        else:
            gx, gy = dot(gz, y.T), dot(x.T, gz)
        return [_grad_cast(gx, x), _grad_cast(gy, y)]

    pushforward = _product_rule

    def __str__(self) -> str:
        return "Dot"

    __repr__ = __str__


_dot = Dot()


def _swap_last(x: Variable) -> Variable:
    n = x.type.ndim
    order = (*range(n - 2), n - 1, n - 2)
    return DimShuffle(input_ndim=n, new_order=order)(x)


class MatMul(Op):
    """NumPy's ``matmul`` (``@``): batched over leading dimensions, 1-D operands promoted.

    Batch dimensions broadcast only where their static length is 1 (as Elemwise).
    """

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x = as_tensor_variable(x)
        y = as_tensor_variable(y)
        if x.type.ndim == 0 or y.type.ndim == 0:
            raise ValueError(
                f"matmul: operands must have at least one dimension, got {_name(x)} with "
                f"shape {x.type.shape} and {_name(y)} with shape {y.type.shape} (use * for "
                "scalars)"
            )
        xs, ys = x.type.shape, y.type.shape
        _check_inner(xs[-1], ys[-2] if len(ys) > 1 else ys[0], x, y, "matmul")
        xb, yb = xs[:-2], ys[:-2]
        n = max(len(xb), len(yb))
        xb = (1,) * (n - len(xb)) + xb
        yb = (1,) * (n - len(yb)) + yb
        batch = broadcast_static_shape([xb, yb], [_name(x), _name(y)]) if n else ()
        core = (xs[-2],) if len(xs) > 1 else ()
        core += (ys[-1],) if len(ys) > 1 else ()
        out = TensorType(_product_dtype(x, y, "matmul"), batch + core)()
        return Apply(self, [x, y], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, y = inputs
        xv, yv = node.inputs
        _check_batch_broadcast(x.shape[:-2], y.shape[:-2], xv, yv)
        try:
            res = np.matmul(x, y)
        except ValueError as exc:
            raise ValueError(
                f"matmul: shapes {x.shape} ({xv}) and {y.shape} ({yv}) do not match: {exc}"
            ) from None
        output_storage[0][0] = np.asarray(res, dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list:
        xv, yv = node.inputs
        xs, ys = list(input_shapes[0]), list(input_shapes[1])
        xb, yb = xs[:-2], ys[:-2]
        xbt, ybt = list(xv.type.shape[:-2]), list(yv.type.shape[:-2])
        n = max(len(xb), len(yb))
        xb, xbt = [1] * (n - len(xb)) + xb, [1] * (n - len(xbt)) + xbt
        yb, ybt = [1] * (n - len(yb)) + yb, [1] * (n - len(ybt)) + ybt
        batch = [xd if xt != 1 else yd for xd, yd, xt in zip(xb, yb, xbt)]
        core = ([xs[-2]] if len(xs) > 1 else []) + ([ys[-1]] if len(ys) > 1 else [])
        return [tuple(batch + core)]

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        cotangents: Sequence[Variable],
    ) -> list[Variable]:
        x, y = inputs
        (gz,) = cotangents
        if _is_disconnected(gz):
            return [disconnected_type(), disconnected_type()]
        gz = as_tensor_variable(gz)
        # Promote 1-D operands to matrices (and gz with them), as matmul does.
        x2 = x.dimshuffle("x", 0) if x.type.ndim == 1 else x
        y2 = y.dimshuffle(0, "x") if y.type.ndim == 1 else y
        if x.type.ndim == 1:
            gz = gz.dimshuffle(*range(gz.type.ndim - (y.type.ndim > 1)), "x",
                               *range(gz.type.ndim - (y.type.ndim > 1), gz.type.ndim))
        if y.type.ndim == 1:
            gz = gz.dimshuffle(*range(gz.type.ndim), "x")
        gx = _unbroadcast(matmul(gz, _swap_last(y2)), x2)
        gy = _unbroadcast(matmul(_swap_last(x2), gz), y2)
        if x.type.ndim == 1:
            gx = gx.dimshuffle(1)
        if y.type.ndim == 1:
            gy = gy.dimshuffle(0)
        return [_grad_cast(gx, x), _grad_cast(gy, y)]

    pushforward = _product_rule

    def __str__(self) -> str:
        return "MatMul"

    __repr__ = __str__


def _check_batch_broadcast(xb: tuple, yb: tuple, xv: Variable, yv: Variable) -> None:
    """Refuse batch broadcasting of a length-1 dimension the type does not declare."""
    if xb == yb:
        return
    n = max(len(xb), len(yb))
    xt = (1,) * (n - len(xb)) + tuple(xv.type.shape[:-2])
    yt = (1,) * (n - len(yb)) + tuple(yv.type.shape[:-2])
    xb = (1,) * (n - len(xb)) + tuple(xb)
    yb = (1,) * (n - len(yb)) + tuple(yb)
    for d in range(n):
        if xb[d] == yb[d]:
            continue
        for var, lens, static in ((xv, xb, xt), (yv, yb, yt)):
            if lens[d] == 1 and static[d] != 1:
                raise ValueError(
                    f"matmul: batch dimension {d} of {var} has length 1 at run time but type "
                    f"{var.type} does not declare it broadcastable (batch shapes {xb} and "
                    f"{yb}); runtime broadcasting is not allowed"
                )


def _unbroadcast(g: Variable, x: Variable) -> Variable:
    """Sum ``g`` down to ``x``'s (batch-broadcast) shape."""
    extra = g.type.ndim - x.type.ndim
    if extra:
        g = _reduction.sum(g, axis=tuple(range(extra)))
    axes = tuple(
        d for d in range(x.type.ndim - 2) if x.type.shape[d] == 1 and g.type.shape[d] != 1
    )
    if axes:
        g = _reduction.sum(g, axis=axes, keepdims=True)
    return g


_matmul = MatMul()


def matmul(x1: Any, x2: Any, dtype: Any = None) -> Variable:
    """``x1 @ x2`` with NumPy's matmul rules (batching, 1-D promotion)."""
    out = _matmul(x1, x2)
    if dtype is not None:
        out = _uf.cast(out, dtype)
    return out


def dot(l: Any, r: Any) -> Variable:
    """``np.dot`` semantics: scalars multiply, 1-D/2-D use Dot, N-d·(1-D|2-D) contracts
    the last axis of ``l``, and an N-d ``r`` is contracted over its second-to-last axis.

    An operand of another array Type (a plugin's sparse matrix) that defines
    ``__dot__``/``__rdot__`` computes the product itself."""
    if _foreign(l) and hasattr(l, "__dot__"):
        return l.__dot__(r)
    if _foreign(r) and hasattr(r, "__rdot__"):
        return r.__rdot__(l)
    l = as_tensor_variable(l)
    r = as_tensor_variable(r)
    if l.type.ndim == 0 or r.type.ndim == 0:
        return _uf.mul(l, r)
    if l.type.ndim <= 2 and r.type.ndim <= 2:
        return _dot_as_matrices(l, r)
    if r.type.ndim <= 2:
        return matmul(l, r)
    # np.dot with an N-d right operand: sum over l's last and r's second-to-last axis.
    nd = r.type.ndim
    lead = [l.shape[d] for d in range(l.type.ndim - 1)]
    rest = [r.shape[d] for d in range(nd) if d != nd - 2]
    right = r.dimshuffle(nd - 2, *(d for d in range(nd) if d != nd - 2)).reshape((r.shape[nd - 2],
                                                                                 -1))
    out = _dot(l.reshape((-1, l.shape[-1])) if l.type.ndim != 1 else l, right)
    return out.reshape((*lead, *rest))


def _dot_as_matrices(l: Variable, r: Variable) -> Variable:
    """PyTensor 3's graph of a 1-D/2-D product: a vector becomes a row (left) or a column
    (right) matrix, and the added axis is squeezed from the result.  Code that walks
    graphs (PyMC's model printing) meets the nodes as on PyTensor; the canonicalize
    rewrite ``local_squeeze_of_dot_of_vectors`` gives back the vector Dot to compile."""
    row, col = l.type.ndim == 1, r.type.ndim == 1
    out = _dot(l.dimshuffle("x", 0) if row else l, r.dimshuffle(0, "x") if col else r)
    if row:
        out = out.dimshuffle(*range(1, out.type.ndim))
    if col:
        out = out.dimshuffle(*range(out.type.ndim - 1))
    return out


def _foreign(x: Any) -> bool:
    return isinstance(x, Variable) and not isinstance(x.type, TensorType)


def outer(x: Any, y: Any) -> Variable:
    """Outer product of two vectors (other inputs are flattened first, as np.outer)."""
    x = as_tensor_variable(x)
    y = as_tensor_variable(y)
    if x.type.ndim != 1:
        x = x.flatten()
    if y.type.ndim != 1:
        y = y.flatten()
    return _dot(x.dimshuffle(0, "x"), y.dimshuffle("x", 0))

