"""Solves against structured matrices, under PyTensor's names.

- ``solve_of_inv_to_matmul`` (stabilize): solve(inv(X), b) -> X @ b (X.T @ b for a
  transposed solve); general solves only (a triangular solve reads one triangle of
  inv(X), so X @ b would not be its value)
- ``diagonal_solve_to_division`` (canonicalize, stabilize): a solve against a diagonal
  D -> b / d (cho_solve: b / d**2; unit-diagonal triangular: b)
- ``orthogonal_solve_to_transpose_matmul`` (canonicalize, stabilize): solve(Q, b) for
  an orthogonal Q -> Q.T @ b (Q @ b transposed); general solves only
- ``solve_sylvester_of_diag`` (canonicalize, stabilize): solve_sylvester(A, B, C) for
  diagonal A, B -> C / (a[:, None] + b[None, :])
- ``paired_triangular_solves_to_cho_solve`` (specialize):
  solve_triangular(L.T, solve_triangular(L, b, lower=True), lower=False) with
  L = cholesky(.) -> cho_solve((L, True), b)

- ``block_diag_solve_to_block_diag_solves`` (canonicalize, stabilize): a solve against
  block_diag(A1, A2) with statically square blocks -> the blocks' solves, joined (a
  block-diagonal ``b`` of matching blocks: the block-diagonal of the blocks' solves)
- ``generic_solve_to_structured_form`` (canonicalize, stabilize): a general solve
  against a matrix known triangular, positive definite or symmetric -> that solver
- ``batched_vector_b_solve_to_matrix_b_solve`` (specialize): a batch of vector ``b``
  against one (unbatched) matrix -> one solve against the matrix of those columns

A diagonal or singular matrix that LAPACK would reject gives inf/nan after the
division rewrites, as in PyTensor.
"""

from __future__ import annotations

from typing import Any

import opgraph.tensor as pt
from opgraph.assumptions import ORTHOGONAL
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.blockwise import Blockwise
from opgraph_linalg._util import transposed_operand
from opgraph_linalg.constructors import BlockDiagonal, block_diag, diagonal
from opgraph_linalg.control import SolveSylvester
from opgraph_linalg.decomposition import Cholesky
from opgraph_linalg.inverse import MatrixInverse
from opgraph_linalg.rewrite_utils import get_assume_a
from opgraph_linalg.rewrites_diag import is_diagonal
from opgraph_linalg.rewrites_structure import _feature, _like
from opgraph_linalg.solvers import (
    CholeskySolve,
    Solve,
    SolveBase,
    SolveTriangular,
    cho_solve,
    solve,
    solve_triangular,
)

__all__ = [
    "batched_vector_b_solve_to_matrix_b_solve",
    "block_diag_solve_to_block_diag_solves",
    "diagonal_solve_to_division",
    "generic_solve_to_structured_form",
    "orthogonal_solve_to_transpose_matmul",
    "paired_triangular_solves_to_cho_solve",
    "register_solver_rewrites",
    "solve_of_inv_to_matmul",
    "solve_sylvester_of_diag",
]


def _core(node: Apply | None, cls: Any) -> Any:
    if node is None:
        return None
    op = node.op.core_op if isinstance(node.op, Blockwise) else node.op
    return op if isinstance(op, cls) else None


def _general(op: Any) -> bool:
    return isinstance(op, Solve) and op.assume_a == "gen"


def _matmul(a: Variable, b: Variable, b_ndim: int) -> Variable:
    """``a @ b`` with ``b`` a stack of vectors (``b_ndim`` 1) or matrices."""
    if b_ndim == 1:
        return pt.matmul(a, pt.expand_dims(b, -1))[..., 0]
    return pt.matmul(a, b)


@node_rewriter([Blockwise])
def solve_of_inv_to_matmul(fgraph: Any, node: Apply) -> Any:
    """solve(inv(X), b) -> X @ b."""
    op = _core(node, Solve)
    if op is None or not _general(op):
        return None
    a, b = node.inputs
    inv = a.owner
    if _core(inv, MatrixInverse) is None:
        return None
    (x,) = inv.inputs
    x = pt.swapaxes(x, -1, -2) if op.transposed else x
    if op.b_ndim == 1 and b.type.ndim == 1 and x.type.ndim == 2:
        return [_like(pt.matmul(x, b), node.outputs[0])]
    return [_like(_matmul(x, b, op.b_ndim), node.outputs[0])]


