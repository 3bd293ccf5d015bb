"""scan_push_out_outer_sum: a state summing per-step outer products becomes one product.

Every rewritten graph is compared with the same graph compiled without the
rewrite (values and gradients), and the loops are checked to have lost their
matrix state.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from opgraph_rewrites.scan import outer_factors, scan_push_out_outer_sum

import opgraph
import opgraph.tensor as pt
from opgraph.autodiff.verify import verify_grad
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out
from opgraph.scan import scan
from opgraph.scan.op import Scan
from opgraph.tensor.blas import Gemv
from opgraph.tensor.products import Dot

RNG = np.random.default_rng(16)
FAST = Mode(linker="vm", optimizer=get_mode("FAST_RUN").optimizer)
WITHOUT = FAST.excluding("scan_push_out_outer_sum")


def compile3(inputs, outputs, updates=None):
    """The graph with the rewrite, without it, and without any rewrite."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [function(inputs, outputs, mode=m, updates=updates, on_unused_input="ignore")
                for m in (FAST, WITHOUT, Mode(linker="vm", optimizer=None))]


def matrix_states(fn) -> int:
    """How many recurrent outputs of ``fn``'s loops carry a matrix per step."""
    n = 0
    for node in fn.maker.fgraph.apply_nodes:
        if isinstance(node.op, Scan):
            outs = node.op.inner_outputs[:node.op.info.n_states]
            n += sum(o.type.ndim == 2 for o in outs)
    return n


def accumulate(x, y, init, form="dot"):
    def step(xt, yt, acc):
        term = pt.outer(xt, yt) if form == "dot" else xt[:, None] * yt[None, :]
        return acc + term
    return scan(step, sequences=[x, y], outputs_info=init, return_updates=False)


@pytest.mark.parametrize("form", ["dot", "mul"])
def test_a_sum_of_outer_products_becomes_one_product(form):
    x, y, init = pt.matrix("x"), pt.matrix("y"), pt.matrix("init")
    last = accumulate(x, y, init, form)[-1]
    fg = FunctionGraph([x, y, init], [last], clone=False)
    in2out(scan_push_out_outer_sum).rewrite(fg)
    assert not [n for n in fg.apply_nodes if isinstance(n.op, Scan)
                and n.op.info.n_sit_sot]
    fast, without, ref = compile3([x, y, init], last)
    assert matrix_states(fast) == 0 and matrix_states(without) == 1
    xv, yv, iv = RNG.normal(size=(7, 3)), RNG.normal(size=(7, 4)), RNG.normal(size=(3, 4))
    want = iv + np.einsum("ti,tj->ij", xv, yv)
    for f in (fast, without, ref):
        np.testing.assert_allclose(f(xv, yv, iv), want, rtol=1e-12)
    # no step: the initial value
    np.testing.assert_allclose(fast(xv[:0], yv[:0], iv), iv)


def test_outer_factors_recognises_only_outer_products():
    u, v, m = pt.vector("u"), pt.vector("v"), pt.matrix("m")
    a, b = outer_factors(pt.outer(u, v))
    assert a is u and b is v
    assert outer_factors(u[:, None] * v[None, :]) == (u, v)
    assert outer_factors(pt.dot(m, m)) is None
    assert outer_factors(u[None, :] * v[:, None]) is None
    assert outer_factors(u + v) is None
    c = pt.dscalar("c")
    su, sv = outer_factors(2.0 * pt.outer(u, v) * c)
    assert sv is v
    fn = function([u, c], su, mode=Mode(linker="py", optimizer=None))
    np.testing.assert_allclose(fn(np.array([1.0, 2.0]), 3.0), [6.0, 12.0])
    assert outer_factors(m * pt.outer(u, v)) is None


def test_a_scaled_outer_product_is_moved_out_with_its_scale():
    x, y, init, c = pt.matrix("x"), pt.matrix("y"), pt.matrix("init"), pt.dscalar("c")
    last = scan(lambda xt, yt, acc, c: acc + c * pt.outer(xt, yt) * 0.5, sequences=[x, y],
                outputs_info=init, non_sequences=c, return_updates=False)[-1]
    fast, without, ref = compile3([x, y, init, c], last)
    assert matrix_states(fast) == 0 and matrix_states(without) == 1
    xv, yv, iv = RNG.normal(size=(6, 2)), RNG.normal(size=(6, 3)), RNG.normal(size=(2, 3))
    want = iv + 0.5 * 1.5 * np.einsum("ti,tj->ij", xv, yv)
    for f in (fast, without, ref):
        np.testing.assert_allclose(f(xv, yv, iv, 1.5), want, rtol=1e-12)


