"""Gradients compiled with function() (needs the NumPy linker plugin): MLP backprop,
verify_grad through named modes, forward mode and second derivatives."""

from __future__ import annotations

import math

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.gradient import Rop, grad, hessian, jacobian, verify_grad

MODES = ["FAST_COMPILE", "FAST_RUN"]


def _numpy_mlp(x, t, w1, b1, w2, b2):
    h = np.tanh(x @ w1 + b1)
    diff = h @ w2 + b2 - t
    g_out = diff * (2.0 / diff.size)
    g_pre = (g_out @ w2.T) * (1.0 - h * h)
    return [np.mean(diff**2), x.T @ g_pre, g_pre.sum(0), h.T @ g_out, g_out.sum(0)]


@pytest.mark.filterwarnings("ignore:mode 'FAST_RUN'")
@pytest.mark.parametrize("mode", MODES)
def test_mlp_gradients_match_hand_written_backprop(mode):
    rng = np.random.default_rng(0)
    n = 16
    x, t, w1, w2 = pt.matrix("x"), pt.matrix("t"), pt.matrix("w1"), pt.matrix("w2")
    b1, b2 = pt.vector("b1"), pt.vector("b2")
    h = pt.tanh(pt.dot(x, w1) + b1)
    loss = pt.mean((pt.dot(h, w2) + b2 - t) ** 2)
    grads = grad(loss, [w1, b1, w2, b2])
    fn = function([x, t, w1, b1, w2, b2], [loss, *grads], mode=mode)
    args = [rng.normal(size=(n, n)), rng.normal(size=(n, n)),
            rng.normal(size=(n, n)) / math.sqrt(n), rng.normal(size=n),
            rng.normal(size=(n, n)) / math.sqrt(n), rng.normal(size=n)]
    for got, want in zip(fn(*[a.copy() for a in args]), _numpy_mlp(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.filterwarnings("ignore:mode 'FAST_RUN'")
@pytest.mark.parametrize("mode", MODES)
def test_verify_grad_through_named_modes(mode):
    rng = np.random.default_rng(1)
    verify_grad(
        lambda x, w: pt.log_softmax(pt.dot(x, w), axis=-1)[:, 1:] * pt.tanh(w.sum()),
        [rng.normal(size=(3, 4)), rng.normal(size=(4, 5))],
        mode=mode,
        rng=rng,
    )


@pytest.mark.filterwarnings("ignore:mode 'FAST_RUN'")
def test_rop_and_hessian_compile_and_agree():
    rng = np.random.default_rng(2)
    x = pt.tensor(dtype="float64", shape=(3,), name="x")
    v = pt.dvector("v")
    cost = (pt.exp(x) * pt.sin(x)).sum() + (x.sum()) ** 2
    g = grad(cost, x)
    H = hessian(cost, x)
    hv = Rop(g, x, v)
    J = jacobian(g, x)
    fn = function([x, v], [H, hv, J])
    xv, vv = rng.normal(size=3), rng.normal(size=3)
    H_val, hv_val, J_val = fn(xv, vv)
    np.testing.assert_allclose(hv_val, H_val @ vv, rtol=1e-10)
    np.testing.assert_allclose(H_val, J_val)
    expected = np.diag(2 * np.exp(xv) * np.cos(xv)) + 2.0
    np.testing.assert_allclose(H_val, expected, rtol=1e-10)
