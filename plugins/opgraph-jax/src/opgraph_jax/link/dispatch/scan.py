"""Scan as ``jax.lax.scan``; while-scans (``until``) run every step masked after the stop.

The carry holds, per recurrent output, the window of its last ``-min(taps)``
values and the shared outputs; each step emits the new recurrent values and
the nit-sot outputs.  The outer buffers are rebuilt as Scan returns them:
initial rows then one row per step, or the last rows only (``keep_last``,
set by the memory-saving rewrite).  The number of steps must be known when
JAX traces (it is whenever it comes from a shape).  Gradient scans with
mit-mot outputs are not supported (a clear error at compile time).
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

__all__: list[str] = []


@jax_funcify.register(Scan)
def _funcify_scan(op: Scan, node: Apply | None = None, **kwargs: Any) -> Callable:
    info = op.info
    if info.n_mit_mot:
        raise JAXUnsupportedOpError(f"{op}: scans with mit-mot outputs (from differentiating "
                                    "a scan) have no JAX translation yet")
    inner = funcify_graph(op.fgraph, **kwargs)
    sl = op.outer_slices()
    taps = info.state_taps
    n_st, n_nit, n_sh = info.n_states, info.n_nit_sot, info.n_shared_outs
    keep = op.keep_last or (0,) * n_st
    dtypes = [getattr(v.type, "dtype", None) for v in node.outputs]  # RNG states: None

    def scan(*inputs: Any) -> list[Any]:
        n = static_int(inputs[0], "number of steps", op)
        seqs = [s[:n] for s in inputs[sl["seqs"]]]
        inits = list(inputs[sl["states"]])
        windows = [jnp.asarray(init[: -min(t)], dtype=dtypes[m])
                   for m, (init, t) in enumerate(zip(inits, taps))]
        shared = list(inputs[sl["shared"]])
        non_seqs = list(inputs[sl["non_seqs"]])

        def step(carry: Any, xs: Any) -> Any:
            wins, sh, done = carry
            args = list(xs)
            for win, t in zip(wins, taps):
                k = win.shape[0]
                args += [win[k + tap] for tap in t]
            args += list(sh) + non_seqs
            res = inner(*args)
            new_states = [jnp.asarray(r).astype(w.dtype) for r, w in zip(res[:n_st], wins)]
            nits = list(res[n_st:n_st + n_nit])
            new_sh = [jnp.asarray(v) for v in res[n_st + n_nit:n_st + n_nit + n_sh]]
            if info.as_while:
                new_states = [jnp.where(done, w[-1], s) for w, s in zip(wins, new_states)]
                new_sh = [jnp.where(done, o, s) for o, s in zip(sh, new_sh)]
                stop = done | jnp.asarray(res[n_st + n_nit + n_sh]).astype(bool)
            else:
                stop = done
            new_wins = [jnp.concatenate([w[1:], s[None]]) for w, s in zip(wins, new_states)]
            return (new_wins, new_sh, stop), (new_states, nits, ~done)

        carry0 = (windows, [jnp.asarray(v) for v in shared], jnp.asarray(False))
        (_, final_sh, _), (ys, nit_ys, active) = jax.lax.scan(step, carry0, seqs, length=n)
        n_done = jnp.sum(active) if info.as_while else n
        outs = []
        for m, (init, t) in enumerate(zip(inits, taps)):
            k = -min(t)
            full = jnp.concatenate([jnp.asarray(init[:k], dtype=dtypes[m]), ys[m]])
            outs.append(_trim(full, k, n, n_done, keep[m], op))
        for q in range(n_nit):
            outs.append(_trim(nit_ys[q], 0, n, n_done, 0, op))
        outs += list(final_sh)
        return outs

    return scan


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
