"""Solves through an explicit factorization, so several solves with one matrix share it.

- ``reuse_decomposition_multiple_solves`` (specialize): ``solve(A, b)`` with a
  core (unbatched) ``A`` that another solve also reads, or with a batch of ``b``,
  becomes a factorization of ``A`` and a solve against the factors: LU
  (``lu_factor`` and two triangular solves) for ``assume_a="gen"``, Cholesky and
  ``cho_solve`` for ``"pos"``, LAPACK's tridiagonal LU for ``"tridiagonal"``.
  Equal factorizations then merge, so ``x = solve(A, b)`` and its gradient (a
  transposed solve with the same ``A``) factor ``A`` once; a
  single plain solve stays one LAPACK call.
- ``scan_split_non_sequence_decomposition_and_solve`` (specialize): the same
  inside a Scan's body when ``A`` is a non-sequence, with the factorization
  computed once before the loop and passed in as new non-sequences.
"""

from __future__ import annotations

from typing import Any

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Variable, clone_replace
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs
from opgraph.tensor.blockwise import Blockwise
from opgraph_linalg.constructors import ExtractDiag
from opgraph_linalg.decomposition import Cholesky, cholesky
from opgraph_linalg.factor import LUFactor, lu_factor, pivot_to_permutation
from opgraph_linalg.solvers import Solve, cho_solve, solve_triangular
from opgraph_linalg.tridiagonal import (
    LUFactorTridiagonal,
    tridiagonal_lu_factor,
    tridiagonal_lu_solve,
)

__all__ = [
    "decompose_A",
    "factor_and_solve",
    "register_decomposition_rewrites",
    "reuse_decomposition_multiple_solves",
    "scan_split_non_sequence_decomposition_and_solve",
    "solve_decomposed_system",
]

_FACTORED = ("gen", "pos", "tridiagonal")


def _factor(op: Solve, a: Variable) -> list[Variable]:
    """The factors of ``a`` that ``op``'s solve reads."""
    if op.assume_a == "gen":
        return list(lu_factor(a, check_finite=False))
    if op.assume_a == "pos":
        return [cholesky(a, lower=op.lower)]
    return list(tridiagonal_lu_factor(a))


def _lu_solve(op: Solve, lu: Variable, piv: Variable, b: Variable) -> Variable:
    """``a = P L U``: ``x = U^-1 L^-1 b[p]``, or for ``a.T``, ``x = (L^-T U^-T b)[p^-1]``."""
    axis = b.type.ndim - op.b_ndim
    if not op.transposed:
        bp = pt.take(b, pivot_to_permutation(piv, inverse=True), axis=axis)
        y = solve_triangular(lu, bp, lower=True, unit_diagonal=True, b_ndim=op.b_ndim,
                             check_finite=False)
        return solve_triangular(lu, y, lower=False, b_ndim=op.b_ndim, check_finite=False)
    y = solve_triangular(lu, b, lower=False, trans=1, b_ndim=op.b_ndim, check_finite=False)
    z = solve_triangular(lu, y, lower=True, unit_diagonal=True, trans=1, b_ndim=op.b_ndim,
                         check_finite=False)
    return pt.take(z, pivot_to_permutation(piv), axis=axis)


def factor_and_solve(op: Solve, factors: list[Variable], b: Variable) -> Variable:
    """``solve(a, b)`` as ``op`` computes it, from ``_factor(op, a)``'s factors."""
    if op.assume_a == "gen":
        return _lu_solve(op, factors[0], factors[1], b)
    if op.assume_a == "pos":
        return cho_solve((factors[0], op.lower), b, check_finite=False, b_ndim=op.b_ndim)
    return tridiagonal_lu_solve(factors, b, b_ndim=op.b_ndim, transposed=op.transposed)


def decompose_A(A: Variable, assume_a: str, lower: bool) -> Any:
    """The factorization a solve with ``assume_a`` works from: ``lu_factor(A)`` (two
    outputs) for ``"gen"``, the tridiagonal LU for ``"tridiagonal"``, ``cholesky(A)``
    for ``"pos"``."""
    if assume_a not in _FACTORED:
        raise NotImplementedError(f"decompose_A: no factorization for assume_a={assume_a!r}")
    factors = _factor(Solve(assume_a=assume_a, lower=lower), A)
    return factors[0] if assume_a == "pos" else factors


def solve_decomposed_system(A_decomp: Any, b: Variable, transposed: bool = False,
                            lower: bool = False, *, core_solve_op: Solve) -> Variable:
    """``solve(A, b)`` as ``core_solve_op`` computes it, from ``decompose_A``'s result."""
    if core_solve_op.assume_a not in _FACTORED:
        raise NotImplementedError(
            f"solve_decomposed_system: no factorization for assume_a={core_solve_op.assume_a!r}")
    op = Solve(assume_a=core_solve_op.assume_a, lower=lower, b_ndim=core_solve_op.b_ndim,
               transposed=transposed)
    factors = [A_decomp] if op.assume_a == "pos" else list(A_decomp)
    return factor_and_solve(op, factors, b)


def _solve_op(node: Apply) -> Any:
    """The Solve of a (Blockwise or plain) solve node, else None."""
    op = node.op.core_op if isinstance(node.op, Blockwise) else node.op
    return op if isinstance(op, Solve) else None


