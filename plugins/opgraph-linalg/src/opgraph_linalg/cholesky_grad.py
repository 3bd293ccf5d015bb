"""The Cholesky pullback as one Op (the hot part of every GP / MVN-logp gradient).

Written as a graph, the pullback ``A_bar = L^-T Phi(L^T L_bar) L^-1`` costs a
general matrix product and two triangular solves with a matrix right-hand side
(about 4 n^3 flops): twice the Cholesky value plus a hand-written gradient.
Done in one ``perform`` it costs about 2 n^3: the product with the triangular
``L`` is a ``trmm`` and, since only the symmetric part of the result matters
(the gradient of an input of which one triangle is read), the two solves are
one symmetric congruence ``L^-T S L^-1`` computed by LAPACK's ``sygst`` on the
index-reversed problem (reversing rows and columns turns the lower ``L`` into
an upper factor, which is the form ``sygst`` inverts from the right).

The graph form stays the definition: this Op's own pullback and pushforward
differentiate it, so higher derivatives are unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.autodiff.undefined import is_disconnected as _is_disconnected
from opgraph.gradient import Lop, pushforward
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_linalg._util import as_matrix, float_dtype, triangle, triangle_grad
from opgraph_linalg.solvers import SolveTriangular

scipy_linalg = lazy_scipy_module("linalg")  # imported on first use, not at plugin load

__all__ = ["CholeskyPullback", "cholesky_pullback_graph"]


def _strict_lower_half_diag(x: Variable) -> Variable:
    """Phi(x): the strictly lower triangle plus half the diagonal."""
    diag = triangle(triangle(x, 0, True), 0, False)
    return triangle(x, -1, True) + 0.5 * diag


def cholesky_pullback_graph(chol: Variable, gz: Variable, lower: bool) -> Variable:
    """The Cholesky pullback as a graph of matrix Ops (the definition of the fused Op).

    Only the factor's triangle is read (its other one is zero in a factor).
    """
    chol = triangle(chol, 0, lower)
    low = chol if lower else chol.T
    g_low = gz if lower else gz.T
    phi = _strict_lower_half_diag(pt.dot(low.T, g_low))
    solve_t = SolveTriangular(lower=True, trans=1, check_finite=False, b_ndim=2)
    y = solve_t(low, phi.T)
    g = solve_t(low, y.T)  # L^-T Phi L^-1
    return triangle_grad(g, lower)


def _fold(sym: np.ndarray, lower: bool) -> np.ndarray:
    """The gradient of the read triangle from a symmetric one: off-diagonals count twice."""
    out = np.tril(sym, -1) if lower else np.triu(sym, 1)
    out *= 2.0
    idx = np.diag_indices(sym.shape[0])
    out[idx] = sym[idx]
    return out


def _pullback_reference(low: np.ndarray, g_low: np.ndarray) -> np.ndarray:
    """Symmetric part of L^-T Phi(L^T G) L^-1 with two triangular solves (any dtype;
    plain transposes, as the graph form)."""
    c = low.T @ g_low
    phi = np.tril(c, -1) + 0.5 * np.diag(np.diag(c))
    y = scipy_linalg.solve_triangular(low, phi.T, lower=True, trans=1, check_finite=False)
    g = scipy_linalg.solve_triangular(low, y.T, lower=True, trans=1, check_finite=False)
    return 0.5 * (g + g.T)


def _reversed(a: np.ndarray) -> np.ndarray:
    """``a[::-1, ::-1]`` as one flat reversal of its buffer (keeps the memory order)."""
    order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    return a.ravel(order=order)[::-1].reshape(a.shape, order=order)


def _pullback_lapack(low: np.ndarray, g_low: np.ndarray) -> np.ndarray | None:
    """The folded lower triangle of sym(L^-T Phi(L^T G) L^-1) with trmm + sygst (float32/64).

    Works on the Fortran views of the C-ordered inputs (no transposing copies):
    with J the index reversal, ``J L^-T S L^-1 J = L'^-1 (J S J) L'^-T`` for
    the lower factor ``L' = J L^T J``, which is ``sygst(itype=1, uplo="L")``.
    Returns None when LAPACK reports an error (the caller uses two solves).
    """
    trmm, sygst = _routines(low.dtype.char)
    l_rev = np.asfortranarray(_reversed(low.T))  # L' = J L^T J, lower
    # J R J = (J G^T J)(J L J) = (J G^T J) L'^T with R = G^T L = (L^T G)^T: its lower
    # triangle is that of J sym(Phi(L^T G)) J times 2 (the 2 is taken back below)
    b = np.array(_reversed(g_low.T), order="F")  # our copy: trmm may write into it
    a = trmm(1.0, l_rev, b, side=1, lower=1, trans_a=1, overwrite_b=1)
    res, info = sygst(a, l_rev, itype=1, lower=1, overwrite_a=1)
    if info != 0:
        return None
    n = res.shape[0]
    out = np.where(_strict_lower_mask(n), _reversed(res.T), 0.0).astype(res.dtype, copy=False)
    np.fill_diagonal(out, 0.5 * res.diagonal()[::-1])  # 2 G below the diagonal
    return out


@functools.lru_cache(maxsize=8)
def _routines(char: str) -> tuple[Any, Any]:
    """BLAS trmm and LAPACK sygst for one dtype (looked up once, not per call)."""
    probe = np.empty((1, 1), dtype=char)
    trmm, = scipy_linalg.blas.get_blas_funcs(("trmm",), (probe,))
    sygst, = scipy_linalg.lapack.get_lapack_funcs(("sygst",), (probe,))
    return trmm, sygst


@functools.lru_cache(maxsize=32)
def _strict_lower_mask(n: int) -> np.ndarray:
    """True below the diagonal of an n x n matrix (shared, read-only)."""
    mask = np.tri(n, k=-1, dtype=bool)
    mask.flags.writeable = False
    return mask


class CholeskyPullback(Op):
    """``(L, L_bar) -> A_bar``: the cotangent of the matrix a Cholesky factor came from.

    ``A_bar`` is laid on the triangle the Cholesky read (off-diagonal entries
    collect both mirrored contributions), as :func:`cholesky_pullback_graph`.
    """

    __props__ = ("lower",)
    gufunc_signature = "(m,m),(m,m)->(m,m)"

    def __init__(self, lower: bool = True) -> None:
        self.lower = bool(lower)

    def make_node(self, chol: Any, gz: Any) -> Apply:
        chol = as_matrix(chol, "cholesky_pullback", "chol")
        gz = as_matrix(gz, "cholesky_pullback", "gz")
        if chol.type.ndim != 2 or gz.type.ndim != 2:
            raise ValueError("cholesky_pullback: the core op takes matrices")
        dtype = float_dtype(chol.type.dtype, gz.type.dtype)
        shape = tuple(a if a is not None else b for a, b in zip(chol.type.shape, gz.type.shape))
        return Apply(self, [chol, gz], [TensorType(dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        chol, gz = inputs
        if chol.shape != gz.shape or chol.ndim != 2 or chol.shape[0] != chol.shape[1]:
            raise ValueError(
                f"cholesky_pullback: chol and gz must be equal square matrices, got "
                f"{chol.shape} and {gz.shape}"
            )
        dtype = node.outputs[0].type.numpy_dtype
        low = chol if self.lower else chol.T
        g_low = gz if self.lower else gz.T
        low = np.asarray(low, dtype=dtype)
        g_low = np.asarray(g_low, dtype=dtype)
        if np.isnan(low).any():  # a failed factorisation (on_error="nan"): no gradient
            output_storage[0][0] = np.full(low.shape, np.nan, dtype=dtype)
            return
        folded = None
        if dtype.kind == "f" and low.shape[0] > 0:
            folded = _pullback_lapack(low, g_low)
        if folded is None:
            folded = _fold(_pullback_reference(low, g_low), True)
        output_storage[0][0] = folded if self.lower else folded.T

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        chol, gz = inputs
        expr = cholesky_pullback_graph(chol, gz, self.lower)
        return list(Lop(expr, [chol, gz], cotangents[0], disconnected_inputs="ignore"))

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> list:
        chol, gz = inputs
        expr = cholesky_pullback_graph(chol, gz, self.lower)
        pairs = [(x, t) for x, t in zip(inputs, tangents)
                 if t is not None and not _is_disconnected(t)]
        if not pairs:
            return [None]
        return [pushforward(expr, [x for x, _ in pairs], [t for _, t in pairs],
                            disconnected_outputs="ignore")]
