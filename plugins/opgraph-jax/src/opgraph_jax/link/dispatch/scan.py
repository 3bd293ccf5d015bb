"""Scan as ``jax.lax.scan``; while-scans (``until``) run every step masked after the stop.

The carry holds, per recurrent output, the window of its last ``-min(taps)``
values and the shared outputs; each step emits the new recurrent values and
the nit-sot outputs.  The outer buffers are rebuilt as Scan returns them:
initial rows then one row per step, or the last rows only (``keep_last``,
set by the memory-saving rewrite).  The number of steps must be known when
JAX traces (it is whenever it comes from a shape).  Mit-mot buffers (read
and written at rows ``i + tap``, as hand-built gradient loops use them) ride
in the carry whole and are updated in place with ``dynamic_update_slice``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from opgraph.graph.basic import Apply
from opgraph.scan.op import Scan
from opgraph_jax.link.dispatch.basic import (
    JAXUnsupportedOpError,
    funcify_graph,
    is_concrete,
    jax_funcify,
    static_int,
)

__all__ = ["jax_funcify_Scan"]


@jax_funcify.register(Scan)
def _funcify_scan(op: Scan, node: Apply | None = None, **kwargs: Any) -> Callable:
    info = op.info
    inner = funcify_graph(op.fgraph, **kwargs)
    sl = op.outer_slices()
    taps = info.state_taps
    n_st, n_nit, n_sh = info.n_states, info.n_nit_sot, info.n_shared_outs
    keep = op.keep_last or (0,) * n_st
    n_mm, n_mm_out = info.n_mit_mot, info.n_mit_mot_inner_outputs
    dtypes = [getattr(v.type, "dtype", None) for v in node.outputs[n_mm:]]  # RNG: None
    mm_dtypes = [v.type.dtype for v in node.outputs[:n_mm]]

    def scan(*inputs: Any) -> list[Any]:
        n = static_int(inputs[0], "number of steps", op)
        seqs = [s[:n] for s in inputs[sl["seqs"]]]
        inits = list(inputs[sl["states"]])
        windows = [jnp.asarray(init[: -min(t)], dtype=dtypes[m])
                   for m, (init, t) in enumerate(zip(inits, taps))]
        shared = list(inputs[sl["shared"]])
        non_seqs = list(inputs[sl["non_seqs"]])
        mm0 = [_mit_mot_buffer(b, d, ins, outs, n, op) for b, d, ins, outs in zip(
            inputs[sl["mit_mot"]], mm_dtypes, info.mit_mot_in_slices, info.mit_mot_out_slices)]

        def step(carry: Any, xs: Any) -> Any:
            wins, sh, done, mms, i = carry
            args = list(xs)
            args += _mit_mot_reads(mms, info.mit_mot_in_slices, i)
            for win, t in zip(wins, taps):
                args += [win[win.shape[0] + tap] for tap in t]
            args += list(sh) + non_seqs
            res = inner(*args)
            mms = _mit_mot_writes(mms, info.mit_mot_out_slices, res[:n_mm_out], i, done)
            res = res[n_mm_out:]
            new_states = [jnp.asarray(r).astype(w.dtype) for r, w in zip(res[:n_st], wins)]
            nits = list(res[n_st:n_st + n_nit])
            new_sh = [jnp.asarray(v) for v in res[n_st + n_nit:n_st + n_nit + n_sh]]
            if info.as_while:
                new_states = [jnp.where(done, w[-1], s) for w, s in zip(wins, new_states)]
                new_sh = [jnp.where(done, o, s) for o, s in zip(sh, new_sh)]
                stop = done | jnp.asarray(res[n_st + n_nit + n_sh]).astype(bool)
                active = ~done
            else:
                stop = active = None  # a fixed-length loop carries no stop flag
            new_wins = [_slide(w, s) for w, s in zip(wins, new_states)]
            nxt = None if i is None else i + 1  # the step index is read by mit-mot rows only
            return (new_wins, new_sh, stop, mms, nxt), (new_states, nits, active)

        carry0 = (windows, [jnp.asarray(v) for v in shared],
                  jnp.asarray(False) if info.as_while else None, mm0,
                  jnp.asarray(0, dtype="int64") if n_mm else None)
        (_, final_sh, _, final_mm, _), (ys, nit_ys, active) = jax.lax.scan(
            step, carry0, seqs, length=n)
        n_done = jnp.sum(active) if info.as_while else n
        outs = list(final_mm)
        for m, (init, t) in enumerate(zip(inits, taps)):
            k = -min(t)
            full = jnp.concatenate([jnp.asarray(init[:k], dtype=dtypes[m]), ys[m]])
            outs.append(_trim(full, k, n, n_done, keep[m], op))
        for q in range(n_nit):
            outs.append(_trim(nit_ys[q], 0, n, n_done, 0, op))
        outs += list(final_sh)
        return outs

    return scan


def _slide(win: Any, new: Any) -> Any:
    """The window of a state's last values moved on by one step."""
    if win.shape[0] == 1:
        return new[None]
    return jnp.concatenate([win[1:], new[None]])


def _mit_mot_buffer(buf: Any, dtype: str, ins: tuple, outs: tuple, n: int, op: Scan) -> Any:
    """The mit-mot buffer as a JAX array, checked to hold every row the loop touches."""
    buf = jnp.asarray(buf, dtype=dtype)
    need = n + max((*ins, *outs, 0))
    if buf.shape[0] < need:
        raise ValueError(f"{op}: a mit-mot buffer needs {need} rows for n_steps={n}; "
                         f"got shape {buf.shape}")
    return buf


def _mit_mot_reads(mms: list[Any], in_slices: tuple, i: Any) -> list[Any]:
    """Row ``i + tap`` of each mit-mot buffer, for each of its input taps."""
    return [jax.lax.dynamic_index_in_dim(buf, i + t, axis=0, keepdims=False)
            for buf, taps in zip(mms, in_slices) for t in taps]


def _mit_mot_writes(mms: list[Any], out_slices: tuple, values: Any, i: Any,
                    done: Any) -> list[Any]:
    """Each buffer with row ``i + tap`` replaced by the step's value (unchanged once done)."""
    new, pos = [], 0
    for buf, taps in zip(mms, out_slices):
        for t in taps:
            row = jnp.asarray(values[pos]).astype(buf.dtype)
            if done is not None:  # a while-scan leaves the rows alone after its stop
                old = jax.lax.dynamic_index_in_dim(buf, i + t, axis=0, keepdims=False)
                row = jnp.where(done, old, row)
            buf = jax.lax.dynamic_update_index_in_dim(buf, row, i + t, axis=0)
            pos += 1
        new.append(buf)
    return new


def _trim(full: Any, k: int, n: int, n_done: Any, keep: int, op: Scan) -> Any:
    """The buffer Scan returns: every row up to the last step, or the last ``keep`` rows."""
    rows = k + n if not keep else min(k + n, max(keep, k + 1))
    if rows >= k + n:
        if isinstance(n_done, int) or is_concrete(n_done):
            return full[: k + int(n_done)]
        raise JAXUnsupportedOpError(
            f"{op}: a while-scan's full history has a length known only at run time, which "
            "JAX cannot return; use only its last values (the memory-saving rewrite does)"
        )
    start = jnp.maximum(k + n_done - rows, 0)
    return jax.lax.dynamic_slice_in_dim(full, start, rows, axis=0)


jax_funcify_Scan = _funcify_scan  # PyTensor's name for this translation
