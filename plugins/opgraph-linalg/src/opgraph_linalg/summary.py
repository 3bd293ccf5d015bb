"""Scalars that summarise a matrix: det, slogdet, norm.

``trace`` lives in constructors (``opgraph.tensor.trace``); the one here is
PyTensor's deprecated ``linalg.trace``, which warns and forwards.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.autodiff.undefined import is_disconnected as _is_disconnected
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.type import TensorType
from opgraph_linalg._util import as_matrix, check_square_static, check_square_value, float_dtype
from opgraph_linalg.constructors import trace as _trace
from opgraph_linalg.factor import SVD
from opgraph_linalg.inverse import MatrixInverse

__all__ = ["Det", "SLogDet", "det", "norm", "slogdet"]


def _core_square(x: Any, who: str) -> Variable:
    x = as_matrix(x, who, "x")
    if x.type.ndim != 2:
        raise ValueError(f"{who}: the core op takes one matrix, got {x.type}")
    check_square_static(x, who, "x")
    return x


class Det(Op):
    """The determinant of a square matrix."""

    __props__ = ()
    gufunc_signature = "(m,m)->()"

    def make_node(self, x: Any) -> Apply:
        x = _core_square(x, "det")
        return Apply(self, [x], [TensorType(float_dtype(x.type.dtype), ())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (x,) = inputs
        check_square_value(x, "det", "x")
        output_storage[0][0] = np.asarray(np.linalg.det(x), dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [()]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (gz,) = cotangents
        if _is_disconnected(gz):
            return [disconnected_type()]
        (x,) = inputs
        (d,) = outputs
        return [(gz * d) * MatrixInverse()(x).T]

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> list:
        (t,) = tangents
        if _is_disconnected(t):
            return [disconnected_type()]
        (x,) = inputs
        (d,) = outputs
        return [d * _trace(pt.dot(MatrixInverse()(x), t))]


class SLogDet(Op):
    """``(sign, log|det|)`` of a square matrix (``numpy.linalg.slogdet``)."""

    __props__ = ()
    gufunc_signature = "(m,m)->(),()"

    def make_node(self, x: Any) -> Apply:
        x = _core_square(x, "slogdet")
        dtype = float_dtype(x.type.dtype)
        return Apply(self, [x], [TensorType(dtype, ())(), TensorType(dtype, ())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (x,) = inputs
        check_square_value(x, "slogdet", "x")
        sign, logdet = np.linalg.slogdet(x)
        output_storage[0][0] = np.asarray(sign, dtype=node.outputs[0].type.numpy_dtype)
        output_storage[1][0] = np.asarray(logdet, dtype=node.outputs[1].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [(), ()]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        _, glog = cotangents
        if _is_disconnected(glog):
            return [disconnected_type()]
        (x,) = inputs
        return [glog * MatrixInverse()(x).T]

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> list:
        (t,) = tangents
        if _is_disconnected(t):
            return [disconnected_type(), disconnected_type()]
        (x,) = inputs
        return [pt.zeros_like(outputs[0]), _trace(pt.dot(MatrixInverse()(x), t))]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False, True]]


def trace(x: Any) -> Variable:
    """Deprecated (as in PyTensor): use ``opgraph.tensor.trace``."""
    warnings.warn(
        "opgraph.tensor.linalg.trace is deprecated. Use opgraph.tensor.trace instead.",
        FutureWarning,
        stacklevel=2,
    )
    return _trace(x)


def det(x: Any) -> Variable:
    """The determinant of ``x`` (or of each matrix in a batch)."""
    x = as_matrix(x, "det", "x")
    m, n = x.type.shape[-2:]
    if m is not None and n is not None and m != n:
        raise ValueError(
            f"det: Determinant not defined for non-square matrices: x has static shape "
            f"{x.type.shape}"
        )
    check_square_static(x, "det", "x")
    return Blockwise(Det())(x)


def slogdet(x: Any) -> tuple[Variable, Variable]:
    """``(sign, log|det(x)|)``, batched (``numpy.linalg.slogdet``)."""
    x = as_matrix(x, "slogdet", "x")
    check_square_static(x, "slogdet", "x")
    sign, logdet = Blockwise(SLogDet())(x)
    return sign, logdet


def _sv(x: Variable) -> Variable:
    return Blockwise(SVD(full_matrices=False, compute_uv=False))(x)


def _matrix_norm(x: Variable, ord: Any, axes: tuple[int, int], keepdims: bool) -> Variable:
    r, c = axes
    nd = x.type.ndim
    if ord in (None, "fro", "f"):
        out = pt.sqrt(pt.sum(pt.abs(x) ** 2, axis=axes, keepdims=keepdims))
        return out
    if ord in ("nuc", 2, -2):
        moved = pt.transpose(x, [*(i for i in range(nd) if i not in axes), r, c])
        sv = _sv(moved)
        out = {"nuc": lambda: sv.sum(-1), 2: lambda: sv.max(-1), -2: lambda: sv.min(-1)}[ord]()
    elif ord in (1, -1, np.inf, -np.inf):
        along = r if ord in (1, -1) else c
        other = c if ord in (1, -1) else r
        sums = pt.sum(pt.abs(x), axis=along, keepdims=True)
        pick = sums.max if ord > 0 else sums.min
        out = pick(axis=other, keepdims=True)
        return out if keepdims else pt.squeeze(out, axis=tuple(sorted(axes)))
    else:
        raise ValueError(f"norm: Invalid norm order for matrices: {ord!r} (None, 'fro', 'nuc', "
                         f"1, -1, 2, -2, inf or -inf)")
    if keepdims:
        out = pt.expand_dims(out, tuple(sorted(axes)))
    return out


def _vector_norm(x: Variable, ord: Any, axis: int, keepdims: bool) -> Variable:
    a = pt.abs(x)
    if ord is None or ord == 2:
        return pt.sqrt(pt.sum(a**2, axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return pt.max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return pt.min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return pt.sum(pt.neq(x, 0), axis=axis, keepdims=keepdims).astype(x.type.dtype)
    if ord == 1:
        return pt.sum(a, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"norm: Invalid norm order {ord!r} for vectors (a number or None)")
    return pt.sum(a**ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Variable:
    """``numpy.linalg.norm``: a vector norm over one axis, a matrix norm over two.

    With ``axis=None`` a 1-d input gets the vector norm and an input of two or
    more dimensions the matrix norm of its last two axes (the leading ones are
    a batch, as in PyTensor 3).
    """
    x = pt.as_tensor_variable(x)
    nd = x.type.ndim
    if isinstance(axis, Variable):
        raise TypeError(
            f"norm: 'axis' must be None, an integer, or a tuple of integers (a Python value), "
            f"got the variable {axis}"
        )
    if axis is None:
        if nd == 0:
            raise ValueError(
                f"norm: Cannot compute norm when core_dims < 1 or core_dims > 3, found: "
                f"core_dims = 0 (x is {x.type}; it needs at least one dimension)"
            )
        axis = (-1,) if nd == 1 else (-2, -1)
    if isinstance(axis, int | np.integer):
        axis = (int(axis),)
    try:
        axes = tuple(int(a) % nd for a in axis)
    except (TypeError, ZeroDivisionError):
        raise TypeError(
            f"norm: 'axis' must be None, an integer, or a tuple of integers, got {axis!r}"
        ) from None
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"norm: axis must name one axis or two different axes, got {axis!r}")
    return _matrix_norm(x, ord, axes, keepdims)
