"""Push loop-invariant computations out of a Scan's inner graph.

A node of the body that reads only non-sequences and constants computes the
same value at every step: it is computed once, outside the loop, and the body
reads the result as a new non-sequence.  The shape of a tap input (a row of a
sequence or of a state's buffer) is loop-invariant too, since every step must
return rows of one shape (the loop raises otherwise): ``h_tm1.shape`` in the
body becomes the outer buffer's ``shape[1:]``, so what is computed from it
(the bounds of a weight's row block, read by a gradient) leaves the loop.
"""

from __future__ import annotations

from typing import Any

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Constant, Variable, clone_replace, io_toposort
from opgraph.graph.replace import graph_replace
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs
from opgraph.tensor.shape import Shape, Shape_i
from opgraph_rewrites.scan.accumulate import scan_push_out_outer_sum
from opgraph_rewrites.scan.body import (
    get_outer_ndim,
    inner_sitsot_only_last_step_used,
    set_inner_outputs,
)
from opgraph_rewrites.scan.push_out_seq import scan_push_out_seq_products

__all__ = [
    "get_outer_ndim",
    "hoist_tap_shapes",
    "inner_sitsot_only_last_step_used",
    "invariant_nodes",
    "push_out_invariants",
    "scan_push_out_add",
    "scan_push_out_dot1",
    "scan_push_out_non_seq",
    "scan_push_out_seq",
    "set_inner_outputs",
]


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
    # graph_replace, not clone_replace: the outer values' own graphs (a loop's output
    # read for its shape) are reused, not copied into a second loop
    outer_vals = graph_replace(users, dict(zip(args.inner_in_non_seqs, args.outer_in_non_seqs)),
                               strict=False)
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


def _tap_rows(args: ScanArgs) -> dict[Variable, Variable]:
    """Each tap input of the body (sequence, mit-sot and sit-sot taps) -> the outer array
    whose rows it takes (untraced states and shared outputs may change shape: left out)."""
    rows = dict(zip(args.inner_in_seqs, args.outer_in_seqs))
    for ins, outer in zip(args.inner_in_mit_sot, args.outer_in_mit_sot):
        rows.update((x, outer) for x in ins)
    rows.update(zip(args.inner_in_sit_sot, args.outer_in_sit_sot))
    return rows


def hoist_tap_shapes(args: ScanArgs) -> bool:
    """Edit ``args`` in place: ``Shape``/``Shape_i`` of tap inputs become non-sequences
    computed from the outer arrays' shapes.  True if any."""
    rows = _tap_rows(args)
    found: dict[Variable, Variable] = {}
    for node in io_toposort(args.inner_inputs, args.inner_outputs):
        if not isinstance(node.op, Shape | Shape_i) or node.inputs[0] not in rows:
            continue
        outer, inner = rows[node.inputs[0]], node.outputs[0]
        if isinstance(node.op, Shape_i):
            value = outer.shape[node.op.i + 1]
        else:
            value = pt.stack([outer.shape[d + 1] for d in range(outer.type.ndim - 1)])
        if value.type.dtype != inner.type.dtype:
            value = pt.cast(value, inner.type.dtype)
        if value.type != inner.type:
            continue
        found[inner] = value
    if not found:
        return False
    placeholders = {inner: inner.type() for inner in found}
    set_inner_outputs(args, clone_replace(args.inner_outputs, placeholders))
    args.inner_in_non_seqs.extend(placeholders.values())
    args.outer_in_non_seqs.extend(found.values())
    return True


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
    hoisted = hoist_tap_shapes(args)
    if not (push_out_invariants(args) or hoisted):
        return False
    new = args.make_node()
    repeated = _repeated(args, new)
    return {o: repeated.get(n, n) for o, n in zip(node.outputs, new.outputs)}


#: PyTensor's names for the push-out rewrites opgraph implements once each: a
#: loop's sequence-only matrix products computed before it (``scan_push_out_seq``),
#: and a state that sums per-step products turned into one product after the loop
#: (``scan_push_out_add``, and ``scan_push_out_dot1`` for the gradient of ``W @ h``)
scan_push_out_seq = scan_push_out_seq_products
scan_push_out_add = scan_push_out_outer_sum
scan_push_out_dot1 = scan_push_out_outer_sum
