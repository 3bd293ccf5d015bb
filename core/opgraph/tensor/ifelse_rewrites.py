"""PyTensor's IfElse rewrites, as node and graph rewriters (none is in a database: PyTensor
registers only the in-place one, which opgraph-rewrites provides as ``ifelse_make_view``).

- ``cond_merge_ifs_true`` / ``_false``: ``ifelse(c, ifelse(c, a, b), y) -> ifelse(c, a, y)``
  (and the same for the else branch): the inner test is decided by the outer one.
- ``cond_remove_identical``: outputs with the same then and else values become one.
- ``CondMerge`` / ``cond_merge_random_op``: two IfElses on the same condition, neither
  depending on the other, become one IfElse with both sets of outputs.
- ``ifelse_lift_single_if_through_acceptable_ops``:
  ``op(ifelse(c, x, y)) -> ifelse(c, op(x), op(y))`` for the cheap Ops of
  ``acceptable_ops``.
- ``cond_make_inplace``: an IfElse that returns the chosen branch itself (a view).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Apply, Variable, ancestors
from opgraph.graph.features import ReplaceValidate
from opgraph.graph.rewriting.basic import GraphRewriter, node_rewriter
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.creation import Alloc
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.ifelse import IfElse, ifelse
from opgraph.tensor.math import Argmax, Dot, Max
from opgraph.tensor.shape import Reshape, Shape, SpecifyShape
from opgraph.tensor.subtensor import IncSubtensor, Subtensor

__all__ = ["CondMerge", "acceptable_ops", "cond_make_inplace", "cond_merge_ifs_false",
           "cond_merge_ifs_true", "cond_merge_random_op", "cond_remove_identical",
           "ifelse_lift_single_if_through_acceptable_ops"]


def _branches(node: Apply) -> tuple[list[Variable], list[Variable]]:
    n = node.op.n_outs
    return list(node.inputs[1:1 + n]), list(node.inputs[1 + n:])


@node_rewriter([IfElse])
def cond_make_inplace(fgraph: Any, node: Apply) -> list[Variable] | None:
    """An IfElse that copies its chosen branch replaced by one that returns it."""
    op = node.op
    if op.as_view:
        return None
    if len(fgraph.apply_nodes) >= 500 and all(getattr(o.type, "ndim", -1) == 0
                                              for o in node.outputs):
        return None  # big graphs: not worth it for scalars
    return IfElse(op.n_outs, as_view=True, name=op.name)(*node.inputs, return_list=True)


def _merge_same_condition(node: Apply, then_side: bool) -> list[Variable] | None:
    thens, elses = _branches(node)
    values = thens if then_side else elses
    changed = False
    for i, value in enumerate(values):
        inner = value.owner
        if inner is not None and isinstance(inner.op, IfElse) and inner.inputs[0] is node.inputs[0]:
            inner_then, inner_else = _branches(inner)
            k = inner.outputs.index(value)
            values[i] = inner_then[k] if then_side else inner_else[k]
            changed = True
    if not changed:
        return None
    return node.op(node.inputs[0], *thens, *elses, return_list=True)


@node_rewriter([IfElse])
def cond_merge_ifs_true(fgraph: Any, node: Apply) -> list[Variable] | None:
    """``ifelse(c, ifelse(c, a, b), y) -> ifelse(c, a, y)``."""
    return _merge_same_condition(node, then_side=True)


@node_rewriter([IfElse])
def cond_merge_ifs_false(fgraph: Any, node: Apply) -> list[Variable] | None:
    """``ifelse(c, x, ifelse(c, a, b)) -> ifelse(c, x, b)``."""
    return _merge_same_condition(node, then_side=False)


@node_rewriter([IfElse])
def cond_remove_identical(fgraph: Any, node: Apply) -> list[Variable] | None:
    """Outputs of one IfElse with the same then and else values computed once."""
    thens, elses = _branches(node)
    first: dict[tuple[Variable, Variable], int] = {}
    keep: list[int] = []
    for i, pair in enumerate(zip(thens, elses)):
        if pair not in first:
            first[pair] = len(keep)
            keep.append(i)
    if len(keep) == len(thens):
        return None
    op = node.op
    new = IfElse(len(keep), as_view=op.as_view, name=op.name)(
        node.inputs[0], *[thens[i] for i in keep], *[elses[i] for i in keep], return_list=True)
    return [new[first[pair]] for pair in zip(thens, elses)]


def _depends_on(node: Apply, other: Apply) -> bool:
    """Whether ``node`` computes from an output of ``other``."""
    outs = set(other.outputs)
    return any(v in outs for v in ancestors(node.inputs))


def _merged(first: Apply, second: Apply) -> list[Variable]:
    """One IfElse computing the outputs of both (same condition): first's, then second's."""
    t1, e1 = _branches(first)
    t2, e2 = _branches(second)
    name = f"{first.op.name or '?'}&{second.op.name or '?'}"
    return IfElse(len(t1) + len(t2), name=name)(first.inputs[0], *t1, *t2, *e1, *e2,
                                                return_list=True)


class CondMerge(GraphRewriter):
    """Merges the IfElses on the same condition as the first IfElse of the graph."""

    def add_requirements(self, fgraph: Any) -> None:
        if not any(isinstance(f, ReplaceValidate) for f in fgraph.features):
            fgraph.attach_feature(ReplaceValidate())

    def apply(self, fgraph: Any) -> None:
        conds = [n for n in fgraph.toposort() if isinstance(n.op, IfElse)]
        if len(conds) < 2:
            return
        merging = conds[0]
        for proposal in conds[1:]:
            if (merging in fgraph.apply_nodes and proposal in fgraph.apply_nodes
                    and proposal.inputs[0] is merging.inputs[0]
                    and not _depends_on(proposal, merging)):
                new = _merged(merging, proposal)
                pairs = list(zip([*merging.outputs, *proposal.outputs], new, strict=True))
                fgraph.replace_all_validate(pairs, reason="cond_merge")
                merging = new[0].owner


@node_rewriter(None)
def cond_merge_random_op(fgraph: Any, main_node: Apply) -> list[Variable] | None:
    """Two IfElses on the same condition feeding one node become one IfElse."""
    if isinstance(main_node.op, IfElse):
        return None
    conds = list(dict.fromkeys(i.owner for i in main_node.inputs
                               if i.owner is not None and isinstance(i.owner.op, IfElse)))
    first = conds[0] if conds else None
    for proposal in conds[1:]:
        if (proposal.inputs[0] is first.inputs[0] and not _depends_on(proposal, first)
                and not _depends_on(first, proposal)):
            mapping = dict(zip([*first.outputs, *proposal.outputs], _merged(first, proposal),
                               strict=True))
            new_inputs = [mapping.get(i, i) for i in main_node.inputs]
            return main_node.op.make_node(*new_inputs).outputs
    return None


acceptable_ops: tuple[type, ...] = (Shape, SpecifyShape, Reshape, Dot, Max, Argmax, Subtensor,
                                    IncSubtensor, Alloc, Elemwise, DimShuffle,
                                    Blockwise)
"""The Ops cheap enough to compute on both branches of an IfElse."""


@node_rewriter(list(acceptable_ops))
def ifelse_lift_single_if_through_acceptable_ops(fgraph: Any, main_node: Apply
                                                 ) -> Sequence[Variable] | None:
    """``op(ifelse(c, x, y)) -> ifelse(c, op(x), op(y))`` when exactly one input of the node
    comes from an IfElse."""
    conds = {i.owner for i in main_node.inputs
             if i.owner is not None and isinstance(i.owner.op, IfElse)}
    if len(conds) != 1:
        return None
    (node,) = conds
    thens, elses = _branches(node)
    true_ins = [thens[node.outputs.index(x)] if x in node.outputs else x
                for x in main_node.inputs]
    false_ins = [elses[node.outputs.index(x)] if x in node.outputs else x
                 for x in main_node.inputs]
    true_eval = main_node.op.make_node(*true_ins).outputs
    false_eval = main_node.op.make_node(*false_ins).outputs
    out = ifelse(node.inputs[0], list(true_eval), list(false_eval))
    return list(out)
