"""``scan_sit_sot_to_untraced``: a state whose history nobody reads carries only its value.

A sit-sot output read only as its last row (``ys[-1]``, ``ys[1:][-1]``) or
not at all needs no buffer: as an untraced state the loop passes the value
from step to step and returns the final one.  PyTensor runs this for the
backends that cannot write into a preallocated ring; opgraph's backends all
keep a ring (``scan_save_mem``), so here it is opt-in, as in PyTensor's
default C mode: ``mode.including("scan_sit_sot_to_untraced")``.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs
from opgraph_rewrites.scan.save_mem import initial_rows, last_rows_needed
from opgraph_rewrites.utils import keep_type

__all__ = ["scan_sit_sot_to_untraced"]


def _last_only(fgraph: Any, out: Variable) -> list | None:
    """The reads of ``out[-1]`` when they are all its readers (empty: no reader), or None."""
    if not fgraph.clients.get(out):
        return []
    found = last_rows_needed(fgraph, out, 1)
    if found is None or found[0] != 1:
        return None
    return [read for read, _c, _kind in found[1]]


@node_rewriter([Scan])
def scan_sit_sot_to_untraced(fgraph: Any, node: Apply) -> Any:
    """Turn the sit-sot outputs read only as their last value into untraced states."""
    op = node.op
    info = op.info
    if info.n_mit_mot or not info.n_sit_sot:
        return False
    args = ScanArgs.from_node(node)
    moved: list[tuple[int, list]] = []
    for s, out in enumerate(args.outer_out_sit_sot):
        reads = _last_only(fgraph, out)
        if reads is not None:
            moved.append((s, reads))
    if not moved:
        return False
    keep = list(op.keep_last) if op.keep_last else []
    for s, _reads in reversed(moved):
        inner_in, inner_out = args.inner_in_sit_sot.pop(s), args.inner_out_sit_sot.pop(s)
        buf, _old = args.outer_in_sit_sot.pop(s), args.outer_out_sit_sot.pop(s)
        args.sit_sot_in_slices.pop(s)
        if keep:
            keep.pop(info.n_mit_sot + s)
        init = inner_in.type.filter_variable(initial_rows(buf, 1)[0], allow_convert=True)
        args.inner_in_shared.insert(0, inner_in)
        args.inner_out_shared.insert(0, inner_out)
        args.outer_in_shared.insert(0, init)
    new_op = Scan(args.inner_inputs, args.inner_outputs, args.info, **args.other_info,
                  keep_last=keep or None)
    new_outs = new_op.make_node(*args.outer_inputs).outputs
    n_states = len(args.outer_out_mit_sot) + len(args.outer_out_sit_sot)
    first_untraced = n_states + len(args.outer_out_nit_sot)
    old_kept = [o for m, o in enumerate(node.outputs[:info.n_states])
                if m - info.n_mit_sot not in {s for s, _ in moved}]
    replace: dict[Variable, Variable] = dict(zip(old_kept, new_outs[:n_states]))
    replace.update(zip(node.outputs[info.n_states:info.n_states + info.n_nit_sot],
                       new_outs[n_states:first_untraced]))
    replace.update(zip(node.outputs[info.n_states + info.n_nit_sot:],
                       new_outs[first_untraced + len(moved):]))
    for pos, (_s, reads) in enumerate(moved):
        for read in reads:
            new = keep_type(read.outputs[0], new_outs[first_untraced + pos])
            if new is None:
                return False
            replace[read.outputs[0]] = new
    return {old: new for old, new in replace.items() if fgraph.clients.get(old)}
