"""PyTensor's BLAS-shaped Ops: ``Dot22``, ``Dot22Scalar``, ``Gemv``, ``Gemm``, ``Ger``.

Each is an ordinary Op that a backend maps onto one BLAS call: a 2-D
product, ``a * x @ y``, ``beta * y + alpha * A @ x``, ``b * z + a * x @ y``
and ``A + alpha * outer(x, y)``.  ``perform`` uses NumPy (which calls BLAS
for floats); the C plugin calls CBLAS directly.  The rewrites that form them
from ``dot`` and elementwise sums are in opgraph-rewrites
(``opgraph.tensor.rewriting.blas``).  ``BatchedDot`` is in
:mod:`opgraph.tensor.blas_batched`.

The inplace variants (``gemm_inplace``, ``gemv_inplace``, ``ger_destructive``)
overwrite their first input; the rewrites only introduce them where the
DestroyHandler allows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.graph.utils import InconsistencyError
from opgraph.tensor.blas_batched import (
    BatchedDot,
    _batched_dot,
    batched_dot,
    batched_dot_op,
    batched_tensordot,
)
from opgraph.tensor.math import maximum
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "BatchedDot",
    "Dot22",
    "Dot22Scalar",
    "Gemm",
    "Gemv",
    "Ger",
    "_batched_dot",
    "_dot22",
    "_dot22scalar",
    "batched_dot",
    "batched_dot_op",
    "batched_tensordot",
    "dot22",
    "dot22scalar",
    "gemm",
    "gemm_inplace",
    "gemm_no_inplace",
    "gemv",
    "gemv_inplace",
    "gemv_no_inplace",
    "ger",
    "ger_destructive",
    "must_initialize_y_gemv",
    "view_roots",
]

_FLOATS = ("float16", "float32", "float64", "complex64", "complex128")


def view_roots(var: Variable) -> list[Variable]:
    """The variables whose memory ``var`` may share, following ``view_map`` chains."""
    owner = var.owner
    if owner is None:
        return [var]
    view_map = getattr(owner.op, "view_map", None) or {}
    sources = view_map.get(owner.outputs.index(var))
    if not sources:
        return [var]
    roots: list[Variable] = []
    for i in sources:
        roots.extend(view_roots(owner.inputs[i]))
    return roots


def must_initialize_y_gemv() -> bool:
    """Whether ``Gemv`` must zero ``y`` before a call with ``beta == 0``.

    False in opgraph: neither ``perform`` nor the C code read ``y`` when
    ``beta == 0``, so uninitialised memory (``AllocEmpty``) is a valid ``y``.
    """
    return False


def _tensors(values: Sequence[Any]) -> list[Variable]:
    return [as_tensor_variable(v) for v in values]


def _fmt(var: Variable) -> str:
    return f"{var.type}" if var.name is None else f"{var.name!r} ({var.type})"


def _out_type(dtype: str, shape: Sequence[int | None]) -> TensorType:
    return TensorType(dtype, shape=tuple(shape))


class Dot22(Op):
    """Product of two float/complex matrices of one dtype (``x @ y``)."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = _tensors((x, y))
        for name, var in (("x", x), ("y", y)):
            if var.type.ndim != 2 or var.type.dtype not in _FLOATS:
                raise TypeError(f"Dot22: input {name!r} must be a 2-d float or complex "
                                f"matrix, got {_fmt(var)}")
        if x.type.dtype != y.type.dtype:
            raise TypeError(f"Dot22: dtype mismatch: x is {x.type.dtype}, y is {y.type.dtype}")
        out = _out_type(x.type.dtype, (x.type.shape[0], y.type.shape[1]))()
        return Apply(self, [x, y], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y = inputs
        output_storage[0][0] = np.asarray(np.dot(x, y), dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [(shapes[0][0], shapes[1][1])]

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        x, y = inputs
        (gz,) = cotangents
        return [self(gz, y.T), self(x.T, gz)]


class Gemm(Op):
    """``b * z + a * x @ y`` (inputs ``z, a, x, y, b``); ``z`` and the product broadcast.

    With ``inplace=True`` the result is written into ``z`` (``destroy_map``),
    so ``z`` may not share memory with ``x`` or ``y``.
    """

    E_rank = "gemm only works for rank 2"
    E_scalar = "gemm requires scalar argument"
    E_z_uniq = "argument z aliased to x or y"
    E_mixed = "gemm requires matching dtypes"
    E_float = "gemm requires floating-point dtypes"

    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{'inplace' if self.inplace else 'no_inplace'}}}"

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != 5:
            raise TypeError(f"{self} takes 5 inputs (z, a, x, y, b), got {len(inputs)}")
        z, a, x, y, b = _tensors(inputs)
        if self.inplace:
            zr = set(view_roots(z))
            for other in (x, y):
                if zr.intersection(view_roots(other)):
                    raise InconsistencyError(f"{Gemm.E_z_uniq}: {_fmt(z)} and {_fmt(other)}")
        for name, var, nd in (("z", z, 2), ("a", a, 0), ("x", x, 2), ("y", y, 2), ("b", b, 0)):
            if var.type.ndim != nd:
                msg = Gemm.E_rank if nd == 2 else Gemm.E_scalar
                raise TypeError(f"{msg}: input {name!r} must be {nd}-d, got {_fmt(var)}")
        dtypes = {v.type.dtype for v in (z, a, x, y, b)}
        if len(dtypes) != 1:
            raise TypeError(f"{Gemm.E_mixed}: got z {z.type.dtype}, a {a.type.dtype}, "
                            f"x {x.type.dtype}, y {y.type.dtype}, b {b.type.dtype}")
        if z.type.dtype not in _FLOATS:
            raise TypeError(f"{Gemm.E_float}: got {z.type.dtype}")
        prod = (x.type.shape[0], y.type.shape[1])
        shape = [ps if zs == 1 else zs if ps == 1 or zs is not None else None
                 for zs, ps in zip(z.type.shape, prod, strict=True)]
        return Apply(self, [z, a, x, y, b], [_out_type(z.type.dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        z, a, x, y, b = inputs
        prod = np.dot(x, y)
        try:
            shape = np.broadcast_shapes(z.shape, prod.shape)
        except ValueError:
            raise ValueError(f"Gemm: z of shape {z.shape} and x @ y of shape {prod.shape} "
                             f"(x {x.shape}, y {y.shape}) do not broadcast together") from None
        if self.inplace and z.shape == shape and z.flags.writeable:
            out = z
        else:
            out = np.empty(shape, dtype=node.outputs[0].type.dtype)
        if b == 0:  # z is never read (it may hold uninitialised memory)
            np.multiply(a, prod, out=out)
        else:
            # b * z is formed before out (maybe z itself) is written.
            scaled = b * z if b != 1 else z
            np.add(scaled, a * prod if a != 1 else prod, out=out)
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        zs, _, xs, ys, _ = shapes
        z, _, x, y, _ = node.inputs
        out = []
        for zd, pd, zst, pst in ((zs[0], xs[0], z.type.shape[0], x.type.shape[0]),
                                 (zs[1], ys[1], z.type.shape[1], y.type.shape[1])):
            if zst == 1:
                out.append(pd)
            elif pst == 1 or zst is not None:
                out.append(zd)
            else:
                out.append(maximum(zd, pd))  # one of them may be 1 at run time
        return [tuple(out)]


class Dot22Scalar(Op):
    """``a * x @ y`` for float/complex matrices and a scalar of one dtype (inputs ``x, y, a``)."""

    __props__ = ()

    def make_node(self, x: Any, y: Any, a: Any) -> Apply:
        x, y, a = _tensors((x, y, a))
        for name, var, nd in (("x", x, 2), ("y", y, 2), ("a", a, 0)):
            if var.type.ndim != nd:
                msg = Gemm.E_rank if nd == 2 else Gemm.E_scalar
                raise TypeError(f"Dot22Scalar: {msg}: input {name!r} must be {nd}-d, "
                                f"got {_fmt(var)}")
        if not a.type.dtype == x.type.dtype == y.type.dtype:
            raise TypeError(f"Dot22Scalar requires matching dtypes, got x {x.type.dtype}, "
                            f"y {y.type.dtype}, a {a.type.dtype}")
        if a.type.dtype not in _FLOATS:
            raise TypeError(f"Dot22Scalar requires float or complex inputs, got {a.type.dtype}")
        out = _out_type(x.type.dtype, (x.type.shape[0], y.type.shape[1]))()
        return Apply(self, [x, y, a], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y, a = inputs
        output_storage[0][0] = np.asarray(a * np.dot(x, y), dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [(shapes[0][0], shapes[1][1])]


class Gemv(Op):
    """``beta * y + alpha * A @ x`` (inputs ``y, alpha, A, x, beta``).

    ``beta == 0`` never reads ``y`` (so ``y`` may be uninitialised memory);
    with ``inplace=True`` the result is written into ``y``.
    """

    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{'inplace' if self.inplace else 'no_inplace'}}}"

    def make_node(self, y: Any, alpha: Any, A: Any, x: Any, beta: Any) -> Apply:
        y, alpha, A, x, beta = _tensors((y, alpha, A, x, beta))
        for name, var, nd in (("y", y, 1), ("alpha", alpha, 0), ("A", A, 2), ("x", x, 1),
                              ("beta", beta, 0)):
            if var.type.ndim != nd:
                raise TypeError(f"Gemv: input {name!r} must be {nd}-d, got {_fmt(var)}")
        if not y.type.dtype == A.type.dtype == x.type.dtype:
            raise TypeError(f"Gemv requires matching dtypes, got y {y.type.dtype}, "
                            f"A {A.type.dtype}, x {x.type.dtype}")
        return Apply(self, [y, alpha, A, x, beta], [y.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        y, alpha, A, x, beta = inputs
        if A.shape[0] != y.shape[0] or A.shape[1] != x.shape[0]:
            raise ValueError(f"Gemv: shapes do not match (beta * y + alpha * A @ x): "
                             f"y {y.shape}, A {A.shape}, x {x.shape}")
        prod = np.dot(A, x)
        res = alpha * prod if alpha != 1 else prod
        if beta != 0:
            res = res + (beta * y if beta != 1 else y)
        dtype = node.outputs[0].type.dtype
        if self.inplace and y.flags.writeable:
            y[...] = res
            output_storage[0][0] = y
        else:
            output_storage[0][0] = np.asarray(res, dtype=dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


class Ger(Op):
    """``A + alpha * outer(x, y)`` (inputs ``A, alpha, x, y``); ``destructive`` writes into A."""

    __props__ = ("destructive",)

    def __init__(self, destructive: bool = False) -> None:
        self.destructive = bool(destructive)
        if self.destructive:
            self.destroy_map = {0: [0]}

    def __str__(self) -> str:
        kind = "destructive" if self.destructive else "non-destructive"
        return f"{type(self).__name__}{{{kind}}}"

    def make_node(self, A: Any, alpha: Any, x: Any, y: Any) -> Apply:
        A, alpha, x, y = _tensors((A, alpha, x, y))
        if not A.type.dtype == alpha.type.dtype == x.type.dtype == y.type.dtype:
            raise TypeError(f"Ger requires matching dtypes, got A {A.type.dtype}, alpha "
                            f"{alpha.type.dtype}, x {x.type.dtype}, y {y.type.dtype}")
        for name, var, nd in (("alpha", alpha, 0), ("A", A, 2), ("x", x, 1), ("y", y, 1)):
            if var.type.ndim != nd:
                raise TypeError(f"Ger: input {name!r} must be {nd}-d, got {_fmt(var)}")
        if x.type.dtype not in _FLOATS[1:]:
            raise TypeError(f"Ger: only float and complex dtypes are supported, got {x.type.dtype}")
        return Apply(self, [A, alpha, x, y], [A.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        A, alpha, x, y = inputs
        if A.shape != (x.shape[0], y.shape[0]):
            raise ValueError(f"Ger: shapes do not match (A + alpha * outer(x, y)): "
                             f"A {A.shape}, x {x.shape}, y {y.shape}")
        upd = np.outer(alpha * x, y)
        if self.destructive and A.flags.writeable:
            A += upd
            output_storage[0][0] = A
        else:
            output_storage[0][0] = (A + upd).astype(A.dtype, copy=False)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


_dot22 = dot22 = Dot22()
dot22scalar = _dot22scalar = Dot22Scalar()
# ``_dot22``, ``_dot22scalar``, ``_batched_dot``: PyTensor's private names, kept as aliases;
# plugins use the public ``dot22``, ``dot22scalar``, ``batched_dot_op``.
gemv_no_inplace = gemv = Gemv(inplace=False)
gemv_inplace = Gemv(inplace=True)
gemm_no_inplace = gemm = Gemm(inplace=False)
gemm_inplace = Gemm(inplace=True)
ger = Ger(destructive=False)
ger_destructive = Ger(destructive=True)
