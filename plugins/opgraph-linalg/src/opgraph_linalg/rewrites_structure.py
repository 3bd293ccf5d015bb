"""Rewrites that use the structure of a matrix expression, under PyTensor's names.

- ``inv_of_inv`` (canonicalize, stabilize): inv(inv(x)), pinv(pinv(x)) and the
  mixed pairs -> x
- ``transpose_of_inv`` (canonicalize): inv(x).T -> inv(x.T)
- ``det_of_inv`` (canonicalize, stabilize): det(inv(x)) -> 1 / det(x); slogdet(inv(x)) ->
  (sign, -logabsdet) of slogdet(x)
- ``det_of_kronecker`` (canonicalize, stabilize): det(kron(a, b)) -> det(a)**n *
  det(b)**m and slogdet likewise (m, n the orders of a, b)
- ``diag_of_kronecker`` (canonicalize, stabilize): diag(kron(a, b)) ->
  ravel(outer(diag(a), diag(b))); asserts that a and b are square (for other
  shapes the identity is false: the assertion raises instead of a wrong value)
- ``lift_linalg_of_expanded_matrices`` (specialize): f(kron(a, b)) -> kron(f(a), f(b))
  and f(block_diag(a, b)) -> block_diag(f(a), f(b)) for f in inv, pinv, cholesky
- ``det_of_triangular`` (canonicalize, stabilize): det(A) -> prod(diagonal(A)) when A
  is known triangular or diagonal (``assume``, ``alloc_diag``, ``eye``); asserts that
  A is square where its static shape does not show it (the error det raises)
- ``cholesky_ldotlt`` (canonicalize, stabilize): cholesky(L @ L.T) for L known lower
  triangular (or U.T @ U for U upper) -> L with each column's sign set so the diagonal
  is positive (what the Cholesky factor is); a zero on L's diagonal gives NaNs, as the
  factorisation of that singular matrix does (``on_error="nan"`` only)
- ``generic_solve_to_solve_triangular`` (canonicalize, stabilize): solve(A, b) with A
  known lower or upper triangular (a Cholesky factor, ``assume``) -> solve_triangular
- ``scalar_solve_to_division`` (canonicalize, stabilize): a solve with a 1x1 matrix
  ``a`` -> ``b / a`` (``b`` for a unit-diagonal triangular solve, ``b / c**2`` for
  cho_solve); LAPACK divides by that entry too, so the values are the same, but a
  zero ``a`` gives inf/nan instead of the solver's LinAlgError (as in PyTensor);
  a ``b`` whose core has more than one row still raises (``specify_shape``)

The kron and block-diagonal identities hold for square factors; inv, det and
cholesky of a non-square factor raise, as the unrewritten graph does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.assumptions import LOWER_TRIANGULAR, UPPER_TRIANGULAR, AssumptionFeature
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.raise_op import Assert
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.products import Dot, MatMul
from opgraph_linalg._util import transposed_operand
from opgraph_linalg.constructors import BlockDiagonal, ExtractDiag
from opgraph_linalg.decomposition import Cholesky
from opgraph_linalg.inverse import MatrixInverse, MatrixPinv
from opgraph_linalg.products import KroneckerProduct
from opgraph_linalg.solvers import CholeskySolve, Solve, SolveTriangular, solve_triangular
from opgraph_linalg.summary import Det, SLogDet

__all__ = [
    "cholesky_ldotlt",
    "det_of_inv",
    "det_of_kronecker",
    "det_of_triangular",
    "diag_of_kronecker",
    "generic_solve_to_solve_triangular",
    "inv_of_inv",
    "lift_linalg_of_expanded_matrices",
    "register_structure_rewrites",
    "scalar_solve_to_division",
    "transpose_of_inv",
]

_INVERSES = (MatrixInverse, MatrixPinv)
_square_factors = Assert("diag_of_kronecker: the factors of kron must be square matrices")
_square = Assert("det: Determinant not defined for non-square matrices")


def _core(var: Variable, classes: Any) -> Apply | None:
    """The node computing ``var`` when its (Blockwise core) Op is one of ``classes``."""
    node = var.owner
    if node is None:
        return None
    op = node.op.core_op if isinstance(node.op, Blockwise) else node.op
    return node if isinstance(op, classes) else None


def _kron_matrices(var: Variable) -> tuple[Variable, Variable] | None:
    """``(a, b)`` when ``var`` is ``kron(a, b)`` of two matrices."""
    node = var.owner
    if node is None or not isinstance(node.op, KroneckerProduct):
        return None
    a, b = node.inputs
    return (a, b) if a.type.ndim == 2 and b.type.ndim == 2 else None


def _like(new: Variable, old: Variable) -> Variable:
    new = pt.cast(new, old.type.dtype) if new.type.dtype != old.type.dtype else new
    return old.type.filter_variable(new) if new.type != old.type else new


@node_rewriter([Blockwise])
def inv_of_inv(fgraph: Any, node: Apply) -> Any:
    """inv(inv(x)) -> x (any pairing of inv and pinv)."""
    if not isinstance(node.op.core_op, _INVERSES):
        return None
    inner = _core(node.inputs[0], _INVERSES)
    if inner is None:
        return None
    return [_like(inner.inputs[0], node.outputs[0])]


@node_rewriter([DimShuffle])
def transpose_of_inv(fgraph: Any, node: Apply) -> Any:
    """inv(x).T -> inv(x.T): the transpose moves onto the input."""
    nd = node.op.input_ndim
    if nd < 2 or node.op.new_order != (*range(nd - 2), nd - 1, nd - 2):
        return None
    inner = _core(node.inputs[0], MatrixInverse)
    if inner is None:
        return None
    x = inner.inputs[0]
    return [_like(inner.op(pt.swapaxes(x, -1, -2)), node.outputs[0])]


@node_rewriter([Blockwise])
def det_of_inv(fgraph: Any, node: Apply) -> Any:
    """det(inv(x)) -> 1 / det(x); slogdet(inv(x)) -> (sign, -logabsdet) of slogdet(x)."""
    core = node.op.core_op
    if not isinstance(core, (Det, SLogDet)):
        return None
    inner = _core(node.inputs[0], MatrixInverse)
    if inner is None:
        return None
    if isinstance(core, SLogDet):
        sign, logabs = node.op(inner.inputs[0])
        return [_like(sign, node.outputs[0]), _like(-logabs, node.outputs[1])]
    one = pt.constant(np.asarray(1, dtype=node.outputs[0].type.dtype))
    return [_like(pt.true_div(one, node.op(inner.inputs[0])), node.outputs[0])]


@node_rewriter([Blockwise])
def det_of_kronecker(fgraph: Any, node: Apply) -> Any:
    """det(kron(a, b)) = det(a)**n det(b)**m; slogdet: signs likewise, n log|a| + m log|b|."""
    if not isinstance(node.op.core_op, (Det, SLogDet)):
        return None
    factors = _kron_matrices(node.inputs[0])
    if factors is None:
        return None
    a, b = factors
    m, n = a.shape[0], b.shape[0]
    if isinstance(node.op.core_op, Det):
        new = node.op(a) ** n * node.op(b) ** m
        return [_like(new, node.outputs[0])]
    (sign_a, log_a), (sign_b, log_b) = node.op(a), node.op(b)
    sign = sign_a**n * sign_b**m
    logdet = n * log_a + m * log_b
    return [_like(sign, node.outputs[0]), _like(logdet, node.outputs[1])]


def _feature(fgraph: Any) -> AssumptionFeature:
    feature = getattr(fgraph, "assumption_feature", None)
    return feature if feature is not None else AssumptionFeature()


@node_rewriter([Blockwise, Det])
def det_of_triangular(fgraph: Any, node: Apply) -> Any:
    """det(A) -> prod(diagonal(A)) for a triangular (or diagonal) A."""
    op = node.op.core_op if isinstance(node.op, Blockwise) else node.op
    if not isinstance(op, Det):
        return None
    (x,) = node.inputs
    feature = _feature(fgraph)
    if not (feature.check(x, LOWER_TRIANGULAR) or feature.check(x, UPPER_TRIANGULAR)):
        return None
    new = pt.prod(pt.diagonal(x, axis1=-2, axis2=-1), axis=-1)
    m, n = x.type.shape[-2:]
    if m is None or n is None:
        new = _square(new, pt.eq(x.shape[-1], x.shape[-2]))
    return [_like(new, node.outputs[0])]




def _lower_factor(fgraph: Any, m: Variable) -> Variable | None:
    """``L`` (lower triangular) with ``m = L @ L.T``, from the facts known about the operands."""
    node = _core(m, (Dot, MatMul))
    if node is None or len(node.inputs) != 2 or min(i.type.ndim for i in node.inputs) < 2:
        return None
    x, y = node.inputs
    feature = _feature(fgraph)
    if transposed_operand(y) is x and feature.check(x, LOWER_TRIANGULAR):
        return x
    if transposed_operand(x) is y and feature.check(y, UPPER_TRIANGULAR):
        return x  # U.T @ U: U.T is the lower factor
    return None


@node_rewriter([Blockwise])
def cholesky_ldotlt(fgraph: Any, node: Apply) -> Any:
    """cholesky(L @ L.T) -> L with a positive diagonal (see the module doc)."""
    core = node.op.core_op
    if not isinstance(core, Cholesky) or core.on_error != "nan":
        return None
    low = _lower_factor(fgraph, node.inputs[0])
    if low is None:
        return None
    d = pt.diagonal(low, axis1=-2, axis2=-1)
    signs = d / pt.abs(d)  # +-1, NaN for a zero pivot
    fixed = low * pt.expand_dims(signs, -2)
    # a zero pivot makes the whole factor NaN (prod of the signs is NaN, else +-1)
    fixed = fixed + pt.expand_dims(pt.prod(signs, axis=-1) * 0, (-2, -1))
    new = fixed if core.lower else pt.swapaxes(fixed, -1, -2)
    return [_like(new, node.outputs[0])]


@node_rewriter([ExtractDiag])
def diag_of_kronecker(fgraph: Any, node: Apply) -> Any:
    """diag(kron(a, b)) -> ravel(outer(diag(a), diag(b))) for square a and b."""
    if node.op.offset != 0 or node.inputs[0].type.ndim != 2:
        return None
    factors = _kron_matrices(node.inputs[0])
    if factors is None:
        return None
    a, b = factors
    new = pt.outer(pt.diagonal(a), pt.diagonal(b)).ravel()
    new = _square_factors(new, pt.eq(a.shape[0], a.shape[1]), pt.eq(b.shape[0], b.shape[1]))
    return [_like(new, node.outputs[0])]


@node_rewriter([Blockwise])
def lift_linalg_of_expanded_matrices(fgraph: Any, node: Apply) -> Any:
    """f(kron(a, b)) -> kron(f(a), f(b)), f(block_diag(a, b)) -> block_diag(f(a), f(b))."""
    core = node.op.core_op
    if not isinstance(core, (MatrixInverse, MatrixPinv, Cholesky)):
        return None
    (x,) = node.inputs
    if x.owner is not None and isinstance(x.owner.op, KroneckerProduct):
        a, b = x.owner.inputs
        if a.type.ndim != x.type.ndim or b.type.ndim != x.type.ndim:
            return None
        return [_like(x.owner.op(node.op(a), node.op(b)), node.outputs[0])]
    inner = _core(x, BlockDiagonal)
    if inner is None:
        return None
    return [_like(inner.op(*(node.op(m) for m in inner.inputs)), node.outputs[0])]


@node_rewriter([Blockwise, Solve, SolveTriangular, CholeskySolve])
def scalar_solve_to_division(fgraph: Any, node: Apply) -> Any:
    """solve(a, b) with a statically 1x1: a division (see the module doc)."""
    op = node.op.core_op if isinstance(node.op, Blockwise) else node.op
    if not isinstance(op, (Solve, SolveTriangular, CholeskySolve)):
        return None
    a, b = node.inputs
    if tuple(a.type.shape[-2:]) != (1, 1):
        return None
    row = b.type.ndim - op.b_ndim
    if b.type.shape[row] != 1:  # keep the shape error of a b with more than one row
        b = pt.specify_shape(b, [None] * row + [1] + [None] * (op.b_ndim - 1))
    # the 1x1 entry, shaped to broadcast against b's core (a vector or a matrix)
    scale = a[..., 0] if op.b_ndim == 1 else a
    if isinstance(op, SolveTriangular) and op.unit_diagonal:
        new = b * pt.ones_like(scale)
    elif isinstance(op, CholeskySolve):
        new = b / (scale * scale)
    else:
        new = b / scale
    return [_like(new, node.outputs[0])]


@node_rewriter([Blockwise])
def generic_solve_to_solve_triangular(fgraph: Any, node: Apply) -> Any:
    """solve(A, b) for a triangular A -> solve_triangular(A, b) (one triangle is read)."""
    op = node.op.core_op
    if not isinstance(op, Solve) or op.assume_a != "gen":
        return None
    a, b = node.inputs
    feature = _feature(fgraph)
    if feature.check(a, LOWER_TRIANGULAR):
        lower = True
    elif feature.check(a, UPPER_TRIANGULAR):
        lower = False
    else:
        return None
    new = solve_triangular(a, b, lower=lower, trans=int(op.transposed), b_ndim=op.b_ndim,
                           check_finite=op.check_finite)
    return [_like(new, node.outputs[0])]


def register_structure_rewrites(db: Any) -> None:
    """Register under PyTensor's names, phases and tags (plus ``linalg``)."""
    both = ("canonicalize", "stabilize")
    for name, rewriter, phases in (
        ("inv_of_inv", inv_of_inv, both),
        ("transpose_of_inv", transpose_of_inv, ("canonicalize",)),
        ("det_of_inv", det_of_inv, both),
        ("det_of_kronecker", det_of_kronecker, both),
        ("det_of_triangular", det_of_triangular, both),
        ("cholesky_ldotlt", cholesky_ldotlt, both),
        ("diag_of_kronecker", diag_of_kronecker, both),
        ("lift_linalg_of_expanded_matrices", lift_linalg_of_expanded_matrices,
         ("specialize",)),
        ("scalar_solve_to_division", scalar_solve_to_division, both),
        ("generic_solve_to_solve_triangular", generic_solve_to_solve_triangular, both),
    ):
        for phase in phases:
            tags = ("fast_run", "fast_compile") if phase == "canonicalize" else ("fast_run",)
            db[phase].register(name, rewriter, *tags, "linalg")