def test_a_history_that_is_read_keeps_the_state():
    x, y, init = pt.matrix("x"), pt.matrix("y"), pt.matrix("init")
    hist = accumulate(x, y, init)
    fast, _without, ref = compile3([x, y, init], [hist, hist[-1]])
    assert matrix_states(fast) == 1
    vals = RNG.normal(size=(5, 2)), RNG.normal(size=(5, 3)), RNG.normal(size=(2, 3))
    for g, w in zip(fast(*vals), ref(*vals)):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_a_state_read_elsewhere_in_the_step_is_left_alone():
    x, y, init = pt.matrix("x"), pt.matrix("y"), pt.matrix("init")
    out = scan(lambda xt, yt, acc: 0.5 * acc + pt.outer(xt, yt), sequences=[x, y],
               outputs_info=init, return_updates=False)[-1]
    fast, _without, ref = compile3([x, y, init], out)
    assert matrix_states(fast) == 1
    vals = RNG.normal(size=(5, 2)), RNG.normal(size=(5, 3)), RNG.normal(size=(2, 3))
    np.testing.assert_allclose(fast(*vals), ref(*vals), rtol=1e-12)


def test_a_loop_invariant_factor_is_left_alone():
    x, c, init = pt.matrix("x"), pt.vector("c"), pt.matrix("init")
    out = scan(lambda xt, acc, c: acc + pt.outer(xt, c), sequences=x, outputs_info=init,
               non_sequences=c, return_updates=False)[-1]
    fast, _without, ref = compile3([x, c, init], out)
    vals = RNG.normal(size=(5, 2)), RNG.normal(size=3), RNG.normal(size=(2, 3))
    np.testing.assert_allclose(fast(*vals), ref(*vals), rtol=1e-12)


def rnn(x, W, h0, *, taps=False, truncate=-1, backwards=False):
    if taps:
        def step(xt, h2, h1, W):
            return pt.tanh(pt.dot(W, h1) + 0.5 * pt.dot(W, h2) + xt)
        info = {"initial": h0, "taps": [-2, -1]}
    else:
        def step(xt, h1, W):
            return pt.tanh(pt.dot(2.0 * W, h1) + xt)
        info = h0
    return scan(step, sequences=x, outputs_info=info, non_sequences=W,
                truncate_gradient=truncate, go_backwards=backwards, return_updates=False)


CASES = {
    "plain": {},
    "taps": {"taps": True},
    "truncate": {"truncate": 3},
    "backwards": {"backwards": True},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rnn_weight_gradient_is_one_product_after_the_loop(case):
    kw = CASES[case]
    x, W = pt.matrix("x"), pt.matrix("W")
    h0 = pt.matrix("h0") if kw.get("taps") else pt.vector("h0")
    cost = (rnn(x, W, h0, **kw)[-1] ** 2).sum()
    gW, gx, gh0 = opgraph.grad(cost, [W, x, h0])
    fast, without, ref = compile3([x, W, h0], [gW, gx, gh0])
    assert matrix_states(fast) == 0 and matrix_states(without) >= 1
    d = 4
    vals = (RNG.normal(size=(8, d)), RNG.normal(size=(d, d)) / 2,
            RNG.normal(size=(2, d) if kw.get("taps") else d))
    got = fast(*vals)
    for other in (without, ref):
        for g, w in zip(got, other(*vals)):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", ["plain", "taps", "backwards"])
def test_rnn_weight_gradient_matches_finite_differences(case):
    kw = CASES[case]
    xv = RNG.normal(size=(6, 3))
    h0v = RNG.normal(size=(2, 3) if kw.get("taps") else 3)

    def cost(W):
        x, h0 = pt.as_tensor(xv), pt.as_tensor(h0v)
        return (rnn(x, W, h0, **kw)[-1] ** 2).sum()

    verify_grad(cost, [RNG.normal(size=(3, 3)) / 2], rng=RNG, mode=FAST)


def test_rnn_with_a_shared_update_keeps_values_and_gradients():
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    count = opgraph.shared(np.float64(0.0), name="count")

    def step(xt, h, W):
        return pt.tanh(pt.dot(W, h) + xt), {count: count + 1.0}

    h, updates = scan(step, sequences=x, outputs_info=h0, non_sequences=W,
                      return_updates=True)
    gW = opgraph.grad((h[-1] ** 2).sum(), W)
    fast, without, ref = compile3([x, W, h0], [h[-1], gW], updates=updates)
    assert matrix_states(fast) == 0
    vals = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 3)) / 2, RNG.normal(size=3)
    got = fast(*vals)
    for other in (without, ref):
        for g, w in zip(got, other(*vals)):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    assert count.get_value() == 15.0  # three functions called once, five steps each


