"""Tridiagonal systems through LAPACK's ``gttrf`` / ``gttrs`` (``linalg.solvers.tridiagonal``).

``solve(a, b, assume_a="tridiagonal")`` reads only three diagonals of ``a``.
Factoring them once (:func:`tridiagonal_lu_factor`) and solving against the
factors (:func:`tridiagonal_lu_solve`) is what the rewrite that reuses one
decomposition for several solves builds.  Both Ops are core Ops on vectors,
wrapped in Blockwise for batches.  They appear only after differentiation (the
rewrites introduce them), so they have no gradient of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.gradient import grad_not_implemented
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_linalg._util import as_matrix, check_square_static, float_dtype

scipy_linalg = lazy_scipy_module("linalg")  # imported on first use, not at plugin load

__all__ = [
    "LUFactorTridiagonal",
    "SolveLUFactorTridiagonal",
    "tridiagonal_lu_factor",
    "tridiagonal_lu_solve",
]


def _lapack(name: str, *arrays: np.ndarray) -> Any:
    (func,) = scipy_linalg.get_lapack_funcs((name,), arrays)
    return func


def _gttrf_small(dl: np.ndarray, d: np.ndarray, du: np.ndarray) -> tuple:
    """gttrf for n < 3, which SciPy's wrapper refuses (its ``du2`` of length n - 2): the
    same elimination with partial pivoting LAPACK does on the last row."""
    dl, d, du = dl.copy(), d.copy(), du.copy()
    n = d.shape[0]
    ipiv = np.arange(1, n + 1, dtype=np.int32)
    if n == 2:
        if abs(d[0]) >= abs(dl[0]):
            if d[0] != 0:
                dl[0] = dl[0] / d[0]
                d[1] = d[1] - dl[0] * du[0]
        else:
            fact = d[0] / dl[0]
            d[0], dl[0] = dl[0], fact
            du[0], d[1] = d[1], du[0] - fact * d[1]
            ipiv[0] = 2
    zero = np.flatnonzero(d == 0)
    info = int(zero[0]) + 1 if zero.size else 0
    return dl, d, du, np.zeros(0, dtype=d.dtype), ipiv, info


def _gttrs_small(dl: np.ndarray, d: np.ndarray, du: np.ndarray, ipiv: np.ndarray,
                 b: np.ndarray, transposed: bool) -> np.ndarray:
    """gttrs for n < 3 (see :func:`_gttrf_small`): the two triangular solves and the row
    swap of ``ipiv``, with IEEE division as LAPACK (no error for a zero pivot)."""
    n = d.shape[0]
    x = np.array(b, dtype=np.result_type(d, b), copy=True)
    if n == 1:
        return x / d[0]
    if n == 0:
        return x
    swap = ipiv[0] == 2
    if not transposed:
        if swap:
            x = x[::-1].copy()
        x[1] = x[1] - dl[0] * x[0]
        x[1] = x[1] / d[1]
        x[0] = (x[0] - du[0] * x[1]) / d[0]
        return x
    x[0] = x[0] / d[0]
    x[1] = (x[1] - du[0] * x[0]) / d[1]
    x[0] = x[0] - dl[0] * x[1]
    return x[::-1].copy() if swap else x


def _vector(x: Any, who: str, arg: str) -> Variable:
    x = pt.as_tensor_variable(x)
    if not isinstance(x.type, TensorType) or x.type.ndim != 1:
        raise TypeError(f"{who}: {arg} must be a vector, got {x.type}")
    return x


class LUFactorTridiagonal(Op):
    """``gttrf``: the LU factors ``(dl, d, du, du2, ipiv)`` of the tridiagonal ``(dl, d, du)``."""

    __props__ = ("overwrite_dl", "overwrite_d", "overwrite_du")
    gufunc_signature = "(dl),(d),(dl)->(dl),(d),(dl),(du2),(d)"

    def __init__(self, overwrite_dl: bool = False, overwrite_d: bool = False,
                 overwrite_du: bool = False) -> None:
        self.overwrite_dl, self.overwrite_d = bool(overwrite_dl), bool(overwrite_d)
        self.overwrite_du = bool(overwrite_du)
        self.destroy_map = {i: [i] for i, flag in
                            enumerate((self.overwrite_dl, self.overwrite_d, self.overwrite_du))
                            if flag}

    def make_node(self, dl: Any, d: Any, du: Any) -> Apply:
        who = "tridiagonal_lu_factor"
        dl, d, du = (_vector(v, who, n) for v, n in ((dl, "dl"), (d, "d"), (du, "du")))
        dtype = float_dtype(dl.type.dtype, d.type.dtype, du.type.dtype)
        n = d.type.shape[0]
        outs = [TensorType(dtype, dl.type.shape)(), TensorType(dtype, d.type.shape)(),
                TensorType(dtype, du.type.shape)(),
                TensorType(dtype, (None if n is None else max(n - 2, 0),))(),
                TensorType("int32", d.type.shape)()]
        return Apply(self, [dl, d, du], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        dtype = node.outputs[0].type.numpy_dtype
        dl, d, du = (np.asarray(v, dtype=dtype) for v in inputs)
        if d.shape[0] < 3:
            *factors, info = _gttrf_small(dl, d, du)
        else:
            gttrf = _lapack("gttrf", dl, d, du)
            *factors, info = gttrf(dl, d, du, overwrite_dl=self.overwrite_dl,
                                   overwrite_d=self.overwrite_d, overwrite_du=self.overwrite_du)
        if info < 0:
            raise ValueError(f"tridiagonal_lu_factor: LAPACK gttrf: argument {-info} is invalid")
        for storage, value, out in zip(output_storage, factors, node.outputs, strict=True):
            storage[0] = np.asarray(value, dtype=out.type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        dl, d, du = input_shapes
        return [dl, d, du, (pt.maximum(d[0] - 2, 0),), d]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        return [grad_not_implemented(self, i, x) for i, x in enumerate(inputs)]


class SolveLUFactorTridiagonal(Op):
    """``gttrs``: ``x`` with ``a @ x = b`` (``a.T`` when ``transposed``) from gttrf's factors."""

    __props__ = ("b_ndim", "overwrite_b", "transposed")

    def __init__(self, b_ndim: int, transposed: bool, overwrite_b: bool = False) -> None:
        if b_ndim not in (1, 2):
            raise ValueError(f"tridiagonal_lu_solve: b_ndim must be 1 or 2, got {b_ndim!r}")
        self.b_ndim, self.transposed = int(b_ndim), bool(transposed)
        self.overwrite_b = bool(overwrite_b)
        self.destroy_map = {5: [0]} if self.overwrite_b else {}

    @property
    def gufunc_signature(self) -> str:
        b = "(d)" if self.b_ndim == 1 else "(d,k)"
        return f"(dl),(d),(dl),(du2),(d),{b}->{b}"

    def make_node(self, dl: Any, d: Any, du: Any, du2: Any, ipiv: Any, b: Any) -> Apply:
        who = "tridiagonal_lu_solve"
        factors = [_vector(v, who, n) for v, n in
                   ((dl, "dl"), (d, "d"), (du, "du"), (du2, "du2"), (ipiv, "ipiv"))]
        b = pt.as_tensor_variable(b)
        if not isinstance(b.type, TensorType) or b.type.ndim != self.b_ndim:
            raise TypeError(f"{who}: b must be {self.b_ndim}-d (b_ndim), got {b.type}")
        dtype = float_dtype(*(f.type.dtype for f in factors[:4]), b.type.dtype)
        return Apply(self, [*factors, b], [TensorType(dtype, b.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        dtype = node.outputs[0].type.numpy_dtype
        *diags, ipiv, b = inputs
        dl, d, du, du2 = (np.asarray(v, dtype=dtype) for v in diags)
        b = np.asarray(b, dtype=dtype)
        if d.shape[0] < 3:
            output_storage[0][0] = _gttrs_small(dl, d, du, np.asarray(ipiv), b,
                                                self.transposed).astype(dtype, copy=False)
            return
        gttrs = _lapack("gttrs", dl, d, du, du2, b)
        x, info = gttrs(dl, d, du, du2, np.asarray(ipiv, dtype=np.int32), b,
                        trans="T" if self.transposed else "N", overwrite_b=self.overwrite_b)
        if info < 0:
            raise ValueError(f"tridiagonal_lu_solve: LAPACK gttrs: argument {-info} is invalid")
        output_storage[0][0] = np.asarray(x, dtype=dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [input_shapes[-1]]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        return [grad_not_implemented(self, i, x) for i, x in enumerate(inputs)]


def tridiagonal_lu_factor(a: Any) -> tuple[Variable, ...]:
    """``(dl, d, du, du2, ipiv)``: gttrf's LU factors of the tridiagonal part of ``a``."""
    a = as_matrix(a, "tridiagonal_lu_factor", "a")
    check_square_static(a, "tridiagonal_lu_factor", "a")
    dl = pt.diagonal(a, offset=-1, axis1=-2, axis2=-1)
    d = pt.diagonal(a, offset=0, axis1=-2, axis2=-1)
    du = pt.diagonal(a, offset=1, axis1=-2, axis2=-1)
    return tuple(Blockwise(LUFactorTridiagonal())(dl, d, du))


def tridiagonal_lu_solve(a_diagonals: Sequence[Any], b: Any, *, b_ndim: int,
                         transposed: bool = False) -> Variable:
    """Solve ``a @ x = b`` from :func:`tridiagonal_lu_factor`'s five outputs."""
    if len(a_diagonals) != 5:
        raise TypeError("tridiagonal_lu_solve: a_diagonals must be the five outputs of "
                        f"tridiagonal_lu_factor, got {len(a_diagonals)} values")
    op = SolveLUFactorTridiagonal(b_ndim=b_ndim, transposed=transposed)
    return Blockwise(op)(*a_diagonals, b)
