"""Small helpers the Scan rewrites share to edit a loop body held in a ``ScanArgs``."""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Constant, Variable
from opgraph.scan.utils import ScanArgs
from opgraph_rewrites.scan.save_mem import _from_end, _tail_slice

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
    """The rank ``var`` (an inner variable) would have computed outside the loop: the same
    for a non-sequence or a constant, one more (the steps) for anything else."""
    if var in scan_args.inner_in_non_seqs or isinstance(var, Constant):
        return var.type.ndim
    return var.type.ndim + 1


def _only_client(fgraph: Any, var: Variable) -> Any:
    clients = fgraph.clients.get(var, [])
    if len(clients) != 1 or isinstance(clients[0][0], str):
        return None
    return clients[0][0]


def inner_sitsot_only_last_step_used(fgraph: Any, var: Variable, scan_args: ScanArgs) -> bool:
    """``var``, an inner sit-sot output, is read after the loop only at its last step:
    the outer output's one reader is ``[-1]`` (or ``[1:]``, what ``scan`` returns, whose
    one reader is ``[-1]``)."""
    idx = scan_args.inner_out_sit_sot.index(var)
    client = _only_client(fgraph, scan_args.outer_out_sit_sot[idx])
    if client is not None and _tail_slice(client, 1):
        client = _only_client(fgraph, client.outputs[0])
    return client is not None and _from_end(client) == 1


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
