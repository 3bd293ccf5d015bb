"""Push loop-invariant computations out of a Scan's inner graph.

A node of the body that reads only non-sequences and constants computes the
same value at every step: it is computed once, outside the loop, and the body
reads the result as a new non-sequence.
"""

from __future__ import annotations

from typing import Any

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Constant, Variable, clone_replace, io_toposort
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs

__all__ = ["invariant_nodes", "push_out_invariants", "scan_push_out_non_seq", "set_inner_outputs"]


def invariant_nodes(args: ScanArgs) -> list[Apply]:
    """The body's nodes whose inputs are all non-sequences, constants or other such nodes."""
    invariant: set[Variable] = set(args.inner_in_non_seqs)
    constant: set[Variable] = set()
    found = []
    for node in io_toposort(args.inner_inputs, args.inner_outputs):
        if getattr(node.op, "destroy_map", None):
            continue
        if isinstance(node.op, Scan):
            continue
        for x in node.inputs:
            if isinstance(x, Constant):
                constant.add(x)
        if not node.inputs or not all(x in invariant or x in constant for x in node.inputs):
            continue
        invariant.update(node.outputs)
        if not all(x in constant for x in node.inputs):
            found.append(node)
        else:  # constant folding's job; read by the nodes pushed out
            constant.update(node.outputs)
    return found


def push_out_invariants(args: ScanArgs) -> bool:
    """Edit ``args`` in place: invariant values become new non-sequences.  True if any."""
    nodes = invariant_nodes(args)
    if not nodes:
        return False
    inside = {o for n in nodes for o in n.outputs}
    # the frontier: invariant values read by a step-dependent node or returned by the body
    users: list[Variable] = []
    seen: set[Variable] = set()
    for node in io_toposort(args.inner_inputs, args.inner_outputs):
        if node in nodes:
            continue
        for x in node.inputs:
            if x in inside and x not in seen:
                seen.add(x)
                users.append(x)
    for x in args.inner_outputs:
        if x in inside and x not in seen:
            seen.add(x)
            users.append(x)
    if not users:
        return False
    outer_vals = clone_replace(users, dict(zip(args.inner_in_non_seqs, args.outer_in_non_seqs)))
    placeholders = []
    for inner, outer in zip(users, outer_vals):
        ph = outer.type()
        ph.name = inner.name
        placeholders.append(ph)
    new_outs = clone_replace(args.inner_outputs, dict(zip(users, placeholders)))
    set_inner_outputs(args, new_outs)
    args.inner_in_non_seqs.extend(placeholders)
    args.outer_in_non_seqs.extend(outer_vals)
    return True


def set_inner_outputs(args: ScanArgs, outs: list[Any]) -> None:
    """Put a flat list of inner outputs back into ``args``' groups."""
    it = iter(outs)
    args.inner_out_mit_mot = [[next(it) for _ in g] for g in args.inner_out_mit_mot]
    for name in ("inner_out_mit_sot", "inner_out_sit_sot", "inner_out_nit_sot",
                 "inner_out_shared", "cond"):
        setattr(args, name, [next(it) for _ in getattr(args, name)])


def _repeated(args: ScanArgs, new: Apply) -> dict[Variable, Variable]:
    """Per-step outputs that are a non-sequence or a constant: that value repeated."""
    outer_of = dict(zip(args.inner_in_non_seqs, args.outer_in_non_seqs))
    first = len(args.outer_out_mit_sot) + len(args.outer_out_sit_sot)
    out = {}
    for q, inner in enumerate(args.inner_out_nit_sot):
        value = outer_of.get(inner, inner if isinstance(inner, Constant) else None)
        if value is None:
            continue
        value = pt.as_tensor_variable(value)
        target = new.outputs[first + q]
        rep = pt.alloc(value, args.n_steps, *[value.shape[d] for d in range(value.type.ndim)])
        out[target] = pt.cast(rep, target.type.dtype) if rep.type.dtype != \
            target.type.dtype else rep
    return out


@node_rewriter([Scan])
def scan_push_out_non_seq(fgraph: Any, node: Apply) -> Any:
    """Compute the loop-invariant part of a Scan's body once, before the loop.

    A per-step output that is then loop-invariant becomes that value repeated
    ``n_steps`` times, and the Scan no longer computes it.
    """
    if node.op.info.n_mit_mot or node.op.info.as_while:
        return False
    args = ScanArgs.from_node(node)
    if not push_out_invariants(args):
        return False
    new = args.make_node()
    repeated = _repeated(args, new)
    return {o: repeated.get(n, n) for o, n in zip(node.outputs, new.outputs)}
