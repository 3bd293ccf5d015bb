"""Recurrences beyond one cell for ``bench_scan_family`` (issue 33's held-out kinds).

Each is written once, PyTensor-style, and built for opgraph, PyTensor and JAX: JAX
gets ``jax_scan``, a shim with ``scan``'s signature (taps, ``go_backwards``) over
``lax.scan``, so all peers run the same arithmetic.  The weights are the three
inputs ``W``, ``U``, ``b`` of the family (gradient with respect to them), sliced
into per-layer or per-direction blocks *outside* the loop, so the step sees
separate weight matrices as a user's model does.

* ``stack2``: a 2-layer stacked tanh RNN (two states, the second reads the first).
* ``bidir``: a forward and a backward (``go_backwards``) tanh RNN, both losses summed.
* ``mask``: a tanh RNN whose loss is the mean over every state times a 0/1 mask
  sequence (an extra input).
* ``taps2``: two sequences (``x`` and ``y``, an extra input) and taps ``[-1, -2]``
  on the state.
* ``twice``: the recurrent weight used twice per step (``tanh(W tanh(W h + U x + b) + b)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

KINDS = ("stack2", "bidir", "mask", "taps2", "twice")
GATES = {"stack2": 2, "bidir": 2, "mask": 1, "taps2": 2, "twice": 1}


def extra_data(kind: str, steps: int, hidden: int, dtype: str) -> list[np.ndarray]:
    """The inputs after ``x, W, U, b, h0`` (a mask, a second sequence), and h0's shape."""
    rng = np.random.default_rng(2)
    if kind == "mask":
        mask = (rng.random(steps) < 0.7).astype(dtype)
        return [mask]
    if kind == "taps2":
        return [rng.normal(size=(steps, hidden)).astype(dtype)]
    return []


def h0_shape(kind: str, hidden: int) -> tuple[int, ...]:
    return (2, hidden) if kind == "taps2" else (hidden,)


def _tanh_rnn(m: Any, scan: Any, seq: Any, h0: Any, w: Any, u: Any, b: Any, inside: bool,
              backwards: bool = False) -> Any:
    def step(xt, h, w_, u_, b_):
        proj = (u_ @ xt + b_) if inside else xt
        return m.tanh(w_ @ h + proj)

    return scan(step, sequences=[seq], outputs_info=[h0], non_sequences=[w, u, b],
                go_backwards=backwards, return_updates=False)


def _states_loss(hs: Any, last: bool) -> Any:
    return hs[-1].sum() if last else (hs * hs).sum() * 0.5


def loss(kind: str, m: Any, scan: Any, ins: list, inside: bool, last: bool, n: int) -> Any:
    """The scalar loss of recurrence ``kind`` over ``ins = [x, W, U, b, h0, *extra]``.

    ``m`` is the tensor module (``opgraph.tensor``, ``pytensor.tensor`` or ``jnp``),
    ``scan`` the library's scan (or ``jax_scan``), ``n`` the hidden size.
    """
    x, w, u, b, h0 = ins[:5]
    if kind == "stack2":
        w1, w2, u1, u2, b1, b2 = w[:n], w[n:], u[:n], u[n:], b[:n], b[n:]
        seq = x if inside else x @ u1.T + b1

        def step(xt, h1, h2, w1_, w2_, u1_, u2_, b1_, b2_):
            h1n = m.tanh(w1_ @ h1 + ((u1_ @ xt + b1_) if inside else xt))
            return [h1n, m.tanh(w2_ @ h2 + u2_ @ h1n + b2_)]

        outs = scan(step, sequences=[seq], outputs_info=[h0, h0],
                    non_sequences=[w1, w2, u1, u2, b1, b2], return_updates=False)
        return _states_loss(outs[1], last)
    if kind == "bidir":
        parts = []
        for k, back in ((0, False), (1, True)):
            wk, uk, bk = w[k * n:(k + 1) * n], u[k * n:(k + 1) * n], b[k * n:(k + 1) * n]
            seq = x if inside else x @ uk.T + bk
            parts.append(_states_loss(_tanh_rnn(m, scan, seq, h0, wk, uk, bk, inside, back),
                                      last))
        return parts[0] + parts[1]
    if kind == "mask":
        seq = x if inside else x @ u.T + b
        hs = _tanh_rnn(m, scan, seq, h0, w, u, b, inside)
        return (hs * ins[5][:, None]).mean()
    if kind == "taps2":
        y = ins[5]
        w1, w2, u1, u2, bb = w[:n], w[n:], u[:n], u[n:], b[:n] + b[n:]
        seqs = [x, y] if inside else [x @ u1.T + y @ u2.T + bb]

        def step(*a):
            if inside:
                xt, yt, hm1, hm2, w1_, w2_, u1_, u2_, bb_ = a
                proj = u1_ @ xt + u2_ @ yt + bb_
            else:
                proj, hm1, hm2, w1_, w2_ = a
            return m.tanh(w1_ @ hm1 + w2_ @ hm2 + proj)

        nonseq = [w1, w2, u1, u2, bb] if inside else [w1, w2]
        hs = scan(step, sequences=seqs, outputs_info=[{"initial": h0, "taps": [-1, -2]}],
                  non_sequences=nonseq, return_updates=False)
        return _states_loss(hs, last)
    if kind == "twice":
        seq = x if inside else x @ u.T + b

        def step(xt, h, w_, u_, b_):
            a = m.tanh(w_ @ h + ((u_ @ xt + b_) if inside else xt))
            return m.tanh(w_ @ a + b_)

        hs = scan(step, sequences=[seq], outputs_info=[h0], non_sequences=[w, u, b],
                  return_updates=False)
        return _states_loss(hs, last)
    raise ValueError(f"recurrence kind must be one of {KINDS}; got {kind!r}")


def jax_scan(step: Any, sequences: list, outputs_info: list, non_sequences: list,
             go_backwards: bool = False, return_updates: bool = False) -> Any:
    """``scan``'s signature over ``jax.lax.scan`` (taps as a sliding window of states).

    Outputs come in the order the steps ran, as ``scan`` returns them with
    ``go_backwards``.
    """
    import jax

    taps, windows = [], []
    for o in outputs_info:
        if isinstance(o, dict):
            depth = -min(o["taps"])
            taps.append(o["taps"])
            windows.append(tuple(o["initial"][k] for k in range(depth)))
        else:
            taps.append([-1])
            windows.append((o,))

    def body(carry: Any, xs: Any) -> Any:
        args = list(xs)
        for tp, win in zip(taps, carry):
            args += [win[len(win) + t] for t in tp]
        outs = step(*args, *non_sequences)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        return tuple((*win[1:], o) for win, o in zip(carry, outs)), tuple(outs)

    _, ys = jax.lax.scan(body, tuple(windows), tuple(sequences), reverse=go_backwards)
    ys = [y[::-1] for y in ys] if go_backwards else list(ys)
    return ys[0] if len(ys) == 1 else ys
