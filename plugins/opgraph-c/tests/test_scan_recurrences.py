"""Recurrences users write beyond one cell, compiled to C loops (issue 33's held-out kinds).

A 2-layer stacked RNN, a bidirectional pair (``go_backwards``), a masked mean
loss, two sequences with taps ``[-1, -2]`` on the state, and a weight used twice
per step: each loss and its gradient with respect to every weight, compiled with
FAST_RUN's rewrites and the C linker, equals the unrewritten graph on the Python
linker, the value equals a NumPy loop, and every loop runs in C (a loop left to
Python is what makes a recurrence slow).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from opgraph_c.codegen.nodec import EmitContext
from opgraph_c.codegen.registry import c_for_node
from opgraph_c.codegen.scan_c import emit_scan

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import Mode
from opgraph.scan.op import Scan

RNG = np.random.default_rng(33)
N, T = 5, 9
REFERENCE = Mode(linker="py", optimizer=None)


def _rnn(seq, h0, w, u, b, backwards=False):
    def step(xt, h, w_, u_, b_):
        return pt.tanh(pt.dot(w_, h) + pt.dot(u_, xt) + b_)
    return opgraph.scan(step, sequences=[seq], outputs_info=[h0], non_sequences=[w, u, b],
                        go_backwards=backwards, return_updates=False)


def stacked(x, w, u, b, h0, extra):
    w1, w2, u1, u2, b1, b2 = w[:N], w[N:], u[:N], u[N:], b[:N], b[N:]

    def step(xt, h1, h2, w1_, w2_, u1_, u2_, b1_, b2_):
        h1n = pt.tanh(pt.dot(w1_, h1) + pt.dot(u1_, xt) + b1_)
        return [h1n, pt.tanh(pt.dot(w2_, h2) + pt.dot(u2_, h1n) + b2_)]
    outs = opgraph.scan(step, sequences=[x], outputs_info=[h0, h0],
                        non_sequences=[w1, w2, u1, u2, b1, b2], return_updates=False)
    return (outs[1] ** 2).sum()


def bidirectional(x, w, u, b, h0, extra):
    fwd = _rnn(x, h0, w[:N], u[:N], b[:N])
    bwd = _rnn(x, h0, w[N:], u[N:], b[N:], backwards=True)
    return fwd[-1].sum() + (bwd ** 2).sum()


def masked(x, w, u, b, h0, extra):
    hs = _rnn(x, h0, w[:N], u[:N], b[:N])
    return (hs * extra[:, 0][:, None]).mean()


def two_taps(x, w, u, b, h0, extra):
    def step(xt, yt, hm1, hm2, w1, w2, u1, u2, b_):
        return pt.tanh(pt.dot(w1, hm1) + pt.dot(w2, hm2) + pt.dot(u1, xt) + pt.dot(u2, yt) + b_)
    hs = opgraph.scan(step, sequences=[x, extra],
                      outputs_info=[{"initial": pt.stack([h0, -h0]), "taps": [-1, -2]}],
                      non_sequences=[w[:N], w[N:], u[:N], u[N:], b[:N] + b[N:]],
                      return_updates=False)
    return hs[-1].sum() + (hs ** 2).sum()


def weight_twice(x, w, u, b, h0, extra):
    def step(xt, h, w_, u_, b_):
        a = pt.tanh(pt.dot(w_, h) + pt.dot(u_, xt) + b_)
        return pt.tanh(pt.dot(w_, a) + b_)
    hs = opgraph.scan(step, sequences=[x], outputs_info=[h0],
                      non_sequences=[w[:N], u[:N], b[:N]], return_updates=False)
    return hs[-1].sum()


def _np_rnn(xs, h, w, u, b):
    out = []
    for xt in xs:
        h = np.tanh(w @ h + u @ xt + b)
        out.append(h)
    return np.array(out)


def numpy_loss(kind, x, w, u, b, h0, extra):
    """The same losses written as NumPy loops."""
    w1, w2, u1, u2, b1, b2 = w[:N], w[N:], u[:N], u[N:], b[:N], b[N:]
    if kind is stacked:
        h1s = _np_rnn(x, h0, w1, u1, b1)
        h2, total = h0, 0.0
        for h1 in h1s:
            h2 = np.tanh(w2 @ h2 + u2 @ h1 + b2)
            total += (h2 ** 2).sum()
        return total
    if kind is bidirectional:
        return _np_rnn(x, h0, w1, u1, b1)[-1].sum() + (_np_rnn(x[::-1], h0, w2, u2, b2) ** 2).sum()
    if kind is masked:
        return (_np_rnn(x, h0, w1, u1, b1) * extra[:, :1]).mean()
    if kind is two_taps:
        hm2, hm1, hs = h0, -h0, []
        for xt, yt in zip(x, extra):
            h = np.tanh(w1 @ hm1 + w2 @ hm2 + u1 @ xt + u2 @ yt + b1 + b2)
            hm2, hm1 = hm1, h
            hs.append(h)
        hs = np.array(hs)
        return hs[-1].sum() + (hs ** 2).sum()
    h = h0
    for xt in x:
        a = np.tanh(w1 @ h + u1 @ xt + b1)
        h = np.tanh(w1 @ a + b1)
    return h.sum()


def c_loops(fn) -> list[bool]:
    """For each Scan of ``fn``: whether its loop has C."""
    out = []
    for k, node in enumerate(fn.maker.fgraph.toposort()):
        if isinstance(node.op, Scan):
            ctx = EmitContext(openmp=False, emit_node=c_for_node)
            ctx.node_index = k
            out.append(emit_scan(node, ctx) is not None)
    return out


@pytest.mark.parametrize("kind", [stacked, bidirectional, masked, two_taps, weight_twice],
                         ids=lambda k: k.__name__)
def test_recurrence_value_and_gradient_in_c_match_the_python_linker(kind):
    x, w, u, b = pt.matrix("x"), pt.matrix("W"), pt.matrix("U"), pt.vector("b")
    h0, extra = pt.vector("h0"), pt.matrix("extra")
    loss = kind(x, w, u, b, h0, extra)
    outs = [loss, *opgraph.grad(loss, [w, u, b, h0])]
    ins = [x, w, u, b, h0, extra]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fc = opgraph.function(ins, outs, mode="C", on_unused_input="ignore")
        fp = opgraph.function(ins, outs, mode=REFERENCE, on_unused_input="ignore")
    vals = [RNG.normal(size=(T, N)), RNG.normal(size=(2 * N, N)) / 2,
            RNG.normal(size=(2 * N, N)) / 2, RNG.normal(size=2 * N) / 4, RNG.normal(size=N),
            (RNG.random(size=(T, N)) < 0.6).astype(float)]
    loops = c_loops(fc)
    assert loops and all(loops), f"a loop of {kind.__name__} runs in Python: {loops}"
    got, want = fc(*vals), fp(*vals)
    np.testing.assert_allclose(got[0], numpy_loss(kind, *vals), rtol=1e-12, atol=1e-12)
    for g, r in zip(got, want):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)
    assert np.abs(got[1]).max() > 0 and np.abs(got[2]).max() > 0


@pytest.mark.parametrize("order", ["C", "F"])
def test_pinned_weights_follow_in_place_changes_between_calls(order):
    """A weight matrix of 64 KiB or more read by a loop of 16 steps or more is read from
    a kept huge-page copy, rewritten only when its bytes changed: changes in place
    (first entry, last entry, a nan) between calls are all seen."""
    n, steps = 96, 20
    x, w, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    hs = _rnn(x, h0, w, pt.eye(n), pt.zeros(n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fc = opgraph.function([x, w, h0], hs, mode="C")
        fp = opgraph.function([x, w, h0], hs, mode=REFERENCE)
    assert all(c_loops(fc))
    xv, hv = RNG.normal(size=(steps, n)), RNG.normal(size=n)
    wv = np.asarray(RNG.normal(size=(n, n)) / np.sqrt(n), order=order)
    for change in (None, (0, 0), (n - 1, n - 1), (n // 2, 3), "nan", None):
        if change == "nan":
            wv[5, 7] = np.nan
        elif change is not None:
            wv[change] += 0.5
        got = fc(xv, wv, hv)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(fp(xv, wv, hv)))
        np.testing.assert_allclose(got, fp(xv, wv, hv), rtol=1e-12, atol=1e-12)
    assert np.isnan(got).any()


def test_a_matrix_over_a_mebibyte_read_in_alternate_directions_gives_the_same_rows():
    """og_small_gemv reads a matrix over 1 MiB in reverse row-block order on every other
    call: each call's result equals the Python linker's, and consecutive calls agree
    to the bit (odd and even numbers of steps, so both directions start a call)."""
    rows, k = 4 * 130, 320  # 1.27 MiB, a last block of 8 rows and no partial one
    x, w, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")

    def step(xt, h, w_):
        return pt.tanh(pt.dot(w_, h)[:k] + pt.dot(w_, h)[rows - k:] + xt)
    hs = opgraph.scan(step, sequences=[x], outputs_info=[h0], non_sequences=[w],
                      return_updates=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fc = opgraph.function([x, w, h0], hs, mode="C")
        fp = opgraph.function([x, w, h0], hs, mode=REFERENCE)
    assert all(c_loops(fc))
    wv, hv = RNG.normal(size=(rows, k)) / np.sqrt(k), RNG.normal(size=k)
    for steps in (3, 4, 3):
        xv = RNG.normal(size=(steps, k))
        first, second = fc(xv, wv, hv).copy(), fc(xv, wv, hv)
        np.testing.assert_array_equal(first, second)
        np.testing.assert_allclose(first, fp(xv, wv, hv), rtol=1e-12, atol=1e-12)