@node_rewriter([Blockwise])
def diagonal_solve_to_division(fgraph: Any, node: Apply) -> Any:
    """solve(D, b) -> b / d for a diagonal D."""
    op = _core(node, SolveBase)
    if op is None:
        return None
    a, b = node.inputs
    if all(a.type.broadcastable[-2:]) or not is_diagonal(fgraph, a):
        return None
    if isinstance(op, SolveTriangular) and op.unit_diagonal:
        return [_like(b, node.outputs[0])]
    if not isinstance(op, CholeskySolve | Solve | SolveTriangular):
        return None
    d = diagonal(a, axis1=-2, axis2=-1)
    if op.b_ndim == 2:
        d = pt.expand_dims(d, -1)
    if isinstance(op, CholeskySolve):
        d = pt.sqr(d)  # D @ D.T = diag(d**2)
    return [_like(b / d, node.outputs[0])]


@node_rewriter([Blockwise])
def orthogonal_solve_to_transpose_matmul(fgraph: Any, node: Apply) -> Any:
    """solve(Q, b) -> Q.T @ b for an orthogonal Q."""
    op = _core(node, Solve)
    if op is None or not _general(op):
        return None
    a, b = node.inputs
    if not _feature(fgraph).check(a, ORTHOGONAL):
        return None
    q = a if op.transposed else pt.swapaxes(a, -1, -2)
    return [_like(_matmul(q, b, op.b_ndim), node.outputs[0])]


@node_rewriter([Blockwise])
def solve_sylvester_of_diag(fgraph: Any, node: Apply) -> Any:
    """solve_sylvester(diag(a), diag(b), C) -> C / (a[:, None] + b[None, :])."""
    if _core(node, SolveSylvester) is None:
        return None
    a, b, c = node.inputs
    if not (is_diagonal(fgraph, a) and is_diagonal(fgraph, b)):
        return None
    da, db = diagonal(a, axis1=-2, axis2=-1), diagonal(b, axis1=-2, axis2=-1)
    new = c / (pt.expand_dims(da, -1) + pt.expand_dims(db, -2))
    return [_like(new, node.outputs[0])]


def _plain_triangular(node: Apply | None) -> Any:
    op = _core(node, SolveTriangular)
    return op if op is not None and not op.unit_diagonal else None


@node_rewriter([Blockwise])
def paired_triangular_solves_to_cho_solve(fgraph: Any, node: Apply) -> Any:
    """L^-T (L^-1 b) with L a lower Cholesky factor -> cho_solve((L, True), b)."""
    outer = _plain_triangular(node)
    if outer is None:
        return None
    a, inner_out = node.inputs
    # L.T read as upper, or L read as lower and transposed (what canonicalize makes of it)
    if not outer.lower and outer.trans == 0:
        factor = transposed_operand(a)
    elif outer.lower and outer.trans == 1:
        factor = a
    else:
        return None
    if factor is None:
        return None
    chol = _core(factor.owner, Cholesky)
    inner = _plain_triangular(inner_out.owner)
    if chol is None or not chol.lower or inner is None:
        return None
    if not inner.lower or inner.trans != 0 or inner.b_ndim != outer.b_ndim:
        return None
    low, b = inner_out.owner.inputs
    if low is not factor:
        return None
    new = cho_solve((factor, True), b, b_ndim=outer.b_ndim, check_finite=outer.check_finite)
    return [_like(new, node.outputs[0])]


@node_rewriter([Blockwise])
def generic_solve_to_structured_form(fgraph: Any, node: Apply) -> Any:
    """solve(A, b, assume_a="gen") -> the solver for what ``A`` is known to be
    (triangular: ``solve_triangular``; positive definite: ``"pos"``; symmetric: ``"sym"``)."""
    op = _core(node, Solve)
    if op is None or not _general(op) or op.transposed:
        return None
    a, b = node.inputs
    kind = get_assume_a(fgraph, a)
    if kind == "gen":
        return None
    if kind.endswith("triangular"):
        new = solve_triangular(a, b, lower=kind.startswith("lower"), b_ndim=op.b_ndim,
                               check_finite=op.check_finite)
    else:
        # A is symmetric: either triangle holds it; the lower one, as psd_solve_to_chol_solve
        new = solve(a, b, assume_a=kind, lower=True, b_ndim=op.b_ndim,
                    check_finite=op.check_finite)
    return [_like(new, node.outputs[0])]


