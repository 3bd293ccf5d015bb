"""Linear solvers: solve, solve_triangular, cho_solve, lu_solve (Blockwise over batches).

Each core Op works on one matrix ``a`` and one right-hand side ``b`` (a vector
when ``b_ndim == 1``, else a matrix); the public functions wrap it in
Blockwise, so stacks of systems broadcast like NumPy.  Gradients (one solve
with the transposed system, then an outer product) are built here on core
matrices and vectorised by Blockwise.
"""

from __future__ import annotations

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
from opgraph.utils import lazy_scipy_module
from opgraph_linalg._util import (
    as_matrix,
    check_square_static,
    check_square_value,
    float_dtype,
    matrix_transpose,
    triangle,
    triangle_grad,
)

scipy_linalg = lazy_scipy_module("linalg")  # imported on first use, not at plugin load

__all__ = [
    "CholeskySolve",
    "LUSolve",
    "PivotToPermutations",
    "Solve",
    "SolveBase",
    "SolveTriangular",
    "cho_solve",
    "lu_solve",
    "solve",
    "solve_triangular",
]

_ASSUME_A = {
    "gen": "gen", "general": "gen", "sym": "sym", "symmetric": "sym", "her": "her",
    "hermitian": "her", "pos": "pos", "positive definite": "pos", "diagonal": "diagonal",
    "tridiagonal": "tridiagonal",
}
#: assume_a values that solve() hands to solve_triangular
_TRIANGULAR = {"lower triangular": True, "upper triangular": False}
_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}


def _outer(u: Variable, v: Variable) -> Variable:
    """u v^T for core vectors, u @ v^T for core matrices."""
    if u.type.ndim == 1:
        return pt.outer(u, v)
    return pt.dot(u, v.T)


def _live(t: Any) -> bool:
    return t is not None and not _is_disconnected(t)


