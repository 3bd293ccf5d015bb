"""Scan rewrites: each rewritten graph computes what the unrewritten one computes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers_rw import compile_pair
from opgraph_rewrites.scan import (
    ScanMerge,
    scan_push_out_non_seq,
    scan_remove_unused,
    scan_save_mem,
    scan_to_vectorized,
)

import opgraph
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import get_default_mode, get_mode
from opgraph.graph.basic import io_toposort
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out
from opgraph.scan import scan
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs

RNG = np.random.default_rng(42)
VECTORIZE = get_mode("FAST_RUN").including("scan_vectorize")


def scans(fn) -> list:
    return [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, Scan)]


def rnn(x, W, h0):
    return scan(lambda xt, h, W: pt.tanh(pt.dot(W * 2.0, h) + xt), sequences=x,
                outputs_info=h0, non_sequences=W, return_updates=False)


def values(n=6, d=3):
    return (RNG.normal(size=(n, d)), RNG.normal(size=(d, d)) / d, RNG.normal(size=d))


def numpy_rnn(xv, Wv, h0v):
    h, hs = h0v, []
    for t in range(len(xv)):
        h = np.tanh(2.0 * Wv @ h + xv[t])
        hs.append(h)
    return np.array(hs)


def test_push_out_moves_the_invariant_product_before_the_loop():
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    h = rnn(x, W, h0)
    fg = FunctionGraph([x, W, h0], [h], clone=False)
    in2out(scan_push_out_non_seq).rewrite(fg)
    [node] = [n for n in fg.apply_nodes if isinstance(n.op, Scan)]
    inner = io_toposort(node.op.inner_inputs, node.op.inner_outputs)
    # W * 2 is computed outside; the body keeps the step-dependent dot
    assert not any(n.op == pt.mul(W, 2.0).owner.op for n in inner)
    assert node.op.info.n_non_seqs == 2
    fast, ref = compile_pair([x, W, h0], h)
    vals = values()
    np.testing.assert_allclose(fast(*vals), ref(*vals))
    np.testing.assert_allclose(fast(*vals), numpy_rnn(*vals))


def test_push_out_reads_the_shape_of_tap_inputs_outside_the_loop():
    """``x_t.shape`` and ``h.shape`` in the body are rows of outer arrays: the bounds
    computed from them (a row block ``W[n:]`` of a gated cell) leave the loop, and
    values, gradients and the step-shape error are unchanged."""
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")

    def step(xt, h, W):
        n = h.shape[0]
        return pt.tanh(W[n:] @ h + xt[: xt.shape[0] // 2] + W[:n] @ h)

    h = scan(step, sequences=x, outputs_info=h0, non_sequences=W, return_updates=False)
    fg = FunctionGraph([x, W, h0], [h], clone=False)
    in2out(scan_push_out_non_seq).rewrite(fg)
    [node] = [n for n in fg.apply_nodes if isinstance(n.op, Scan)]
    inner = io_toposort(node.op.inner_inputs, node.op.inner_outputs)
    assert not [n for n in inner if type(n.op).__name__ in ("Shape", "Shape_i")]
    g = opgraph.grad((h ** 2).sum(), [W, h0])
    fast, ref = compile_pair([x, W, h0], [h, *g])
    xv, Wv, hv = RNG.normal(size=(5, 6)), RNG.normal(size=(6, 3)), RNG.normal(size=3)
    for got, want in zip(fast(xv, Wv, hv), ref(xv, Wv, hv)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    grow = scan(lambda h: pt.concatenate([h, h])[: h.shape[0] + 1], outputs_info=h0,
                n_steps=3, return_updates=False)
    fast, ref = compile_pair([h0], grow)
    for f in (fast, ref):
        with pytest.raises(ValueError):
            f(hv)


def test_push_out_leaves_a_step_dependent_body_alone():
    x = pt.vector("x")
    y = scan(lambda xt: xt * 2.0, sequences=x, return_updates=False)
    fg = FunctionGraph([x], [y], clone=False)
    before = y.owner
    in2out(scan_push_out_non_seq).rewrite(fg)
    assert fg.outputs[0].owner is before


def test_remove_unused_drops_inputs_and_outputs_nobody_reads():
    x, W = pt.matrix("x"), pt.matrix("W")
    c = pt.vector("c")

    def step(xt, ct, W):  # ct is never read; the second output is dropped below
        return xt + 1.0, pt.dot(W, xt)

    a, _b = scan(step, sequences=[x, c], non_sequences=W, return_updates=False)
    fg = FunctionGraph([x, c, W], [a], clone=False)
    in2out(scan_remove_unused).rewrite(fg)
    [node] = [n for n in fg.apply_nodes if isinstance(n.op, Scan)]
    assert node.op.info.n_seqs == 1
    assert node.op.info.n_nit_sot == 1
    assert node.op.info.n_non_seqs == 0
    xv = RNG.normal(size=(4, 3))
    fast, ref = compile_pair([x, c, W], a)
    args = (xv, RNG.normal(size=4), RNG.normal(size=(3, 3)))
    np.testing.assert_allclose(fast(*args), ref(*args))
    np.testing.assert_allclose(fast(*args), xv + 1.0)


def test_remove_unused_keeps_a_state_another_output_reads():
    x = pt.vector("x")

    def step(xt, s):
        return s + xt, s * 2.0  # the second reads the first's state

    _s, d = scan(step, sequences=x, outputs_info=[pt.as_tensor(0.0), None],
                return_updates=False)
    fg = FunctionGraph([x], [d], clone=False)
    in2out(scan_remove_unused).rewrite(fg)
    [node] = [n for n in fg.apply_nodes if isinstance(n.op, Scan)]
    assert node.op.info.n_sit_sot == 1
    fast, ref = compile_pair([x], d)
    xv = RNG.normal(size=5)
    np.testing.assert_allclose(fast(xv), ref(xv))
    np.testing.assert_allclose(fast(xv), 2.0 * np.concatenate([[0.0], np.cumsum(xv)[:-1]]))


def test_merge_fuses_two_loops_over_the_same_sequence():
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    h = rnn(x, W, h0)
    s = scan(lambda xt, acc: acc + xt.sum(), sequences=x, outputs_info=pt.as_tensor(0.0),
             return_updates=False)
    fg = FunctionGraph([x, W, h0], [h, s], clone=False)
    ScanMerge().rewrite(fg)
    assert len([n for n in fg.apply_nodes if isinstance(n.op, Scan)]) == 1
    fast, ref = compile_pair([x, W, h0], [h, s])
    vals = values()
    for a, b in zip(fast(*vals), ref(*vals)):
        np.testing.assert_allclose(a, b)
    assert len(scans(fast)) == 1


def test_merge_leaves_dependent_loops_apart():
    x = pt.vector("x")
    a = scan(lambda xt: xt + 1.0, sequences=x, return_updates=False)
    b = scan(lambda at: at * 3.0, sequences=a, return_updates=False)
    fg = FunctionGraph([x], [b], clone=False)
    assert not ScanMerge().belongs_to_set(b.owner, [a.owner])
    ScanMerge().rewrite(fg)
    assert len([n for n in fg.apply_nodes if isinstance(n.op, Scan)]) == 2


def test_save_mem_keeps_only_the_last_step():
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    last = rnn(x, W, h0)[-1]
    fg = FunctionGraph([x, W, h0], [last], clone=False)
    in2out(scan_save_mem).rewrite(fg)
    [node] = [n for n in fg.apply_nodes if isinstance(n.op, Scan)]
    assert node.op.keep_last == (1,)
    fast, ref = compile_pair([x, W, h0], last)
    vals = values(n=9)
    np.testing.assert_allclose(fast(*vals), ref(*vals))
    np.testing.assert_allclose(fast(*vals), numpy_rnn(*vals)[-1])
    [node] = scans(fast)
    assert node.op.keep_last == (1,)


def test_save_mem_with_taps_keeps_a_ring_of_the_needed_rows():
    k = pt.iscalar("k")
    init = pt.vector("init")
    fib = scan(lambda a, b: a + b, outputs_info={"initial": init, "taps": [-2, -1]},
               n_steps=k, return_updates=False)
    out = [fib[-1], fib[-3]]
    fast, ref = compile_pair([init, k], out)
    [node] = scans(fast)
    assert node.op.keep_last and node.op.keep_last[0] == 3
    for n in (3, 4, 10):
        got, want = fast(np.array([0.0, 1.0]), n), ref(np.array([0.0, 1.0]), n)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b)


def test_save_mem_leaves_a_history_that_is_read():
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    h = rnn(x, W, h0)
    fast, ref = compile_pair([x, W, h0], [h, h[-1]])
    [node] = scans(fast)
    assert not node.op.keep_last
    vals = values()
    for a, b in zip(fast(*vals), ref(*vals)):
        np.testing.assert_allclose(a, b)


def test_vectorize_replaces_an_independent_map():
    x, W = pt.matrix("x"), pt.matrix("W")
    y = scan(lambda xt, W: pt.exp(pt.dot(W, xt)) + xt, sequences=x, non_sequences=W,
             return_updates=False)
    fg = FunctionGraph([x, W], [y], clone=False)
    in2out(scan_to_vectorized).rewrite(fg)
    assert not any(isinstance(n.op, Scan) for n in fg.apply_nodes)
    fast, ref = compile_pair([x, W], y, mode=VECTORIZE)
    assert not scans(fast) and scans(ref)
    xv, Wv = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 3))
    np.testing.assert_allclose(fast(xv, Wv), ref(xv, Wv))
    np.testing.assert_allclose(fast(xv, Wv), np.exp(xv @ Wv.T) + xv)


def test_vectorize_keeps_the_short_sequence_error():
    x, k = pt.vector("x"), pt.iscalar("k")
    y = scan(lambda v: v * 2.0, sequences=x, n_steps=k, return_updates=False)
    fast, _ = compile_pair([x, k], y, mode=VECTORIZE)
    assert not scans(fast)
    np.testing.assert_allclose(fast(np.arange(4.0), 3), [0.0, 2.0, 4.0])
    with pytest.raises(ValueError, match="fewer than n_steps"):
        fast(np.arange(2.0), 5)


def test_vectorize_leaves_a_recurrence_alone():
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    h = rnn(x, W, h0)
    fg = FunctionGraph([x, W, h0], [h], clone=False)
    in2out(scan_to_vectorized).rewrite(fg)
    assert any(isinstance(n.op, Scan) for n in fg.apply_nodes)


def test_all_scan_rewrites_together_match_the_python_loop():
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    h = rnn(x, W, h0)
    m = scan(lambda xt: xt ** 2, sequences=x, return_updates=False)
    cost = h[-1].sum() + m.sum()
    g = opgraph.grad(cost, W)
    fast, ref = compile_pair([x, W, h0], [cost, g])
    vals = values()
    for a, b in zip(fast(*vals), ref(*vals)):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_scan_args_round_trip_rebuilds_an_equal_node():
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    node = rnn(x, W, h0).owner.inputs[0].owner
    args = ScanArgs.from_node(node)
    assert args.inner_inputs == node.op.inner_inputs
    assert args.outer_inputs == node.inputs
    assert args.info == node.op.info
    assert args.make_node().op == node.op
    info = args.find_among_fields(args.inner_in_non_seqs[0])
    assert (info.name, info.index) == ("inner_in_non_seqs", 0)
    assert args.get_alt_field(info, "outer_in") is W
    with pytest.raises(TypeError, match="Scan node"):
        ScanArgs.from_node(pt.exp(x).owner)


def test_vectorizing_is_opt_in_and_an_invariant_map_becomes_an_alloc():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x, w = pt.matrix("x"), pt.vector("w")
        y = scan(lambda xt: xt + 1.0, sequences=x, return_updates=False)
        assert len(scans(function([x], y, mode=get_default_mode()))) == 1
        assert not scans(function([x], y, mode=get_default_mode().including("scan_vectorize")))
        # every step returns the same value: no loop at all
        z = scan(lambda w: pt.exp(w), non_sequences=w, n_steps=4, return_updates=False)
        f = function([w], z, mode=get_default_mode())
        assert not scans(f)
        wv = RNG.normal(size=3)
        np.testing.assert_allclose(f(wv), np.tile(np.exp(wv), (4, 1)))


def test_save_mem_keeps_only_the_taps_of_a_state_nobody_reads():
    # the second output reads the state at every step; the state's history is unread
    x, s0 = pt.vector("x"), pt.vector("s0")
    (_s, y) = scan(lambda xt, s2, s1: (s1 + s2 * xt, s1 * xt), sequences=x,
                  outputs_info=[{"initial": s0, "taps": [-2, -1]}, None],
                  return_updates=False)
    fg = FunctionGraph([x, s0], [y], clone=False)
    in2out(scan_save_mem).rewrite(fg)
    [node] = [n for n in fg.apply_nodes if isinstance(n.op, Scan)]
    assert node.op.keep_last == (1,)
    fast, ref = compile_pair([x, s0], y)
    xv, sv = RNG.normal(size=9), RNG.normal(size=2)
    np.testing.assert_allclose(fast(xv, sv), ref(xv, sv))
    hist, want = list(sv), []
    for t in range(9):
        want.append(hist[-1] * xv[t])
        hist.append(hist[-1] + hist[-2] * xv[t])
    np.testing.assert_allclose(fast(xv, sv), want)
    [node] = scans(fast)
    assert node.op.keep_last == (1,)
