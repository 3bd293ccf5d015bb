"""Small helpers the Scan rewrites share to edit a loop body held in a ``ScanArgs``."""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Variable
from opgraph.scan.utils import ScanArgs

__all__ = ["get_outer_ndim", "has_duplicates", "inner_sitsot_only_last_step_used",
           "make_equiv", "set_inner_outputs"]


def set_inner_outputs(args: ScanArgs, outs: list[Any]) -> None:
    """Put a flat list of inner outputs back into ``args``' groups."""
    it = iter(outs)
    args.inner_out_mit_mot = [[next(it) for _ in g] for g in args.inner_out_mit_mot]
    for name in ("inner_out_mit_sot", "inner_out_sit_sot", "inner_out_nit_sot",
                 "inner_out_shared", "cond"):
        setattr(args, name, [next(it) for _ in getattr(args, name)])


def get_outer_ndim(var: Variable, scan_args: ScanArgs) -> int:
    """The rank ``var`` (an inner input or output) has outside the loop: one more for
    what the loop stacks (sequences and traced outputs), the same for the rest."""
    loop_invariant = (scan_args.inner_in_non_seqs + scan_args.inner_in_shared
                      + scan_args.inner_out_shared)
    if var in loop_invariant:
        return var.type.ndim
    return var.type.ndim + 1


def inner_sitsot_only_last_step_used(fgraph: Any, var: Variable, scan_args: ScanArgs) -> bool:
    """``var``, the inner input of a sit-sot state, is a state whose outer buffer is read
    only at its last row (``buf[-1]``): its history is not needed after the loop."""
    idx = scan_args.inner_in_sit_sot.index(var)
    outer = scan_args.outer_out_sit_sot[idx]
    clients = fgraph.clients.get(outer, [])
    if len(clients) != 1 or isinstance(clients[0][0], str):
        return False
    node = clients[0][0]
    idx_list = getattr(node.op, "idx_list", None)
    if idx_list is None or len(node.inputs) != 2:
        return False
    last = node.inputs[1]
    data = getattr(last, "data", None)
    return data is not None and getattr(data, "ndim", 1) == 0 and int(data) == -1


def has_duplicates(items: Any) -> bool:
    """Whether a sequence holds the same element twice."""
    items = list(items)
    return len(set(items)) != len(items)


def make_equiv(lo: Any, li: Any) -> tuple[list[Variable], list[Variable]]:
    """The inner inputs in ``li`` whose outer variable (``lo``, pairwise) already came
    earlier, and those outer variables: ``(duplicate inner inputs, their outer inputs)``."""
    seen: set[Variable] = set()
    dup_inner, dup_outer = [], []
    for o, i in zip(lo, li, strict=True):
        if o in seen:
            dup_inner.append(i)
            dup_outer.append(o)
        else:
            seen.add(o)
    return dup_inner, dup_outer