def _factorable(node: Apply) -> bool:
    op = _solve_op(node)
    return (isinstance(op, Solve) and op.assume_a in _FACTORED
            and node.inputs[0].type.ndim == 2)


def _like(new: Variable, old: Variable) -> Variable:
    new = pt.cast(new, old.type.dtype) if new.type.dtype != old.type.dtype else new
    return old.type.filter_variable(new) if new.type != old.type else new


def _worth_factoring(fgraph: Any, node: Apply, op: Solve) -> bool:
    """One factorization serves several systems: ``b`` has batch axes ``A`` lacks, or
    another solve reads the same ``A`` (a single plain solve stays one LAPACK call)."""
    a, b = node.inputs
    if b.type.ndim > op.b_ndim:
        return True
    if fgraph is None:
        return False
    clients = [c for c, _ in fgraph.clients[a] if c is not node and not isinstance(c, str)]
    # another solve with A, or the factors of A already built for one (rewritten first)
    return any((_factorable(c) and c.inputs[0] is a) or _is_factor_of(fgraph, c, op)
               for c in clients)


def _core_op(node: Apply) -> Any:
    return node.op.core_op if isinstance(node.op, Blockwise) else node.op


def _is_factor_of(fgraph: Any, node: Apply, op: Solve) -> bool:
    """``node`` computes (the start of) the factorization ``op``'s solve would use."""
    core = _core_op(node)
    if op.assume_a == "gen":
        return isinstance(core, LUFactor)
    if op.assume_a == "pos":
        return isinstance(core, Cholesky) and core.lower == op.lower
    if not isinstance(core, ExtractDiag):  # tridiagonal: the diagonals feed gttrf
        return False
    return any(not isinstance(c, str) and isinstance(_core_op(c), LUFactorTridiagonal)
               for c, _ in fgraph.clients[node.outputs[0]])


@node_rewriter([Blockwise, Solve])
def reuse_decomposition_multiple_solves(fgraph: Any, node: Apply) -> Any:
    """solve(A, b) -> a solve against factor(A) when the factors serve several systems."""
    if not _factorable(node):
        return None
    op = _solve_op(node)
    if not _worth_factoring(fgraph, node, op):
        return None
    a, b = node.inputs
    return [_like(factor_and_solve(op, _factor(op, a), b), node.outputs[0])]


@node_rewriter([Scan])
def scan_split_non_sequence_decomposition_and_solve(fgraph: Any, node: Apply) -> Any:
    """A Scan body's solve(A, b) with A a non-sequence: A is factored once, before the loop."""
    args = ScanArgs.from_node(node)
    outer_of = dict(zip(args.inner_in_non_seqs, args.outer_in_non_seqs))
    todo = [n for n in _inner_nodes(args.inner_outputs)
            if _factorable(n) and n.inputs[0] in outer_of]
    if not todo:
        return None
    replace: dict[Variable, Variable] = {}
    factored: dict[tuple[Any, Variable], list[Variable]] = {}
    for solve_node in todo:
        op, (a, b) = _solve_op(solve_node), solve_node.inputs
        key = (op.assume_a, op.lower if op.assume_a == "pos" else None), a
        if key not in factored:
            outer_factors = _factor(op, outer_of[a])
            inner_factors = [f.type() for f in outer_factors]
            args.outer_in_non_seqs.extend(outer_factors)
            args.inner_in_non_seqs.extend(inner_factors)
            factored[key] = inner_factors
        new = factor_and_solve(op, factored[key], b)
        replace[solve_node.outputs[0]] = _like(new, solve_node.outputs[0])
    _set_inner_outputs(args, clone_replace(args.inner_outputs, replace))
    new_node = args.make_node()
    return dict(zip(node.outputs, new_node.outputs))


def _inner_nodes(outputs: list[Variable]) -> list[Apply]:
    """The Apply nodes of a Scan body, inputs first."""
    seen: set[Apply] = set()
    order: list[Apply] = []
    stack = [o.owner for o in outputs if o.owner is not None]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        order.append(n)
        stack.extend(i.owner for i in n.inputs if i.owner is not None)
    return order


def _set_inner_outputs(args: ScanArgs, outs: list[Variable]) -> None:
    """Put a flat list of inner outputs back into ``args``' groups (ScanArgs' order)."""
    it = iter(outs)
    args.inner_out_mit_mot = [[next(it) for _ in g] for g in args.inner_out_mit_mot]
    for name in ("inner_out_mit_sot", "inner_out_sit_sot", "inner_out_nit_sot",
                 "inner_out_shared", "cond"):
        setattr(args, name, [next(it) for _ in getattr(args, name)])


def register_decomposition_rewrites(db: Any) -> None:
    """Both rewrites in specialize (PyTensor's phase for the first; tags as PyTensor's)."""
    db["specialize"].register("reuse_decomposition_multiple_solves",
                              reuse_decomposition_multiple_solves, "fast_run", "linalg")
    db["specialize"].register("scan_split_non_sequence_decomposition_and_solve",
                              scan_split_non_sequence_decomposition_and_solve, "fast_run",
                              "scan", "scan_pushout", "linalg")
