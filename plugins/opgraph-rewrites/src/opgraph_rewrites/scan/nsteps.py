"""``scan_reduce_nsteps``: run only the steps whose results the graph reads.

When every reader of a loop's per-step results takes a row (``ys[4]``,
``ys[idx]``, ``ys[-10]``: row ``n - 10``) or the first rows up to a constant
(``ys[:2]``, ``ys[:-50]``; a symbolic bound keeps every step, as in
PyTensor), the steps past the last row read are never needed: the loop runs
``n' = min(n, rows read)`` steps and the readers index its shorter results
(a negative index turned into the row it meant, so it still fails when it
is out of range).  A loop
whose final values (untraced states), stop condition or whole history is
read keeps its length.  The state buffers are rebuilt with ``n' + k`` rows,
as ``scan`` builds them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scan.op import Scan
from opgraph.tensor.indexing import INT, SliceSpec
from opgraph.tensor.subtensor import Subtensor
from opgraph_rewrites.scan.save_mem import tap_buffer_of, written_rows
from opgraph_rewrites.utils import keep_type

__all__ = ["scan_reduce_nsteps"]

_STOP_ONLY = (SliceSpec(stop=True),)


def _const(v: Variable) -> int | None:
    if isinstance(v, Constant):
        data = np.asarray(v.data)
        if data.ndim == 0 and data.dtype.kind in "iu":
            return int(data)
    return None


def _row(i: Variable, n: Variable) -> Variable:
    """The row ``v[i]`` of an ``n``-row ``v`` reads (negative ``i`` counts from the end)."""
    return pt.switch(pt.lt(i, 0), i + n, i)


class _Read:
    """One reader of the per-step results: what rows it needs and how to redirect it."""

    def __init__(self, node: Apply, kind: str, index: Variable) -> None:
        self.node, self.kind, self.index = node, kind, index

    def need(self, n: Variable) -> Variable:
        if self.kind == "row":
            return _row(self.index, n) + 1
        return pt.maximum(_row(self.index, n), 0)  # v[:stop]

    def redirect(self, short: Variable, n: Variable, n_new: Variable) -> Variable:
        i, n_c, new_c = _const(self.index), _const(n), _const(n_new)
        if self.kind == "row" and i is not None and i < 0 and n_c is not None and \
                new_c is not None:
            # still counted from the end (scan_save_mem may keep a ring of those rows)
            return short[i + n_c - new_c] if i + n_c < new_c else short[i]
        row = _row(self.index, n)
        if self.kind == "row":
            # a row before the first stays out of range (an IndexError, as before)
            return short[pt.switch(pt.lt(row, 0), row - n_new, row)]
        return short[:pt.maximum(row, 0)]


def _read_of(client: Any) -> _Read | None:
    """``client`` as a read of a row or of the first rows, or None."""
    if isinstance(client, str) or getattr(client, "op", None) is None or \
            not isinstance(client.op, Subtensor):
        return None
    spec = client.op.idx_spec
    if not spec or spec[0] not in (INT, SliceSpec(stop=True)) or \
            (spec[0] != INT and len(spec) > 1):
        return None
    index = client.inputs[1]  # a negative one counts from the end: its row is n + i
    if index.type.ndim != 0 or index.type.dtype[:3] not in ("int", "uin"):
        return None
    if spec[0] != INT and _const(index) is None:
        return None  # as in PyTensor, a symbolic slice bound keeps every step
    return _Read(client, "row" if spec[0] == INT else "head", index)


def _step_reads(fgraph: Any, node: Apply, n: Variable) -> list[tuple[int, int, _Read]] | None:
    """Every read of the per-step results, as ``(output, rows skipped, read)``; None when
    one needs the whole loop."""
    info = node.op.info
    reads: list[tuple[int, int, _Read]] = []
    n_st, n_nit = info.n_states, info.n_nit_sot
    for j, out in enumerate(node.outputs):
        clients = fgraph.clients.get(out, [])
        if j >= n_st + n_nit:
            if clients:
                return None  # a final value (untraced state): every step is needed
            continue
        k = -min(info.state_taps[j]) if j < n_st else 0
        for client, _ in clients:
            if j < n_st:  # a state's history is read through buf[k:]
                if isinstance(client, str) or client.op is None or \
                        not isinstance(client.op, Subtensor) or \
                        client.op.idx_spec != (SliceSpec(True),) or \
                        _const(client.inputs[1]) != k:
                    return None
                subs = fgraph.clients.get(client.outputs[0], [])
            else:
                subs = [(client, 0)]
            for sub, _ in subs:
                read = _read_of(sub)
                if read is None:
                    return None
                reads.append((j, k, read))
    return reads


def _new_length(reads: list[tuple[int, int, _Read]], n: Variable) -> Variable:
    consts = [_const(r.index) for _, _, r in reads]
    n_c = _const(n)
    if n_c is not None and all(c is not None for c in consts):
        need = 0
        for (_, _, r), c in zip(reads, consts):
            row = c + n_c if c < 0 else c
            need = max(need, row + 1 if r.kind == "row" else max(row, 0))
        return pt.constant(np.int64(min(n_c, need)))
    need = reads[0][2].need(n)
    for _, _, r in reads[1:]:
        need = pt.maximum(need, r.need(n))
    return pt.cast(pt.minimum(n, pt.maximum(need, 0)), "int64")


@node_rewriter([Scan])
def scan_reduce_nsteps(fgraph: Any, node: Apply) -> Any:
    """Run only the steps whose results are read (see the module doc)."""
    op = node.op
    info = op.info
    if info.as_while or info.n_mit_mot or op.keep_last or \
            not info.n_states + info.n_nit_sot:
        return False
    n = node.inputs[0]
    reads = _step_reads(fgraph, node, n)
    if not reads:
        return False
    if _const(n) is None and all(r.kind == "row" and (_const(r.index) or 0) < 0
                                 for _, _, r in reads):
        # rows counted from the end of a loop of unknown length need nearly every step;
        # scan_save_mem keeps a ring of them instead
        return False
    n_new = _new_length(reads, n)
    if _const(n_new) is not None and _const(n_new) == _const(n):
        return False
    sl = op.outer_slices()
    inputs = list(node.inputs)
    inputs[0] = n_new
    for m, taps in enumerate(info.state_taps):
        k = -min(taps)
        init = written_rows(inputs[sl["states"].start + m], k)
        if init is not None:  # scan's layout: a buffer for the (fewer) steps
            inputs[sl["states"].start + m] = tap_buffer_of(init, k, n_new + k)
    for q in range(sl["nit_lens"].start, sl["nit_lens"].stop):
        inputs[q] = n_new
    new_node = op.make_node(*inputs)
    replace: dict[Variable, Variable] = {}
    by_out: dict[int, Variable] = {}
    for j, k, read in reads:
        if j not in by_out:
            out = new_node.outputs[j]
            by_out[j] = out[k:] if j < info.n_states else out
        old = read.node.outputs[0]
        new = keep_type(old, read.redirect(by_out[j], n, n_new))
        if new is None:
            return False
        replace[old] = new
    return replace