def test_backward_loop_reads_forward_values_instead_of_recomputing_the_step():
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    gW = opgraph.grad(rnn(x, W, h0)[-1].sum(), W)
    fast, _without, ref = compile3([x, W, h0], gW)
    [back] = [n for n in fast.maker.fgraph.apply_nodes
              if isinstance(n.op, Scan) and "grad" in (n.op.name or "")]
    inner = back.op.fn.maker.fgraph.apply_nodes
    # one product per backward step (W.T @ d); W @ h and tanh are not computed again
    assert sum(isinstance(n.op, Dot | Gemv) for n in inner) == 1  # Gemv: BlasOpt's form
    assert not [n for n in inner if "tanh" in str(n.op).lower()]
    vals = RNG.normal(size=(6, 3)), RNG.normal(size=(3, 3)) / 2, RNG.normal(size=3)
    np.testing.assert_allclose(fast(*vals), ref(*vals), rtol=1e-10)


def states(fn) -> int:
    """How many recurrent outputs the loops of ``fn`` carry."""
    return sum(node.op.info.n_states for node in fn.maker.fgraph.apply_nodes
               if isinstance(node.op, Scan))


def test_rnn_with_input_projection_moves_every_weight_gradient_out():
    """``h_t = tanh(W h + U x_t + b)``, loss on the last state: the backward loop keeps
    only the hidden state's cotangent; the W, U (outer products written with ``@`` and a
    transposed column) and b (a summed vector) accumulations become products and a
    reduction after the loop."""
    x, w, u, b, h0 = pt.matrix("x"), pt.matrix("W"), pt.matrix("U"), pt.vector("b"), \
        pt.vector("h0")
    hs = scan(lambda xt, h, w, u, b: pt.tanh(w @ h + u @ xt + b), sequences=[x],
              outputs_info=[h0], non_sequences=[w, u, b], return_updates=False)
    for loss in (hs[-1].sum(), (hs * pt.arange(hs.shape[0])[:, None]).sum()):
        grads = opgraph.grad(loss, [w, u, b, x, h0])
        fast, without, ref = compile3([x, w, u, b, h0], [loss, *grads])
        assert states(fast) < states(without)
        assert matrix_states(fast) == 0
        args = (RNG.normal(size=(6, 3)), RNG.normal(size=(4, 4)), RNG.normal(size=(4, 3)),
                RNG.normal(size=4), RNG.normal(size=4))
        for got, want, exact in zip(fast(*args), without(*args), ref(*args)):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(got, exact, rtol=1e-10, atol=1e-12)


def test_a_running_sum_without_outer_product_stays_in_the_loop():
    """``acc + x_t`` alone saves nothing per step: the loop is left as it is."""
    x, init = pt.matrix("x"), pt.vector("init")
    last = scan(lambda xt, acc: acc + xt, sequences=[x], outputs_info=init,
                return_updates=False)[-1]
    fg = FunctionGraph([x, init], [last], clone=False)
    assert in2out(scan_push_out_outer_sum).rewrite(fg) is not False
    assert [n for n in fg.apply_nodes if isinstance(n.op, Scan) and n.op.info.n_sit_sot]


def test_outer_factors_sees_a_transposed_column_as_a_row():
    u, v = pt.vector("u"), pt.vector("v")
    assert outer_factors(u[:, None] @ v[:, None].T) == (u, v)
    assert outer_factors(u[:, None] @ v[:, None]) is None


def test_a_matrix_term_beside_the_outer_products_keeps_the_state_in_the_loop():
    """``acc + outer(u, v) + M_t`` on a matrix state: stacking ``M_t`` would hold a matrix
    per step (a GRU's gradient of a row block of W is such a term), so nothing moves."""
    x, y, init = pt.matrix("x"), pt.matrix("y"), pt.matrix("init")
    last = scan(lambda xt, yt, acc: acc + pt.outer(xt, yt) + pt.outer(xt, yt) ** 2,
                sequences=[x, y], outputs_info=init, return_updates=False)[-1]
    fast, without, ref = compile3([x, y, init], last)
    assert matrix_states(fast) == 1
    xv, yv, iv = RNG.normal(size=(5, 3)), RNG.normal(size=(5, 4)), RNG.normal(size=(3, 4))
    for f in (fast, without, ref):
        np.testing.assert_allclose(f(xv, yv, iv), ref(xv, yv, iv), rtol=1e-12)


