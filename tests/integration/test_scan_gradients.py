"""Gradients of scan: finite differences (verify_grad), truncation, pushforward, jacobian."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.gradient import Rop, jacobian, verify_grad
from opgraph.scan import scan, scan_checkpoints, until

# return_updates left unset keeps PyTensor 3.0's (outputs, updates) form; its warning
# is checked in test_return_updates_signature.
pytestmark = pytest.mark.filterwarnings("ignore:Scan return signature:DeprecationWarning")

RNG = np.random.default_rng(42)


def test_verify_grad_sit_sot_with_non_sequence():
    def loss(x, h0, w):
        out, _ = scan(lambda xt, h, w: pt.tanh(h * w + xt), sequences=x, outputs_info=h0,
                      non_sequences=w)
        return (out**2).sum()

    verify_grad(loss, [RNG.normal(size=5), np.array(0.2), np.array(0.7)], rng=1)


def test_verify_grad_taps():
    def loss(x, init, w):
        out, _ = scan(lambda xm1, x0, a, b, w: pt.sin(a) * w + b * x0 * xm1,
                      sequences=[dict(input=x, taps=[-1, 0])],
                      outputs_info=[dict(initial=init, taps=[-3, -1])], non_sequences=w)
        return (out * pt.arange(out.shape[0])).sum()

    verify_grad(loss, [RNG.normal(size=6) * 0.5, RNG.normal(size=3), np.array(0.6)],
                rng=2)


def test_verify_grad_matrix_states_and_nit_sot():
    def loss(x, h0, w):
        h, _ = scan(lambda xt, h, w: pt.tanh(pt.dot(w, h) + xt), sequences=x,
                    outputs_info=h0, non_sequences=w)
        ys, _ = scan(lambda ht: ht.sum() ** 2, sequences=h)
        return ys.sum()

    verify_grad(loss, [RNG.normal(size=(4, 3)), RNG.normal(size=3), RNG.normal(size=(3, 3))],
                rng=3)


def test_verify_grad_with_shared_state_update():
    acc = opgraph.shared(np.array(0.5), name="acc")

    def loss(x, w):
        def step(xt, w):
            return xt * acc * w, {acc: acc + xt * w}

        out, updates = scan(step, sequences=x, non_sequences=w)
        return out.sum() + updates[acc] ** 2

    verify_grad(loss, [RNG.normal(size=4), np.array(0.9)], rng=4)


def test_verify_grad_until():
    def loss(h0, w):
        def step(h, w):
            new = h * w + 0.1
            return new, until(new > 5.0)

        out, _ = scan(step, outputs_info=h0, non_sequences=w, n_steps=50)
        return out.sum()

    verify_grad(loss, [np.array(0.5), np.array(1.7)], rng=5)


def test_truncate_gradient_runs_only_the_last_steps():
    x = pt.vector("x")
    h0 = pt.scalar("h0")
    out, _ = scan(lambda xt, h: h * 0.5 + xt, sequences=x, outputs_info=h0,
                  truncate_gradient=2)
    g = opgraph.grad(out[-1], [x, h0])
    gx, gh = function([x, h0], g)(np.arange(5.0), 1.0)
    # only the last two steps are differentiated through
    np.testing.assert_allclose(gx, [0, 0, 0, 0.5, 1.0])
    assert gh == 0


def test_pushforward_matches_finite_differences():
    x = pt.vector("x")
    w = pt.scalar("w")
    out, _ = scan(lambda xt, h, w: pt.sin(h * w) + xt, sequences=x, outputs_info=pt.zeros(()),
                  non_sequences=w)
    vx, vw = pt.vector("vx"), pt.scalar("vw")
    jvp = Rop(out, [x, w], [vx, vw])
    f = function([x, w], out)
    fj = function([x, w, vx, vw], jvp)
    xv, wv = RNG.normal(size=5), 0.8
    dx, dw = RNG.normal(size=5), 0.3
    eps = 1e-6
    fd = (f(xv + eps * dx, wv + eps * dw) - f(xv - eps * dx, wv - eps * dw)) / (2 * eps)
    np.testing.assert_allclose(fj(xv, wv, dx, dw), fd, rtol=1e-5, atol=1e-7)


def test_jacobian_via_scan():
    x = pt.vector("x")
    y = x**3
    jac = jacobian(y, x)
    rows, _ = scan(lambda i, y, x: opgraph.grad(y[i], x), sequences=pt.arange(y.shape[0]),
                   non_sequences=[y, x])
    xv = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(function([x], rows)(xv), np.diag(3 * xv**2))
    np.testing.assert_allclose(function([x], jac)(xv), np.diag(3 * xv**2))


def test_scan_checkpoints_matches_scan():
    k = pt.iscalar("k")
    a = pt.vector("a")
    seq = pt.arange(k, dtype="float64") + 1
    plain, _ = scan(lambda s, prev, a: prev * a / s, sequences=[seq],
                    outputs_info=pt.ones_like(a), non_sequences=a, n_steps=k)
    check, _ = scan_checkpoints(lambda s, prev, a: prev * a / s, sequences=[seq],
                                outputs_info=pt.ones_like(a), non_sequences=a, n_steps=k,
                                save_every_N=4)
    f = function([a, k], [plain[-1], check[-1], opgraph.grad(plain[-1].sum(), a),
                          opgraph.grad(check[-1].sum(), a)])
    av = np.linspace(0.5, 2, 4)
    p, c, gp, gc = f(av, 11)
    np.testing.assert_allclose(p, c)
    np.testing.assert_allclose(gp, gc)


def test_verify_grad_output_feeding_another_output():
    # y is computed from the new state h: the gradient must follow both paths
    def loss(x, h0, w):
        def step(xt, h, w):
            new = pt.tanh(h * w + xt)
            return new, (new * 3.0).sum() + xt

        (h, y), _ = scan(step, sequences=x, outputs_info=[h0, None], non_sequences=w)
        return h.sum() + (y**2).sum()

    verify_grad(loss, [RNG.normal(size=4), RNG.normal(size=2), np.array(0.6)], rng=6)


def test_verify_grad_of_a_gradient():
    # second derivatives: the gradient scan is itself differentiated
    def dloss_dw(x, w, h0):
        out = scan(lambda xt, h, w: (h * w + xt) ** 2, sequences=x, outputs_info=h0,
                   non_sequences=w, return_updates=False)
        return opgraph.grad(out.sum(), w)

    verify_grad(dloss_dw, [RNG.normal(size=3) * 0.5, np.array(0.7), np.array(0.4)], rng=7)


def test_verify_grad_fewer_steps_than_taps():
    def loss(init, x):
        out = scan(lambda xt, a, b: a * 0.3 + b * 0.5 + xt, sequences=x,
                   outputs_info=dict(initial=init, taps=[-3, -1]), return_updates=False)
        return (out**2).sum()

    verify_grad(loss, [RNG.normal(size=3), RNG.normal(size=2)], rng=8)


@pytest.mark.parametrize("mode", ["FAST_RUN", "C"])
def test_gradients_agree_across_modes(mode):
    if mode == "C":
        pytest.importorskip("opgraph_c")
    x = pt.matrix("x")
    h0 = pt.vector("h0")
    w = pt.matrix("w")
    h = scan(lambda xt, h, w: pt.tanh(pt.dot(w, h) + xt), sequences=x, outputs_info=h0,
             non_sequences=w, return_updates=False)
    cost = (h[-1] ** 2).sum() + h.mean()
    grads = opgraph.grad(cost, [x, h0, w])
    args = (RNG.normal(size=(5, 3)), RNG.normal(size=3), RNG.normal(size=(3, 3)) * 0.5)
    ref = function([x, h0, w], grads, mode="FAST_COMPILE")(*args)
    got = function([x, h0, w], grads, mode=mode)(*args)
    for a, b in zip(ref, got):
        np.testing.assert_allclose(b, a, rtol=1e-10)


def test_pushforward_through_until():
    h0, w, vw = pt.scalar("h0"), pt.scalar("w"), pt.scalar("vw")

    def step(h, w):
        new = h * w
        return [new, new + 1.0], until(new > 3)

    _, b = scan(step, outputs_info=[h0, None], non_sequences=w, n_steps=10,
                return_updates=False)
    fb = function([h0, w], b)
    fj = function([h0, w, vw], Rop(b, w, vw))
    eps = 1e-6
    fd = (fb(1.0, 1.5 + eps) - fb(1.0, 1.5 - eps)) / (2 * eps)
    np.testing.assert_allclose(fj(1.0, 1.5, 1.0), fd, rtol=1e-6)


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "C", "DASK"])
@pytest.mark.parametrize("cell", ["tanh", "gated"])
def test_a_loop_of_no_steps_has_the_gradients_of_its_initial_state(mode, cell):
    """With an empty sequence the loss reads only ``h0``: the weight gradients are zeros of
    the weights' shapes and the sequence's gradient is empty with the sequence's row
    shape (a loop that runs no step cannot know its per-step outputs' shape; the
    gradient and the rewrites take it from the sequence and the states)."""
    x, w, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")

    def step(xt, h, w):
        if cell == "tanh":
            return pt.tanh(w @ h + xt)
        n = h.shape[0]
        z = pt.sigmoid((w @ h)[:n] + xt)
        return (1 - z) * h + z * pt.tanh(w[n:] @ h)

    hs = scan(step, sequences=[x], outputs_info=[h0], non_sequences=[w],
              return_updates=False)
    loss = (hs ** 2).sum() + (h0 ** 3).sum()
    fn = function([x, w, h0], opgraph.grad(loss, [w, h0, x]), mode=mode)
    rows = 3 if cell == "tanh" else 6
    h0v = RNG.normal(size=3)
    gw, gh0, gx = fn(np.zeros((0, 3)), RNG.normal(size=(rows, 3)), h0v)
    np.testing.assert_array_equal(gw, np.zeros((rows, 3)))
    np.testing.assert_allclose(gh0, 3 * h0v ** 2, rtol=1e-12)
    assert gx.shape == (0, 3)
