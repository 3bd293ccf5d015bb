"""The W4 model end to end: a 2-layer MLP's loss and gradients through the BLAS paths.

FAST_RUN (C linker, BLAS products and BLAS reductions) against the same graph
without the BLAS rewrites, against the Python linker with no rewrites at all,
against a hand-written NumPy backward pass, on operands that are transposed,
column-major or strided; and the gradient against finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.gradient import grad, verify_grad
from opgraph.tensor.blas import Gemv
from opgraph.tensor.reduction import Sum

RNG = np.random.default_rng(4)


def mlp_loss(x, t, w1, b1, w2, b2):
    h = pt.tanh(pt.dot(x, w1) + b1)
    return pt.mean((pt.dot(h, w2) + b2 - t) ** 2)


def numpy_reference(x, t, w1, b1, w2, b2):
    h = np.tanh(x @ w1 + b1)
    diff = h @ w2 + b2 - t
    g_out = diff * (2.0 / diff.size)
    g_pre = (g_out @ w2.T) * (1.0 - h * h)
    return [np.mean(diff**2), x.T @ g_pre, g_pre.sum(axis=0), h.T @ g_out, g_out.sum(axis=0)]


def build():
    x, t, w1, w2 = (pt.matrix(n) for n in ("x", "t", "w1", "w2"))
    b1, b2 = pt.vector("b1"), pt.vector("b2")
    loss = mlp_loss(x, t, w1, b1, w2, b2)
    params = [w1, b1, w2, b2]
    return [x, t, *params], [loss, *grad(loss, params)]


def values(batch=9, n_in=7, hidden=6, n_out=5):
    return [RNG.standard_normal((batch, n_in)), RNG.standard_normal((batch, n_out)),
            RNG.standard_normal((n_in, hidden)) / 3, RNG.standard_normal(hidden) * 0.1,
            RNG.standard_normal((hidden, n_out)) / 3, RNG.standard_normal(n_out) * 0.1]


def layouts(a):
    if a.ndim == 1:
        return [a, np.repeat(a, 2)[::2], a[::-1].copy()[::-1]]
    big = np.zeros((a.shape[0] + 2, 2 * a.shape[1]))
    big[1:-1, ::2] = a
    return [a, np.asfortranarray(a), np.ascontiguousarray(a.T).T, big[1:-1, ::2],
            np.ascontiguousarray(a[::-1])[::-1]]


@pytest.fixture(scope="module")
def compiled():
    fns = {}
    for name, mode in (("fast_run", get_mode("FAST_RUN")),
                       ("no_blas_rewrites", get_mode("FAST_RUN").excluding("blas")),
                       ("python", Mode(linker="py", optimizer=None))):
        inputs, outputs = build()
        fns[name] = function(inputs, outputs, mode=mode)
    return fns


def test_fast_run_uses_the_blas_reductions(compiled):
    nodes = compiled["fast_run"].maker.fgraph.apply_nodes
    assert sum(isinstance(n.op, Gemv) for n in nodes) == 2        # both bias gradients
    assert not any(isinstance(n.op, Sum) for n in nodes)           # and the squared loss


def test_every_layout_gives_the_reference_values(compiled):
    base = values()
    want = numpy_reference(*base)
    for k in range(len(base)):
        for view in layouts(base[k]):
            args = list(base)
            args[k] = view
            for name, fn in compiled.items():
                got = fn(*args)
                for g, w in zip(got, want, strict=True):
                    np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=name)


def test_outputs_are_fresh_each_call(compiled):
    fn = compiled["fast_run"]
    args = values()
    first = [np.array(g, copy=True) for g in fn(*args)]
    held = fn(*args)
    again = fn(*values())
    for h, f in zip(held, first, strict=True):
        np.testing.assert_array_equal(h, f)  # a later call never overwrites what we hold
    assert all(a is not h for a, h in zip(again, held, strict=True))


@pytest.mark.parametrize("wrt", range(4))
def test_gradient_matches_finite_differences(wrt):
    base = values(batch=5, n_in=4, hidden=3, n_out=2)

    def loss_of(p):
        args = [pt.constant(v) for v in base]
        args[2 + wrt] = p
        return mlp_loss(*args)

    verify_grad(loss_of, [base[2 + wrt]], mode=get_mode("FAST_RUN"), rng=np.random.default_rng(0))