def _square_blocks(var: Variable) -> list[Variable] | None:
    node = var.owner
    if _core(node, BlockDiagonal) is None:
        return None
    if any(m.type.shape[-1] is None or m.type.shape[-1] != m.type.shape[-2]
           for m in node.inputs):
        return None
    return list(node.inputs)


@node_rewriter([Blockwise])
def block_diag_solve_to_block_diag_solves(fgraph: Any, node: Apply) -> Any:
    """solve(block_diag(A1, A2), b) -> concatenate(solve(A1, b1), solve(A2, b2))."""
    op = _core(node, SolveBase)
    if op is None:
        return None
    a, b = node.inputs
    blocks = _square_blocks(a)
    if blocks is None:
        return None
    b_blocks = b.owner.inputs if _core(b.owner, BlockDiagonal) is not None else None
    if op.b_ndim == 2 and b_blocks is not None and len(b_blocks) == len(blocks) and all(
            bb.type.shape[-2] == m.type.shape[-1] for bb, m in zip(b_blocks, blocks)):
        # block-diagonal on both sides: the solution is block diagonal too
        new = block_diag(*(Blockwise(op)(m, bb) for m, bb in zip(blocks, b_blocks)))
        return [_like(new, node.outputs[0])]
    axis = b.type.ndim - op.b_ndim
    parts, start = [], 0
    for m in blocks:
        n = m.type.shape[-1]
        index = [slice(None)] * b.type.ndim
        index[axis] = slice(start, start + n)
        parts.append(Blockwise(op)(m, b[tuple(index)]))
        start += n
    return [_like(pt.concatenate(parts, axis=axis - b.type.ndim), node.outputs[0])]


@node_rewriter([Blockwise])
def batched_vector_b_solve_to_matrix_b_solve(fgraph: Any, node: Apply) -> Any:
    """A batch of vector solves against one matrix -> one solve with a matrix of columns."""
    op = _core(node, SolveBase)
    if op is None or op.b_ndim != 1:
        return None
    a, b = node.inputs
    if a.type.ndim != 2 or b.type.ndim < 2:
        return None
    m = b.shape[-1]
    cols = pt.reshape(b, (-1, m), ndim=2).T
    props = {k: getattr(op, k) for k in op.__props__}
    props["b_ndim"] = 2
    x = Blockwise(type(op)(**props))(a, cols)
    new = pt.reshape(x.T, pt.shape_tuple(b), ndim=b.type.ndim)
    return [_like(new, node.outputs[0])]


def register_solver_rewrites(db: Any) -> None:
    """Under PyTensor's names and phases (tags ``fast_run``, ``linalg``)."""
    db["stabilize"].register("solve_of_inv_to_matmul", solve_of_inv_to_matmul, "fast_run",
                             "linalg")
    for name, rewriter in (
        ("diagonal_solve_to_division", diagonal_solve_to_division),
        ("orthogonal_solve_to_transpose_matmul", orthogonal_solve_to_transpose_matmul),
        ("solve_sylvester_of_diag", solve_sylvester_of_diag),
        ("block_diag_solve_to_block_diag_solves", block_diag_solve_to_block_diag_solves),
        ("generic_solve_to_structured_form", generic_solve_to_structured_form),
    ):
        for phase in ("canonicalize", "stabilize"):
            tags = ("fast_run", "fast_compile") if phase == "canonicalize" else ("fast_run",)
            db[phase].register(name, rewriter, *tags, "linalg")
    db["specialize"].register("batched_vector_b_solve_to_matrix_b_solve",
                              batched_vector_b_solve_to_matrix_b_solve, "fast_run", "linalg")
    db["specialize"].register("paired_triangular_solves_to_cho_solve",
                              paired_triangular_solves_to_cho_solve, "fast_run", "linalg")
