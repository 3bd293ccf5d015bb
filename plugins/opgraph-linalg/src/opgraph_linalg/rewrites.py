"""Rewrites PyTensor users rely on for linear algebra (each keeps the graph's meaning).

- ``local_useless_blockwise`` (own pass in phase post_specialize; defined in the
  core): Blockwise(op)(x) -> op(x) when no input has batch axes
- ``linalg_transposed_triangular`` (canonicalize):
  solve_triangular(A.T, b, lower=l, trans=t) -> solve_triangular(A, b, lower=not l, trans=1-t)
- ``linalg_cholesky_of_cholesky_product`` (canonicalize):
  cholesky(L @ L.T) -> L when L = cholesky(.) (its diagonal is positive)
- ``optimize_inline_constant_args`` (canonicalize): constant or repeated args of the
  optimizer Ops (minimize, root, ...) into their inner graph
- ``linalg_inplace`` (phase inplace): Schur and QZ overwrite inputs nothing reads later
- ``inv_to_solve`` (stabilize; tag ``linalg_inv_to_solve``):
  inv(A) @ b -> solve(A, b); b @ inv(A) -> solve(A.T, b.T).T
- ``linalg_log_det_to_slogdet`` (stabilize):
  log(det(A)) -> log(sign) + logabsdet; log(abs(det(A))) -> logabsdet
- ``psd_solve_to_chol_solve`` (specialize; tag ``linalg_psd_solve_to_cho_solve``):
  solve(A, b) with A positive definite
  (assume_a="pos", A.tag.psd = True, ``assume(A, positive_definite=True)`` or A = X @ X.T)
  -> cho_solve((cholesky(A), lower), b);
  inv(A) for such A -> cho_solve(.., I)
- the structural rewrites of :mod:`opgraph_linalg.rewrites_structure` and the
  factorization reuse of :mod:`opgraph_linalg.rewrites_decomposition`
- ``local_log_prod_to_sum_log`` (:mod:`opgraph_linalg.rewrites_logprod`)
"""

from __future__ import annotations

from typing import Any

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.assumptions import POSITIVE_DEFINITE
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.blockwise import Blockwise, local_useless_blockwise
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.products import Dot, MatMul
from opgraph_linalg._util import matrix_transpose, transposed_operand
from opgraph_linalg.decomposition import Cholesky, cholesky
from opgraph_linalg.inplace import LinalgInplace
from opgraph_linalg.inverse import MatrixInverse
from opgraph_linalg.optimize.rewrites import inline_constant_args
from opgraph_linalg.rewrites_decomposition import register_decomposition_rewrites
from opgraph_linalg.rewrites_diag import register_diag_rewrites
from opgraph_linalg.rewrites_inverse import register_inverse_rewrites
from opgraph_linalg.rewrites_logprod import register_logprod_rewrites
from opgraph_linalg.rewrites_products import register_product_rewrites
from opgraph_linalg.rewrites_solvers import register_solver_rewrites
from opgraph_linalg.rewrites_structure import _feature, register_structure_rewrites
from opgraph_linalg.rewrites_summary import register_summary_rewrites
from opgraph_linalg.solvers import Solve, SolveTriangular, cho_solve, solve, solve_triangular
from opgraph_linalg.summary import Det, slogdet

__all__ = [
    "cholesky_of_cholesky_product",
    "inv_to_solve",
    "log_det_to_slogdet",
    "psd_solve_to_cho_solve",
    "register_rewrites",
    "transposed_triangular_solve",
]


def _core_node(var: Variable, cls: type) -> Apply | None:
    """The Blockwise node computing ``var`` when its core Op is a ``cls``, else None."""
    node = var.owner
    if node is not None and isinstance(node.op, Blockwise) and isinstance(node.op.core_op, cls):
        return node
    return None


def _as_old(new: Variable, old: Variable) -> Variable:
    if new.type != old.type:
        new = old.type.filter_variable(new)
    return new




@node_rewriter([Blockwise])
def transposed_triangular_solve(fgraph: Any, node: Apply) -> Any:
    """solve_triangular(A.T, b, lower=l, trans=t) -> solve_triangular(A, b, not l, 1 - t)."""
    op = node.op
    core = op.core_op
    if not isinstance(core, SolveTriangular) or core.trans == 2:
        return None
    a, b = node.inputs
    inner = transposed_operand(a)
    if inner is None:
        return None
    new = solve_triangular(inner, b, lower=not core.lower, trans=1 - core.trans,
                           unit_diagonal=core.unit_diagonal, check_finite=core.check_finite,
                           b_ndim=core.b_ndim)
    return [_as_old(new, node.outputs[0])]


@node_rewriter([Dot, MatMul, Blockwise])
def inv_to_solve(fgraph: Any, node: Apply) -> Any:
    """inv(A) @ b -> solve(A, b);  b @ inv(A) -> solve(A.T, b.T).T."""
    op = node.op
    if isinstance(op, Blockwise) and not isinstance(op.core_op, Dot | MatMul):
        return None
    if len(node.inputs) != 2:
        return None
    x, y = node.inputs
    out = node.outputs[0]
    left = _core_node(x, MatrixInverse)
    if left is not None:
        (a,) = left.inputs
        if y.type.ndim == 1 and a.type.ndim == 2:
            return [_as_old(solve(a, y, b_ndim=1), out)]
        if y.type.ndim >= 2:
            return [_as_old(solve(a, y, b_ndim=2), out)]
        return None
    right = _core_node(y, MatrixInverse)
    if right is not None:
        (a,) = right.inputs
        if x.type.ndim == 1 and a.type.ndim == 2:
            return [_as_old(solve(matrix_transpose(a), x, b_ndim=1), out)]
        if x.type.ndim >= 2:
            res = solve(matrix_transpose(a), matrix_transpose(x), b_ndim=2)
            return [_as_old(matrix_transpose(res), out)]
    return None


