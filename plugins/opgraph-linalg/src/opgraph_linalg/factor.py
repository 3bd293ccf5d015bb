"""Factorisations of general matrices: svd, qr, lu, lu_factor, pivot_to_permutation.

As in :mod:`opgraph_linalg.decomposition`, core Ops take one matrix and the
functions wrap them in Blockwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.assumptions import LOWER_TRIANGULAR, UPPER_TRIANGULAR, FactState, register_assumption
from opgraph.autodiff.undefined import is_disconnected as _is_disconnected
from opgraph.gradient import grad_not_implemented
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.raise_op import CheckAndRaise
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_linalg._util import as_matrix, check_square_value, float_dtype, triangle
from opgraph_linalg.solvers import PivotToPermutations, SolveTriangular

scipy_linalg = lazy_scipy_module("linalg")  # imported on first use, not at plugin load

__all__ = [
    "LU",
    "QR",
    "SVD",
    "LUFactor",
    "PivotToPermutations",
    "lu",
    "lu_factor",
    "pivot_to_permutation",
    "qr",
    "svd",
]


def _live(g: Any) -> bool:
    return g is not None and not _is_disconnected(g)


def _min_static(m: int | None, n: int | None) -> int | None:
    return None if m is None or n is None else min(m, n)


def _core_matrix(x: Any, who: str) -> Variable:
    x = as_matrix(x, who, "a")
    if x.type.ndim != 2:
        raise ValueError(f"{who}: the core op takes one matrix, got {x.type} (use {who}())")
    return x


# --------------------------------------------------------------------------- svd


class SVD(Op):
    """Singular value decomposition ``a = U diag(s) Vh`` (``numpy.linalg.svd``)."""

    __props__ = ("full_matrices", "compute_uv")

    def __init__(self, full_matrices: bool = True, compute_uv: bool = True) -> None:
        self.full_matrices = bool(full_matrices)
        self.compute_uv = bool(compute_uv)

    @property
    def gufunc_signature(self) -> str:
        if not self.compute_uv:
            return "(m,n)->(k)"
        return "(m,n)->(m,m),(k),(n,n)" if self.full_matrices else "(m,n)->(m,k),(k),(k,n)"

    def make_node(self, x: Any) -> Apply:
        x = _core_matrix(x, "svd")
        dtype = float_dtype(x.type.dtype)
        m, n = x.type.shape
        k = _min_static(m, n)
        s = TensorType(dtype, (k,))
        if not self.compute_uv:
            return Apply(self, [x], [s()])
        u_shape, vh_shape = ((m, m), (n, n)) if self.full_matrices else ((m, k), (k, n))
        outs = [TensorType(dtype, u_shape)(), s(), TensorType(dtype, vh_shape)()]
        return Apply(self, [x], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        res = np.linalg.svd(a, full_matrices=self.full_matrices, compute_uv=self.compute_uv)
        res = res if self.compute_uv else (res,)
        for cell, value, out in zip(output_storage, res, node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        m, n = input_shapes[0]
        k = pt.minimum(m, n)
        if not self.compute_uv:
            return [(k,)]
        if self.full_matrices:
            return [(m, m), (k,), (n, n)]
        return [(m, k), (k,), (k, n)]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (a,) = inputs
        if not self.compute_uv:
            (gs,) = cotangents
            if not _live(gs):
                return [disconnected_type()]
            u, _, vh = SVD(full_matrices=False)(a)
            return [pt.dot(u * gs[None, :], vh)]
        gu, gs, gvh = cotangents
        if self.full_matrices:
            # the extra columns of U / rows of Vh are not unique: as PyTensor, refuse
            raise NotImplementedError(
                "Gradient of svd not implemented for full_matrices=True; use "
                "svd(a, full_matrices=False) or compute_uv=False"
            )
        u, s, vh = outputs
        return [_svd_grad(a, u, s, vh, gu, gs, gvh)]


def _svd_grad(a: Variable, u: Variable, s: Variable, vh: Variable, gu: Any, gs: Any,
              gvh: Any) -> Variable:
    """Reverse mode of the thin SVD (real case), for distinct non-zero singular values."""
    v = vh.T
    k = s.shape[0]
    eye = pt.eq(pt.arange(k)[:, None], pt.arange(k)[None, :])
    one = pt.constant(1.0, dtype=s.type.dtype)
    s2 = s * s
    diff = s2[None, :] - s2[:, None]
    f = pt.switch(eye, pt.zeros_like(diff), one / pt.switch(eye, one, diff))
    inner = pt.zeros_like(diff)
    if _live(gs):
        inner = inner + pt.switch(eye, gs[:, None] * pt.ones_like(diff), pt.zeros_like(diff))
    result = None
    if _live(gu):
        utgu = pt.dot(u.T, gu)
        inner = inner + (f * (utgu - utgu.T)) * s[None, :]
        m = a.shape[0]
        proj = pt.eye(m, dtype=a.type.dtype) - pt.dot(u, u.T)
        result = pt.dot(pt.dot(proj, gu) / s[None, :], vh)
    if _live(gvh):
        gv = gvh.T
        vtgv = pt.dot(v.T, gv)
        inner = inner + s[:, None] * (f * (vtgv - vtgv.T))
        n = a.shape[1]
        proj_v = pt.eye(n, dtype=a.type.dtype) - pt.dot(v, vh)
        extra = pt.dot(u / s[None, :], pt.dot(gv.T, proj_v))
        result = extra if result is None else result + extra
    core = pt.dot(pt.dot(u, inner), vh)
    return core if result is None else core + result


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """``(U, s, Vh)`` (or ``s`` when ``compute_uv=False``) of ``a``; ``numpy.linalg.svd``."""
    a = as_matrix(a, "svd", "a")
    return Blockwise(SVD(full_matrices=full_matrices, compute_uv=compute_uv))(a)


# --------------------------------------------------------------------------- qr


_QR_MODES = {"full": "full", "complete": "full", "economic": "economic",
             "reduced": "economic", "r": "r", "raw": "raw"}


_TALL_FULL_MSG = ("The gradient of qr is implemented without pivoting for modes 'economic', "
                  "'r', and 'full' when the matrix is not taller than wide (full mode's extra "
                  "columns of Q are not covered): use mode='economic'")


class QR(Op):
    """QR decomposition (``scipy_linalg.qr``): mode "full", "economic", "r" or "raw"
    (NumPy's "complete" and "reduced" are accepted), optionally with column pivoting."""

    __props__ = ("mode", "pivoting")

    def __init__(self, mode: str = "full", pivoting: bool = False) -> None:
        if mode not in _QR_MODES:
            raise ValueError(f"qr: mode must be one of {sorted(_QR_MODES)}, got {mode!r}")
        self.mode = _QR_MODES[mode]
        self.pivoting = bool(pivoting)

    @property
    def gufunc_signature(self) -> str:
        outs = {"full": "(m,m),(m,n)", "economic": "(m,k),(k,n)", "r": "(m,n)",
                "raw": "(m,n),(k),(k,n)"}[self.mode]
        return f"(m,n)->{outs}" + (",(n)" if self.pivoting else "")

    def make_node(self, x: Any) -> Apply:
        x = _core_matrix(x, "qr")
        dtype = float_dtype(x.type.dtype)
        m, n = x.type.shape
        k = _min_static(m, n)
        shapes = {"full": [(m, m), (m, n)], "economic": [(m, k), (k, n)], "r": [(m, n)],
                  "raw": [(m, n), (k,), (k, n)]}[self.mode]
        outs = [TensorType(dtype, shp)() for shp in shapes]
        if self.pivoting:
            outs.append(TensorType("int32", (n,))())
        return Apply(self, [x], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        res = scipy_linalg.qr(a, mode=self.mode, pivoting=self.pivoting)
        if self.mode == "raw":
            res = (*res[0], *res[1:])
        elif self.mode == "r" and not self.pivoting:
            res = (res[0],) if isinstance(res, tuple) else (res,)
        for cell, value, out in zip(output_storage, res, node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        m, n = input_shapes[0]
        k = pt.minimum(m, n)
        shapes = {"full": [(m, m), (m, n)], "economic": [(m, k), (k, n)], "r": [(m, n)],
                  "raw": [(m, n), (k,), (k, n)]}[self.mode]
        return shapes + ([(n,)] if self.pivoting else [])

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (a,) = inputs
        m, n = a.type.shape
        tall_full = self.mode == "full" and m is not None and n is not None and m > n
        if self.pivoting or self.mode == "raw":
            # as PyTensor (and SVD's full_matrices): refuse while building the gradient
            raise NotImplementedError(
                f"Gradient of qr not implemented for mode={self.mode!r}"
                + (" with pivoting" if self.pivoting else "")
                + ": use mode 'economic', 'r', or 'full' on a matrix not taller than wide"
            )
        if tall_full:
            return [grad_not_implemented(self, 0, a, _TALL_FULL_MSG)]
        if self.mode == "r":
            (gr,) = cotangents
            if not _live(gr):
                return [disconnected_type()]
            q, r = QR("economic")(a)
            k = pt.minimum(a.shape[0], a.shape[1])
            return [_qr_grad(a, q, r, None, gr[:k])]
        q, r = outputs
        gq, gr = cotangents
        if not _live(gq) and not _live(gr):
            return [disconnected_type()]
        if self.mode == "full" and (m is None or n is None):
            # the static shape did not settle it: the same refusal, when the values do
            a = CheckAndRaise(NotImplementedError, _TALL_FULL_MSG)(a, a.shape[0] <= a.shape[1])
        return [_qr_grad(a, q, r, gq if _live(gq) else None, gr if _live(gr) else None)]


def _qr_grad(a: Variable, q: Variable, r: Variable, gq: Any, gr: Any) -> Variable:
    """Reverse mode of a = Q R (Q: m x k, R: k x n, k = min(m, n)).

    The square block R1 = R[:, :k] covers X = a[:, :k]; the rest Y = a[:, k:] = Q R2
    (empty for a tall matrix) adds Y gR2^T to gQ and has gradient Q gR2.
    """
    k = pt.minimum(a.shape[0], a.shape[1])
    r1 = r[:, :k]
    gq = pt.zeros_like(q) if gq is None else gq
    gr = pt.zeros_like(r) if gr is None else gr
    gr1, gr2 = gr[:, :k], gr[:, k:]
    gq = gq + pt.dot(a[:, k:], gr2.T)
    mm = pt.dot(r1, gr1.T) - pt.dot(gq.T, q)
    copyltu = triangle(mm, -1, True) + triangle(mm, 0, True).T
    rhs = gq + pt.dot(q, copyltu)
    solve_r = SolveTriangular(lower=False, check_finite=False, b_ndim=2)
    gx = solve_r(r1, rhs.T).T  # rhs R1^-T
    return pt.concatenate([gx, pt.dot(q, gr2)], axis=1)


def qr(a: Any, mode: str = "full", pivoting: bool = False) -> Any:
    """``(Q, R)`` of ``a`` as ``scipy_linalg.qr`` (mode "full" by default, as PyTensor 3);
    mode "r" gives ``R``, "raw" ``(H, tau, R)``; ``pivoting=True`` adds the permutation."""
    a = as_matrix(a, "qr", "a")
    return Blockwise(QR(mode, pivoting=pivoting))(a)


# --------------------------------------------------------------------------- lu


class LU(Op):
    """``a = P L U`` (``scipy_linalg.lu``); ``permute_l`` gives ``(P L, U)``."""

    __props__ = ("permute_l", "p_indices", "check_finite")

    def __init__(self, permute_l: bool = False, p_indices: bool = False,
                 check_finite: bool = True) -> None:
        self.permute_l = bool(permute_l)
        self.p_indices = bool(p_indices)
        self.check_finite = bool(check_finite)

    @property
    def gufunc_signature(self) -> str:
        if self.permute_l:
            return "(m,n)->(m,k),(k,n)"
        return "(m,n)->(m),(m,k),(k,n)" if self.p_indices else "(m,n)->(m,m),(m,k),(k,n)"

    def make_node(self, x: Any) -> Apply:
        x = _core_matrix(x, "lu")
        dtype = float_dtype(x.type.dtype)
        m, n = x.type.shape
        k = _min_static(m, n)
        l_t, u_t = TensorType(dtype, (m, k)), TensorType(dtype, (k, n))
        if self.permute_l:
            return Apply(self, [x], [l_t(), u_t()])
        p_t = TensorType("int32", (m,)) if self.p_indices else TensorType(dtype, (m, m))
        return Apply(self, [x], [p_t(), l_t(), u_t()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        res = scipy_linalg.lu(a, permute_l=self.permute_l, p_indices=self.p_indices,
                              check_finite=self.check_finite)
        for cell, value, out in zip(output_storage, res, node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.numpy_dtype)

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (a,) = inputs
        m, n = a.type.shape
        if m is not None and n is not None and m != n:
            return [grad_not_implemented(self, 0, a, "Implemented for square matrices.")]
        gl, gu = cotangents[-2], cotangents[-1]
        if not _live(gl) and not _live(gu):
            return [disconnected_type()]
        dtype = outputs[-1].type.dtype
        if self.permute_l:  # outputs (P L, U): recover P (piecewise constant) and L
            p_idx = LU(p_indices=True, check_finite=self.check_finite)(a)[0]
            p = pt.eye(a.shape[0], dtype=dtype)[p_idx]
            low = pt.dot(p.T, outputs[0])
            gl = pt.dot(p.T, gl) if _live(gl) else gl
        else:
            p_out, low = outputs[0], outputs[1]
            p = pt.eye(a.shape[0], dtype=dtype)[p_out] if self.p_indices else p_out
        return [_lu_grad(p, low, outputs[-1], gl, gu)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        n_out = len(node.outputs)
        return [[not (k == 0 and n_out == 3) for k in range(n_out)]]


def _lu_facts(key: Any, op: LU, feature: Any, fgraph: Any, node: Apply,
              input_states: Sequence[FactState]) -> list[FactState]:
    """``U`` (the last output) is upper triangular; ``L`` lower (not ``P @ L``)."""
    unknown = FactState.UNKNOWN
    states = [unknown] * len(node.outputs)
    if key == UPPER_TRIANGULAR:
        states[-1] = FactState.TRUE
    elif key == LOWER_TRIANGULAR and not op.permute_l:
        states[-2] = FactState.TRUE
    return states


for _key in (LOWER_TRIANGULAR, UPPER_TRIANGULAR):
    register_assumption(_key, LU)(_lu_facts)


def _lu_grad(p: Variable, low: Variable, up: Variable, gl: Any, gu: Any) -> Variable:
    """A = P L U: gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T."""
    k = pt.zeros_like(low)
    if _live(gl):
        k = k + triangle(pt.dot(low.T, gl), -1, True)
    if _live(gu):
        k = k + triangle(pt.dot(gu, up.T), 0, False)
    left = SolveTriangular(lower=True, trans=1, unit_diagonal=True, check_finite=False)
    right = SolveTriangular(lower=False, trans=0, check_finite=False)
    y = left(low, k)  # L^-T K
    z = right(up, y.T).T  # L^-T K U^-T
    return pt.dot(p, z)


def lu(a: Any, permute_l: bool = False, check_finite: bool = True,
       p_indices: bool = False, overwrite_a: bool = False) -> Any:
    """``(P, L, U)`` with ``a = P @ L @ U`` (``scipy_linalg.lu``)."""
    a = as_matrix(a, "lu", "a")
    return Blockwise(LU(permute_l=permute_l, p_indices=p_indices, check_finite=check_finite))(a)


class LUFactor(Op):
    """``(LU, piv)`` of a square matrix (``scipy_linalg.lu_factor``)."""

    __props__ = ("check_finite",)
    gufunc_signature = "(m,m)->(m,m),(m)"

    def __init__(self, check_finite: bool = True) -> None:
        self.check_finite = bool(check_finite)

    def make_node(self, x: Any) -> Apply:
        x = _core_matrix(x, "lu_factor")
        m, n = x.type.shape
        if m is not None and n is not None and m != n:
            raise ValueError(f"lu_factor: a must be a square matrix, got static shape {(m, n)}")
        dtype = float_dtype(x.type.dtype)
        return Apply(self, [x], [TensorType(dtype, (m, n))(), TensorType("int32", (m,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        check_square_value(a, "lu_factor", "a")
        lu_, piv = scipy_linalg.lu_factor(a, check_finite=self.check_finite)
        output_storage[0][0] = np.asarray(lu_, dtype=node.outputs[0].type.numpy_dtype)
        output_storage[1][0] = np.asarray(piv, dtype="int32")

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        (shp,) = input_shapes
        return [tuple(shp), (shp[0],)]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (a,) = inputs
        lu_, piv = outputs
        glu = cotangents[0]
        if not _live(glu):
            return [disconnected_type()]
        low = triangle(lu_, -1, True) + pt.eye(a.shape[0], dtype=lu_.type.dtype)
        up = triangle(lu_, 0, False)
        p = pt.eye(a.shape[0], dtype=lu_.type.dtype)[PivotToPermutations()(piv)]
        return [_lu_grad(p, low, up, triangle(glu, -1, True), triangle(glu, 0, False))]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True, False]]


def lu_factor(a: Any, check_finite: bool = True, overwrite_a: bool = False) -> list[Variable]:
    """``(LU, piv)`` of square ``a`` (``scipy_linalg.lu_factor``)."""
    a = as_matrix(a, "lu_factor", "a")
    return Blockwise(LUFactor(check_finite=check_finite))(a)


def pivot_to_permutation(p: Any, inverse: bool = False) -> Variable:
    """Permutation indices from ``lu_factor``'s pivots (batched)."""
    return Blockwise(PivotToPermutations(inverse=inverse))(p)