def gru_step(xt, h, w, u, b):
    """A GRU-like cell: the candidate reads a row block of W (``W[2n:] @ (r * h)``), with
    the block's bounds taken from the state's shape inside the step."""
    n = h.shape[0]
    pre = w @ h + u @ xt + b
    z, r = pt.sigmoid(pre[:n]), pt.sigmoid(pre[n:2 * n])
    cand = pt.tanh((u @ xt + b)[2 * n:] + r * (w[2 * n:] @ h))
    return (1.0 - z) * h + z * cand


def test_gru_row_block_gradient_is_one_product_after_the_loop():
    """The gradient of ``W[2n:] @ h`` is ``inc_subtensor(zeros[2n:], outer(d, h))`` per step:
    a scattered outer product with loop-invariant bounds (once the state's shape is read
    outside the loop), summed after the loop as one product.  Values and gradients equal
    the graph without the rewrite and without any rewrite."""
    x, w, u, b, h0 = pt.matrix("x"), pt.matrix("W"), pt.matrix("U"), pt.vector("b"), \
        pt.vector("h0")
    hs = scan(gru_step, sequences=[x], outputs_info=[h0], non_sequences=[w, u, b],
              return_updates=False)
    for loss in (hs[-1].sum(), (hs * hs).sum()):
        grads = opgraph.grad(loss, [w, u, b, h0])
        fast, without, ref = compile3([x, w, u, b, h0], [loss, *grads])
        assert matrix_states(fast) == 0 and matrix_states(without) >= 1
        n = 4
        args = (RNG.normal(size=(6, 3)), RNG.normal(size=(3 * n, n)),
                RNG.normal(size=(3 * n, 3)), RNG.normal(size=3 * n), RNG.normal(size=n))
        for got, want, exact in zip(fast(*args), without(*args), ref(*args)):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(got, exact, rtol=1e-10, atol=1e-12)


def test_gru_row_block_gradient_matches_finite_differences():
    xv = RNG.normal(size=(5, 2))
    n = 3

    def loss(w, u, b, h0):
        hs = scan(gru_step, sequences=[pt.constant(xv)], outputs_info=[h0],
                  non_sequences=[w, u, b], return_updates=False)
        return (hs * hs).sum()

    verify_grad(loss, [RNG.normal(size=(3 * n, n)), RNG.normal(size=(3 * n, 2)),
                       RNG.normal(size=3 * n), RNG.normal(size=n)],
                rng=np.random.default_rng(3), mode=FAST)


def test_a_scattered_product_into_a_nonzero_block_stays_in_the_loop():
    """``acc + inc_subtensor(c[1:], outer(x_t, y_t))`` adds ``c`` every step: summing the
    increments alone would lose ``n_steps * c``, so the state stays."""
    x, y, init, c = pt.matrix("x"), pt.matrix("y"), pt.matrix("init"), pt.matrix("c")
    last = scan(lambda xt, yt, acc, c: acc + pt.inc_subtensor(c[1:], pt.outer(xt, yt)),
                sequences=[x, y], outputs_info=init, non_sequences=[c],
                return_updates=False)[-1]
    fast, without, ref = compile3([x, y, init, c], last)
    assert matrix_states(fast) == 1
    xv, yv = RNG.normal(size=(5, 2)), RNG.normal(size=(5, 4))
    iv, cv = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    want = iv + 5 * cv
    want[1:] += np.einsum("ti,tj->ij", xv, yv)
    for f in (fast, without, ref):
        np.testing.assert_allclose(f(xv, yv, iv, cv), want, rtol=1e-12)


def test_a_scattered_product_into_zeros_moves_out_with_its_bounds():
    x, y, init = pt.matrix("x"), pt.matrix("y"), pt.matrix("init")
    k = pt.lscalar("k")
    last = scan(lambda xt, yt, acc, k: acc + pt.inc_subtensor(pt.zeros_like(acc)[k:],
                                                              pt.outer(xt, yt)),
                sequences=[x, y], outputs_info=init, non_sequences=[k],
                return_updates=False)[-1]
    fast, without, ref = compile3([x, y, init, k], last)
    assert matrix_states(fast) == 0 and matrix_states(without) == 1
    xv, yv, iv = RNG.normal(size=(5, 2)), RNG.normal(size=(5, 4)), RNG.normal(size=(4, 4))
    want = iv.copy()
    want[2:] += np.einsum("ti,tj->ij", xv, yv)
    for f in (fast, without, ref):
        np.testing.assert_allclose(f(xv, yv, iv, 2), want, rtol=1e-12)
    with pytest.raises(ValueError):  # a block of the wrong size is still an error
        fast(xv, yv, iv, 1)
