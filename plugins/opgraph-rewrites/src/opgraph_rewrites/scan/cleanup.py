"""Remove what a Scan does not need: unused inputs, unused outputs, duplicate inputs.

* a sequence or non-sequence the body never reads is dropped;
* two sequences or non-sequences given the same outer variable become one;
* a constant non-sequence is written into the body;
* an output nobody reads outside is dropped, with its state, when no other
  kept output (nor the ``until`` condition) depends on that state.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Constant, Variable, clone_replace
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.graph.traversal import graph_inputs
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs
from opgraph_rewrites.scan.body import set_inner_outputs

__all__ = ["remove_unused", "scan_remove_unused"]


def _used_inputs(outs: list[Variable]) -> set[Variable]:
    return set(graph_inputs(outs))


def _merge_duplicates(args: ScanArgs) -> bool:
    """Same outer variable twice (or a constant): one inner input, or the constant inlined."""
    replace: dict[Variable, Variable] = {}
    for outer_name, inner_name in (("outer_in_seqs", "inner_in_seqs"),
                                   ("outer_in_non_seqs", "inner_in_non_seqs")):
        outer, inner = getattr(args, outer_name), getattr(args, inner_name)
        first: dict[Any, Variable] = {}
        for o, i in zip(outer, inner):
            if inner_name == "inner_in_non_seqs" and isinstance(o, Constant) and \
                    (o.type == i.type or i.type.is_super(o.type)):
                replace[i] = o
            elif o in first and first[o].type == i.type:
                replace[i] = first[o]
            else:
                first.setdefault(o, i)
    if not replace:
        return False
    set_inner_outputs(args, clone_replace(args.inner_outputs, replace))
    return True


def _drop_unused_inputs(args: ScanArgs) -> bool:
    used = _used_inputs(args.inner_outputs)
    changed = False
    for outer_name, inner_name in (("outer_in_seqs", "inner_in_seqs"),
                                   ("outer_in_non_seqs", "inner_in_non_seqs")):
        outer, inner = getattr(args, outer_name), getattr(args, inner_name)
        keep = [k for k, i in enumerate(inner) if i in used]
        if len(keep) != len(inner):
            changed = True
            setattr(args, outer_name, [outer[k] for k in keep])
            setattr(args, inner_name, [inner[k] for k in keep])
    return changed


def _drop_unused_outputs(args: ScanArgs, clients: Any) -> bool:
    """Drop outputs without outer clients whose state no kept output reads."""
    def unread(v: Variable) -> bool:
        return not clients.get(v)

    changed = False
    while True:
        dropped = False
        # nit-sot outputs: no state, free to go
        keep = [k for k, o in enumerate(args.outer_out_nit_sot) if not unread(o)]
        if len(keep) != len(args.outer_out_nit_sot):
            for name in ("outer_out_nit_sot", "inner_out_nit_sot", "outer_in_nit_sot"):
                setattr(args, name, [getattr(args, name)[k] for k in keep])
            dropped = True
        for kind in ("mit_sot", "sit_sot", "shared"):
            outer_out = getattr(args, f"outer_out_{kind}")
            for k in range(len(outer_out)):
                if not unread(outer_out[k]):
                    continue
                state_in = args.inner_in_mit_sot[k] if kind == "mit_sot" else \
                    [getattr(args, f"inner_in_{kind}")[k]]
                # every other output slot (by position: two slots may hold one variable)
                first = {"mit_sot": 0, "sit_sot": len(args.inner_out_mit_sot),
                         "shared": len(args.inner_out_mit_sot) + len(args.inner_out_sit_sot)
                         + len(args.inner_out_nit_sot)}[kind]
                flat = args.inner_outputs[sum(len(g) for g in args.inner_out_mit_mot):]
                others = flat[:first + k] + flat[first + k + 1:]
                if set(state_in) & _used_inputs(others):
                    continue
                for name in (f"outer_out_{kind}", f"inner_out_{kind}", f"outer_in_{kind}",
                             f"inner_in_{kind}"):
                    lst = getattr(args, name)
                    setattr(args, name, lst[:k] + lst[k + 1:])
                if kind == "mit_sot":
                    args.mit_sot_in_slices = (args.mit_sot_in_slices[:k]
                                              + args.mit_sot_in_slices[k + 1:])
                elif kind == "sit_sot":
                    args.sit_sot_in_slices = (args.sit_sot_in_slices[:k]
                                              + args.sit_sot_in_slices[k + 1:])
                dropped = True
                break
        if not dropped:
            return changed
        changed = True


def remove_unused(args: ScanArgs, clients: Any) -> bool:
    """Edit ``args`` in place (see module doc).  True if anything changed."""
    changed = _merge_duplicates(args)
    changed |= _drop_unused_outputs(args, clients)
    changed |= _drop_unused_inputs(args)
    return changed


@node_rewriter([Scan])
def scan_remove_unused(fgraph: Any, node: Apply) -> Any:
    """Drop a Scan's unused and duplicate inputs and its unused outputs."""
    if node.op.info.n_mit_mot:
        return None
    args = ScanArgs.from_node(node)
    if not remove_unused(args, fgraph.clients):
        return None
    if not args.outer_outputs:
        return None
    kept = set(args.outer_outputs)
    new = args.make_node()
    old_to_new = dict(zip(args.outer_outputs, new.outputs))
    return {o: old_to_new[o] for o in node.outputs if o in kept}
