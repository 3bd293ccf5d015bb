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

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scan.op import Scan
from opgraph.tensor.basic import AllocEmpty
from opgraph.tensor.indexing import INT, SliceSpec
from opgraph.tensor.subtensor import IncSubtensor, Subtensor

__all__ = ["initial_rows", "last_rows_needed", "ring_buffer", "scan_save_mem", "tap_buffer_of",
           "written_rows"]


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


def _last_rows_slice(node: Apply) -> int | None:
    """``c`` when ``node`` is ``x[-c:]`` (a constant negative start on axis 0), else None."""
    if not isinstance(node.op, Subtensor) or node.op.idx_spec != (SliceSpec(True),):
        return None
    c = _const_int(node.inputs[1])
    return -c if c is not None and c < 0 else None


# A read of the buffer to redirect: (reader node, c, kind), kind "row" for ``[-c]``,
# "raw" for ``[-c:]`` of the whole buffer, "steps" for ``[k:][-c:]`` (the steps only).
Read = tuple[Apply, int, str]


def _read_of(client: Any, slice_kind: str | None) -> Read | None:
    """``client`` as a read from the end of the buffer, or None."""
    if isinstance(client, str) or getattr(client, "op", None) is None:
        return None  # an output of the graph: the whole buffer is wanted
    c = _from_end(client)
    if c is not None:
        return (client, c, "row")
    c = _last_rows_slice(client) if slice_kind is not None else None
    return None if c is None else (client, c, slice_kind)


def last_rows_needed(fgraph: Any, buf: Variable, init_rows: int,
                     slices: bool = False) -> tuple[int, list[Read]] | None:
    """How many last rows the readers of ``buf`` need, and the reads to redirect; or None.

    A read is ``buf[-c]`` or ``buf[k:][-c]`` as ``scan`` builds it; with
    ``slices``, also ``buf[-c:]`` and ``buf[k:][-c:]``.
    """
    reads: list[Read] = []
    for client, _ in fgraph.clients.get(buf, []):
        if not isinstance(client, str) and getattr(client, "op", None) is not None and \
                _tail_slice(client, init_rows):
            for sub, _ in fgraph.clients.get(client.outputs[0], []):
                read = _read_of(sub, "steps" if slices else None)
                if read is None:
                    return None
                reads.append(read)
            continue
        read = _read_of(client, "raw" if slices else None)
        if read is None:
            return None
        reads.append(read)
    need = max((c for _, c, _ in reads), default=0)
    return (need, reads) if reads else None


def written_rows(buf: Variable, rows: int) -> Variable | None:
    """``init`` when ``buf`` is ``set_subtensor(AllocEmpty(...)[:rows], init)`` (the
    layout ``scan`` builds), else None."""
    node = buf.owner
    if node is not None and isinstance(node.op, IncSubtensor) and node.op.set_instead_of_inc \
            and node.op.idx_spec == (SliceSpec(stop=True),) and \
            _const_int(node.inputs[2]) == rows and node.inputs[0].owner is not None and \
            isinstance(node.inputs[0].owner.op, AllocEmpty) and \
            node.inputs[1].type.ndim == buf.type.ndim:
        return node.inputs[1]
    return None


def initial_rows(buf: Variable, rows: int) -> Variable:
    """The initial rows a Scan reads from its outer state input ``buf``."""
    init = written_rows(buf, rows)
    return buf[:rows] if init is None else init


def ring_buffer(buf: Variable, rows: int, keep: int, n_steps: Variable) -> Variable:
    """The outer state input for a Scan that keeps ``keep`` last rows: a buffer of the
    ring's length (the loop's history or fewer rows), the initial rows at its start."""
    length = pt.minimum(n_steps + rows, max(keep, rows + 1))
    return tap_buffer_of(initial_rows(buf, rows), rows, length)


def tap_buffer_of(init: Variable, rows: int, length: Variable) -> Variable:
    """``set_subtensor(AllocEmpty(length, ...)[:rows], init)``: scan's state layout."""
    rest = [init.shape[d] if n is None else n for d, n in enumerate(init.type.shape) if d > 0]
    empty = AllocEmpty(init.type.dtype)(length, *rest)
    return pt.set_subtensor(empty[:rows], init)


def _redirect(short: Variable, c: int, kind: str, n_steps: Variable) -> Variable:
    if kind == "row":
        return short[-c]
    if kind == "raw":
        return short[-c:]
    # the last c steps: the ring ends with the last min(c, n_steps) of them
    return short[short.shape[0] - pt.minimum(c, n_steps):]


@node_rewriter([Scan])
def scan_save_mem(fgraph: Any, node: Apply) -> Any:
    """Keep only the last rows of a recurrent output when only those are read."""
    op = node.op
    info = op.info
    if op.keep_last or info.n_mit_mot or not info.n_states:
        return False
    n_steps = node.inputs[0]
    first = op.outer_slices()["states"].start
    keep = [0] * info.n_states
    redirects: list[tuple[int, list]] = []
    for m, taps in enumerate(info.state_taps):
        if not fgraph.clients.get(node.outputs[m]):
            keep[m] = 1  # nobody reads the history: a ring of the rows the taps read
            continue
        # a while loop may stop early: the steps in the ring are not known then
        found = last_rows_needed(fgraph, node.outputs[m], -min(taps),
                                 slices=not info.as_while)
        if found is None:
            continue
        keep[m] = found[0]
        redirects.append((m, found[1]))
    if not any(keep):
        return False
    new_op = op.clone()
    new_op.keep_last = tuple(keep)
    new_op._key = None
    inputs = list(node.inputs)
    for m, (taps, kept) in enumerate(zip(info.state_taps, keep)):
        if kept:
            inputs[first + m] = ring_buffer(inputs[first + m], -min(taps), kept, n_steps)
    new_node = new_op.make_node(*inputs)
    replace: dict[Variable, Variable] = {}
    for m, o in enumerate(node.outputs):
        if m >= info.n_states or not keep[m]:
            replace[o] = new_node.outputs[m]
    for m, reads in redirects:
        short = new_node.outputs[m]
        for read, c, kind in reads:
            replace[read.outputs[0]] = _redirect(short, c, kind, n_steps)
    return replace
