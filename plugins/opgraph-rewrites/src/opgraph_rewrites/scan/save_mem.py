"""Keep only the rows of a recurrent output that the graph reads.

``scan`` returns the whole history of a recurrent output; a graph that reads
only its last row (``h[-1]``, the usual case) does not need the history.
When every outer reader of a state's buffer takes rows counted from the end
with a constant index (``buf[-c]``, or ``buf[k:][-c]`` as ``scan`` builds
it), the Scan keeps a ring of the last rows only (``Scan.keep_last``) and the
readers index that short buffer instead.  A state whose buffer nobody
reads (a backward loop's cotangent carried only from step to step) keeps
only the rows its taps read.  The values are the same; the memory is a few
rows instead of ``n_steps``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scan.op import Scan
from opgraph.tensor.indexing import INT, SliceSpec
from opgraph.tensor.subtensor import Subtensor

__all__ = ["last_rows_needed", "scan_save_mem"]


def _const_int(v: Variable) -> int | None:
    if isinstance(v, Constant):
        data = np.asarray(v.data)
        if data.ndim == 0 and data.dtype.kind in "iu":
            return int(data)
    return None


def _from_end(node: Apply) -> int | None:
    """``c`` when ``node`` is ``x[-c]`` (a constant negative index on axis 0), else None."""
    if not isinstance(node.op, Subtensor) or not node.op.idx_spec or \
            node.op.idx_spec[0] != INT:
        return None
    c = _const_int(node.inputs[1])
    return -c if c is not None and c < 0 else None


def _tail_slice(node: Apply, start: int) -> bool:
    """Whether ``node`` is ``x[start:]`` (a constant start, nothing else)."""
    if not isinstance(node.op, Subtensor) or node.op.idx_spec != (SliceSpec(True),):
        return False
    return _const_int(node.inputs[1]) == start


def last_rows_needed(fgraph: Any, buf: Variable, init_rows: int) -> tuple[int, list] | None:
    """How many last rows the readers of ``buf`` need, and the reads to redirect; or None."""
    need = 0
    reads: list[tuple[Apply, int]] = []
    for client, _ in fgraph.clients.get(buf, []):
        if isinstance(client, str) or getattr(client, "op", None) is None:
            return None  # an output of the graph: the whole buffer is wanted
        c = _from_end(client)
        if c is not None:
            need = max(need, c)
            reads.append((client, c))
            continue
        if not _tail_slice(client, init_rows):
            return None
        for sub, _ in fgraph.clients.get(client.outputs[0], []):
            c = _from_end(sub) if not isinstance(sub, str) else None
            if c is None:
                return None
            need = max(need, c)
            reads.append((sub, c))
    return (need, reads) if reads else None


@node_rewriter([Scan])
def scan_save_mem(fgraph: Any, node: Apply) -> Any:
    """Keep only the last rows of a recurrent output when only those are read."""
    op = node.op
    info = op.info
    if op.keep_last or info.n_mit_mot or not info.n_states:
        return False
    keep = [0] * info.n_states
    redirects: list[tuple[int, list]] = []
    for m, taps in enumerate(info.state_taps):
        if not fgraph.clients.get(node.outputs[m]):
            keep[m] = 1  # nobody reads the history: a ring of the rows the taps read
            continue
        found = last_rows_needed(fgraph, node.outputs[m], -min(taps))
        if found is None:
            continue
        keep[m] = found[0]
        redirects.append((m, found[1]))
    if not any(keep):
        return False
    new_op = op.clone()
    new_op.keep_last = tuple(keep)
    new_op._key = None
    new_node = new_op.make_node(*node.inputs)
    replace: dict[Variable, Variable] = {}
    for m, o in enumerate(node.outputs):
        if m >= info.n_states or not keep[m]:
            replace[o] = new_node.outputs[m]
    for m, reads in redirects:
        short = new_node.outputs[m]
        for read, c in reads:
            replace[read.outputs[0]] = short[-c]
    return replace