@node_rewriter([Elemwise])
def log_det_to_slogdet(fgraph: Any, node: Apply) -> Any:
    """log(det(A)) -> log(sign) + logabsdet;  log(abs(det(A))) -> logabsdet."""
    if node.op.scalar_op != ps.log or node.op.inplace_pattern:
        return None
    (arg,) = node.inputs
    absolute = False
    inner = arg.owner
    if inner is not None and isinstance(inner.op, Elemwise) and inner.op.scalar_op == ps.abs:
        absolute = True
        arg = inner.inputs[0]
    det_node = _core_node(arg, Det)
    if det_node is None:
        return None
    sign, logabs = slogdet(det_node.inputs[0])
    new = logabs if absolute else pt.log(sign) + logabs
    return [_as_old(new, node.outputs[0])]


def _product_operands(var: Variable) -> tuple[Variable, Variable] | None:
    """``(x, y)`` when ``var`` is the matrix product ``x @ y`` (dot, matmul, batched dot)."""
    node = var.owner
    if node is None or len(node.inputs) != 2:
        return None
    op = node.op
    core = op.core_op if isinstance(op, Blockwise) else op
    if not isinstance(core, Dot | MatMul):
        return None
    x, y = node.inputs
    if x.type.ndim < 2 or y.type.ndim < 2:
        return None
    return x, y


def _is_gram(var: Variable) -> bool:
    """``var`` is ``X @ X.T`` or ``X.T @ X``: symmetric positive semi-definite."""
    operands = _product_operands(var)
    if operands is None:
        return False
    x, y = operands
    return transposed_operand(y) is x or transposed_operand(x) is y


def _tagged_psd(var: Variable) -> bool:
    """Tagged positive definite (``var.tag.psd = True``) or a product ``X @ X.T``."""
    return bool(getattr(var.tag, "psd", False)) or _is_gram(var)


@node_rewriter([Blockwise])
def cholesky_of_cholesky_product(fgraph: Any, node: Apply) -> Any:
    """cholesky(L @ L.T) -> L when L is itself a (lower) Cholesky factor; likewise U.T @ U."""
    core = node.op.core_op
    if not isinstance(core, Cholesky):
        return None
    operands = _product_operands(node.inputs[0])
    if operands is None:
        return None
    x, y = operands
    factor, other = (x, y) if core.lower else (y, x)
    chol = _core_node(factor, Cholesky)
    if chol is None or chol.op.core_op.lower != core.lower:
        return None
    if transposed_operand(other) is not factor:
        return None
    return [_as_old(factor, node.outputs[0])]


@node_rewriter([Blockwise])
def psd_solve_to_cho_solve(fgraph: Any, node: Apply) -> Any:
    """solve(A, b) for positive definite A -> cho_solve((cholesky(A), lower), b)."""
    core = node.op.core_op
    if isinstance(core, Solve):
        a, b = node.inputs
        if core.transposed or not (core.assume_a == "pos" or _tagged_psd(a)
                                   or _feature(fgraph).check(a, POSITIVE_DEFINITE)):
            return None
        lower = core.lower if core.assume_a == "pos" else True
        chol = cholesky(a, lower=lower, check_finite=False)
        new = cho_solve((chol, lower), b, check_finite=core.check_finite, b_ndim=core.b_ndim)
        return [_as_old(new, node.outputs[0])]
    if isinstance(core, MatrixInverse):
        (a,) = node.inputs
        if not _tagged_psd(a):
            return None
        eye = pt.eye(a.shape[-1], dtype=node.outputs[0].type.dtype)
        new = cho_solve((cholesky(a), True), eye, check_finite=False, b_ndim=2)
        return [_as_old(new, node.outputs[0])]
    return None


def register_rewrites(db: Any) -> None:
    """Register into the standard phases (tags ``fast_run`` and ``linalg``)."""
    # Blockwise's own clean-up (it lives in the core; this package is its main user). A
    # pass of its own after specialize, so the rewrites above still see Blockwise nodes.
    db.register("local_useless_blockwise", local_useless_blockwise, "fast_run", "linalg",
                phase="post_specialize", use_db_name_as_tag=False, before=("BlasOpt",))
    db["canonicalize"].register("linalg_transposed_triangular", transposed_triangular_solve,
                                "fast_run", "fast_compile", "linalg")
    db["canonicalize"].register("linalg_cholesky_of_cholesky_product",
                                cholesky_of_cholesky_product, "fast_run", "fast_compile", "linalg")
    db["canonicalize"].register("optimize_inline_constant_args", inline_constant_args,
                                "fast_run", "fast_compile", "linalg")
    # the solvers claim their buffers before the generic in-place passes look at them
    db.register("linalg_inplace", LinalgInplace(), "fast_run", "inplace", "linalg",
                phase="inplace", before=("InplaceBlasOpt", "inplace_elemwise"))
    # PyTensor's names; the earlier opgraph names stay as tags (``excluding`` either works)
    db["stabilize"].register("inv_to_solve", inv_to_solve, "fast_run", "linalg",
                             "linalg_inv_to_solve")
    db["stabilize"].register("linalg_log_det_to_slogdet", log_det_to_slogdet, "fast_run",
                             "linalg")
    db["specialize"].register("psd_solve_to_chol_solve", psd_solve_to_cho_solve,
                              "fast_run", "linalg", "linalg_psd_solve_to_cho_solve")
    register_structure_rewrites(db)
    register_decomposition_rewrites(db)
    register_logprod_rewrites(db)
    register_diag_rewrites(db)
    register_summary_rewrites(db)
    register_inverse_rewrites(db)
    register_product_rewrites(db)
    register_solver_rewrites(db)