class SolveBase(Op):
    """A core solve of ``a`` (a matrix) against ``b`` (``b_ndim`` 1 or 2)."""

    __props__: tuple[str, ...] = ("lower", "check_finite", "b_ndim")
    who = "solve"

    def __init__(self, *, lower: bool = False, check_finite: bool = True, b_ndim: int = 2) -> None:
        if b_ndim not in (1, 2):
            raise ValueError(f"{self.who}: b_ndim must be 1 or 2, got {b_ndim!r}")
        self.lower = bool(lower)
        self.check_finite = bool(check_finite)
        self.b_ndim = int(b_ndim)

    @property
    def gufunc_signature(self) -> str:
        return "(m,m),(m)->(m)" if self.b_ndim == 1 else "(m,m),(m,n)->(m,n)"

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = pt.as_tensor_variable(a), pt.as_tensor_variable(b)
        if a.type.ndim != 2:
            raise ValueError(
                f"{self.who}: `A` must be a matrix (the core op takes one; the function "
                f"{self.who}() batches), got {a.type}"
            )
        if b.type.ndim != self.b_ndim:
            raise ValueError(
                f"{self.who}: `b` must have {self.b_ndim} dims (b_ndim={self.b_ndim}; the "
                f"function {self.who}() batches), got {b.type}"
            )
        a = as_matrix(a, self.who, "a")
        b = as_matrix(b, self.who, "b", self.b_ndim)
        check_square_static(a, self.who, "a")
        m, bm = a.type.shape[0], b.type.shape[0]
        if m is not None and bm is not None and m != bm:
            raise ValueError(
                f"{self.who}: a has {m} rows but b has {bm}: shapes {a.type.shape} and "
                f"{b.type.shape} do not match"
            )
        out = TensorType(float_dtype(a.type.dtype, b.type.dtype), b.type.shape)()
        return Apply(self, [a, b], [out])

    def _solve_pushforward(self, inputs: Any, outputs: Any, tangents: Any, transposed: bool,
                           read_tangent: Any) -> list:
        """d x = solve(a, d b - d a x): the tangent of a linear solve (``a^T`` when transposed).

        ``read_tangent`` keeps the part of ``d a`` the op reads (a triangle, a symmetric part).
        """
        a, _ = inputs
        (x,) = outputs
        ta, tb = tangents
        if not _live(ta) and not _live(tb):
            return [disconnected_type()]
        rhs = tb if _live(tb) else pt.zeros_like(x)
        if _live(ta):
            ta = read_tangent(ta)
            rhs = rhs - pt.dot(ta.T if transposed else ta, x)
        return [self(a, rhs)]

    def _check_values(self, a: np.ndarray, b: np.ndarray) -> None:
        check_square_value(a, self.who, "a")
        if b.shape[0] != a.shape[0]:
            raise ValueError(
                f"{self.who}: a has shape {a.shape} but b has shape {b.shape} (rows differ)"
            )

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[1])]

    def _solve(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b = inputs
        self._check_values(a, b)
        x = self._solve(a, b)
        output_storage[0][0] = np.asarray(x, dtype=node.outputs[0].type.numpy_dtype)


class SolveTriangular(SolveBase):
    """``x`` with ``a x = b`` (``trans=1``: ``a^T x = b``) for triangular ``a``."""

    __props__ = ("lower", "trans", "unit_diagonal", "check_finite", "b_ndim")
    who = "solve_triangular"

    def __init__(
        self, *, lower: bool = False, trans: Any = 0, unit_diagonal: bool = False,
        check_finite: bool = True, b_ndim: int = 2,
    ) -> None:
        if trans not in _TRANS:
            raise ValueError(
                f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}"
            )
        super().__init__(lower=lower, check_finite=check_finite, b_ndim=b_ndim)
        self.trans = _TRANS[trans]
        self.unit_diagonal = bool(unit_diagonal)

    def _solve(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return scipy_linalg.solve_triangular(
            a, b, lower=self.lower, trans=self.trans, unit_diagonal=self.unit_diagonal,
            check_finite=self.check_finite,
        )

    def _flipped(self) -> SolveTriangular:
        return SolveTriangular(
            lower=self.lower, trans=0 if self.trans else 1, unit_diagonal=self.unit_diagonal,
            check_finite=self.check_finite, b_ndim=self.b_ndim,
        )

    def _mask(self, g: Variable) -> Variable:
        g = triangle(g, 0 if not self.unit_diagonal else (-1 if self.lower else 1), self.lower)
        return g

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        a, _ = inputs
        (x,) = outputs
        (gx,) = cotangents
        if not _live(gx):
            return [disconnected_type(), disconnected_type()]
        gb = self._flipped()(a, gx)
        ga = -_outer(x, gb) if self.trans else -_outer(gb, x)
        return [self._mask(ga), gb]

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> list:
        return self._solve_pushforward(inputs, outputs, tangents, bool(self.trans), self._mask)


class Solve(SolveBase):
    """``x`` with ``a x = b`` for a general, symmetric or positive definite ``a``."""

    __props__ = ("assume_a", "lower", "check_finite", "b_ndim", "transposed")

    def __init__(
        self, *, assume_a: str = "gen", lower: bool = False, check_finite: bool = True,
        b_ndim: int = 2, transposed: bool = False,
    ) -> None:
        if assume_a not in _ASSUME_A:
            raise ValueError(
                f"solve: Invalid assume_a: {assume_a}. It must be one of "
                f"{sorted({*_ASSUME_A, *_TRIANGULAR})}"
            )
        super().__init__(lower=lower, check_finite=check_finite, b_ndim=b_ndim)
        self.assume_a = _ASSUME_A[assume_a]
        # a symmetric (or diagonal) matrix is its own transpose
        self.transposed = bool(transposed) and self.assume_a in ("gen", "tridiagonal")

    def _solve(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return scipy_linalg.solve(
            a, b, assume_a=self.assume_a, lower=self.lower, check_finite=self.check_finite,
            transposed=self.transposed,
        )

    def _with_transposed(self, transposed: bool) -> Solve:
        return Solve(
            assume_a=self.assume_a, lower=self.lower, check_finite=self.check_finite,
            b_ndim=self.b_ndim, transposed=transposed,
        )

    def _sym_mask(self, g: Variable) -> Variable:
        """Keep the gradient on the entries the solver reads."""
        if self.assume_a == "gen":
            return g
        if self.assume_a == "diagonal":
            return triangle(triangle(g, 0, True), 0, False)
        if self.assume_a == "tridiagonal":
            return triangle(triangle(g, 1, True), -1, False)
        return triangle_grad(g, self.lower)

    def _read_tangent(self, t: Variable) -> Variable:
        """The matrix the solver sees when its input moves by ``t``."""
        if self.assume_a in ("gen", "diagonal", "tridiagonal"):
            return self._sym_mask(t)
        low = triangle(t, 0, self.lower)
        return low + matrix_transpose(triangle(t, -1 if self.lower else 1, self.lower))

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        a, _ = inputs
        (x,) = outputs
        (gx,) = cotangents
        if not _live(gx):
            return [disconnected_type(), disconnected_type()]
        flip = self.assume_a in ("gen", "tridiagonal")
        gb = self._with_transposed(not self.transposed if flip else False)(a, gx)
        ga = -_outer(x, gb) if self.transposed else -_outer(gb, x)
        return [self._sym_mask(ga), gb]

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> list:
        return self._solve_pushforward(inputs, outputs, tangents, self.transposed,
                                       self._read_tangent)


class CholeskySolve(SolveBase):
    """``x`` with ``(c c^T) x = b`` from the Cholesky factor ``c`` (``lower``) or ``c^T c``."""

    who = "cho_solve"

    def __init__(self, *, lower: bool = True, check_finite: bool = True, b_ndim: int = 2) -> None:
        super().__init__(lower=lower, check_finite=check_finite, b_ndim=b_ndim)

    def _solve(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return scipy_linalg.cho_solve((a, self.lower), b, check_finite=self.check_finite)

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        c, _ = inputs
        (x,) = outputs
        (gx,) = cotangents
        if not _live(gx):
            return [disconnected_type(), disconnected_type()]
        gb = self(c, gx)  # (c c^T) is symmetric
        g_full = -_outer(gb, x)
        g_sym = g_full + g_full.T
        gc = pt.dot(g_sym, c) if self.lower else pt.dot(c, g_sym)
        return [triangle(gc, 0, self.lower), gb]


class LUSolve(Op):
    """``x`` with ``a x = b`` from ``lu_factor(a)``'s ``(lu, piv)``."""

    __props__ = ("trans", "check_finite", "b_ndim")

    def __init__(self, *, trans: Any = 0, check_finite: bool = True, b_ndim: int = 2) -> None:
        if trans not in _TRANS:
            raise ValueError(f"lu_solve: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
        if b_ndim not in (1, 2):
            raise ValueError(f"lu_solve: b_ndim must be 1 or 2, got {b_ndim!r}")
        self.trans = _TRANS[trans]
        self.check_finite = bool(check_finite)
        self.b_ndim = int(b_ndim)

    @property
    def gufunc_signature(self) -> str:
        return "(m,m),(m),(m)->(m)" if self.b_ndim == 1 else "(m,m),(m),(m,n)->(m,n)"

    def make_node(self, lu: Any, piv: Any, b: Any) -> Apply:
        lu = as_matrix(lu, "lu_solve", "LU")
        piv = pt.as_tensor_variable(piv)
        b = as_matrix(b, "lu_solve", "b", self.b_ndim)
        if piv.type.dtype not in pt.integer_dtypes or piv.type.ndim != 1:
            raise TypeError(f"lu_solve: pivots must be an integer vector, got {piv.type}")
        check_square_static(lu, "lu_solve", "LU")
        out = TensorType(float_dtype(lu.type.dtype, b.type.dtype), b.type.shape)()
        return Apply(self, [lu, piv, b], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        lu, piv, b = inputs
        check_square_value(lu, "lu_solve", "LU")
        x = scipy_linalg.lu_solve((lu, piv), b, trans=self.trans, check_finite=self.check_finite)
        output_storage[0][0] = np.asarray(x, dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[2])]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        lu, piv, _ = inputs
        (gx,) = cotangents
        if not _live(gx):
            return [disconnected_type()] * 3
        (x,) = outputs
        flipped = LUSolve(trans=0 if self.trans else 1, check_finite=self.check_finite,
                          b_ndim=self.b_ndim)
        gb = flipped(lu, piv, gx)
        ga = -_outer(x, gb) if self.trans else -_outer(gb, x)
        # a = P L U with L, U packed in lu: gL = P^T gA U^T, gU = L^T P^T gA
        eye = pt.eye(lu.shape[0], dtype=lu.type.dtype)
        ptga = pt.dot(eye[PivotToPermutations()(piv)].T, ga)
        low = triangle(lu, -1, True) + eye
        up = triangle(lu, 0, False)
        glu = triangle(pt.dot(ptga, up.T), -1, True) + triangle(pt.dot(low.T, ptga), 0, False)
        return [glu, disconnected_type(), gb]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [True]]


class PivotToPermutations(Op):
    """LAPACK row-swap pivots -> the row indices ``p`` with ``a = L[p] @ U`` (what
    ``scipy_linalg.lu(a, p_indices=True)`` returns; ``P = eye[p]``);
    ``inverse=True`` gives ``argsort(p)``, with ``a[argsort(p)] = L @ U``."""

    __props__ = ("inverse",)
    gufunc_signature = "(m)->(m)"

    def __init__(self, inverse: bool = False) -> None:
        self.inverse = bool(inverse)

    def make_node(self, piv: Any) -> Apply:
        piv = pt.as_tensor_variable(piv)
        if piv.type.dtype not in pt.integer_dtypes or piv.type.ndim != 1:
            raise TypeError(
                f"pivot_to_permutation: pivots must be an integer vector, got {piv.type}"
            )
        return Apply(self, [piv], [TensorType("int64", piv.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (piv,) = inputs
        perm = np.arange(len(piv))
        for i, j in enumerate(piv):
            perm[i], perm[j] = perm[j], perm[i]
        output_storage[0][0] = perm if self.inverse else np.argsort(perm)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        return [disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]



# --------------------------------------------------------------------------- functions


def _b_ndim(b: Variable, b_ndim: int | None) -> int:
    if b_ndim is not None:
        return b_ndim
    return 1 if b.type.ndim == 1 else 2


def solve(
    a: Any, b: Any, *, lower: bool = False, overwrite_a: bool = False,
    overwrite_b: bool = False, check_finite: bool = True, assume_a: str = "gen",
    transposed: bool = False, b_ndim: int | None = None,
) -> Variable:
    """``x`` solving ``a @ x = b`` (``scipy_linalg.solve``); batches broadcast.

    ``b_ndim`` says whether b's core is a vector (1) or a matrix (2); by default
    a 1-d b is a vector and anything else a batch of matrices.
    """
    a = as_matrix(a, "solve", "a")
    b = as_matrix(b, "solve", "b", 1)
    if assume_a in _TRIANGULAR:
        return solve_triangular(a, b, lower=_TRIANGULAR[assume_a], trans=int(transposed),
                                check_finite=check_finite, b_ndim=b_ndim)
    op = Solve(assume_a=assume_a, lower=lower, check_finite=check_finite,
               b_ndim=_b_ndim(b, b_ndim), transposed=transposed)
    check_square_static(a, "solve", "a")
    return Blockwise(op)(a, b)


def solve_triangular(
    a: Any, b: Any, *, trans: Any = 0, lower: bool = False, unit_diagonal: bool = False,
    overwrite_b: bool = False, check_finite: bool = True, b_ndim: int | None = None,
) -> Variable:
    """``x`` solving ``a @ x = b`` for triangular ``a`` (``scipy_linalg.solve_triangular``)."""
    a = as_matrix(a, "solve_triangular", "a")
    b = as_matrix(b, "solve_triangular", "b", 1)
    check_square_static(a, "solve_triangular", "a")
    op = SolveTriangular(lower=lower, trans=trans, unit_diagonal=unit_diagonal,
                         check_finite=check_finite, b_ndim=_b_ndim(b, b_ndim))
    return Blockwise(op)(a, b)


def cho_solve(
    c_and_lower: tuple[Any, bool], b: Any, *, check_finite: bool = True,
    overwrite_b: bool = False, b_ndim: int | None = None,
) -> Variable:
    """``x`` solving ``(c @ c.T) @ x = b`` from a Cholesky factor (``scipy_linalg.cho_solve``)."""
    try:
        c, lower = c_and_lower
    except (TypeError, ValueError):
        raise TypeError(
            "cho_solve: first argument must be a tuple (c, lower), as cho_factor returns"
        ) from None
    c = as_matrix(c, "cho_solve", "c")
    b = as_matrix(b, "cho_solve", "b", 1)
    check_square_static(c, "cho_solve", "c")
    op = CholeskySolve(lower=lower, check_finite=check_finite, b_ndim=_b_ndim(b, b_ndim))
    return Blockwise(op)(c, b)


def lu_solve(
    lu_and_piv: tuple[Any, Any], b: Any, *, trans: Any = 0, check_finite: bool = True,
    overwrite_b: bool = False, b_ndim: int | None = None,
) -> Variable:
    """``x`` solving ``a @ x = b`` from ``lu_factor(a)`` (``scipy_linalg.lu_solve``)."""
    try:
        lu, piv = lu_and_piv
    except (TypeError, ValueError):
        raise TypeError(
            "lu_solve: first argument must be the tuple (LU, pivots) that lu_factor returns"
        ) from None
    b = as_matrix(b, "lu_solve", "b", 1)
    op = LUSolve(trans=trans, check_finite=check_finite, b_ndim=_b_ndim(b, b_ndim))
    return Blockwise(op)(lu, piv, b)
