"""Scan with random variables inside the step, in every mode, against NumPy's Generator."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.autodiff.undefined import NullTypeGradError
from opgraph.scan.utils import ScanArgs
from opgraph.tensor.random.utils import RandomStream

MODES = ["FAST_COMPILE", "FAST_RUN", "C"]


@pytest.mark.parametrize("mode", MODES)
def test_a_random_walk_draws_anew_at_every_step(mode):
    srng = RandomStream(seed=5)
    walk, updates = opgraph.scan(lambda s: s + srng.normal(), outputs_info=pt.as_tensor(0.0),
                                 n_steps=6, return_updates=True)
    [rng_var] = list(updates)
    f = opgraph.function([], walk, updates=updates, mode=mode)
    # the generator the stream seeded, advanced once per step, in order
    ref = np.random.default_rng(rng_var.get_value(borrow=False))
    first = f()
    np.testing.assert_allclose(first, np.cumsum([ref.normal() for _ in range(6)]))
    second = f()  # the update carried the generator on: new draws
    np.testing.assert_allclose(second, np.cumsum([ref.normal() for _ in range(6)]))


def test_the_same_seed_gives_the_same_walk_in_every_mode():
    results = []
    for mode in MODES:
        srng = RandomStream(seed=9)
        walk, updates = opgraph.scan(lambda s, srng=srng: s * 0.5 + srng.uniform(), n_steps=5,
                                     outputs_info=pt.as_tensor(1.0), return_updates=True)
        results.append(opgraph.function([], walk, updates=updates, mode=mode)())
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0])


def test_scan_args_remove_with_dependents():
    x, y = pt.matrix("x"), pt.matrix("y")
    a, b = opgraph.scan(lambda xt, yt: (xt + 1.0, yt * 2.0), sequences=[x, y],
                        return_updates=False)
    args = ScanArgs.from_node(a.owner)
    y_t = args.inner_in_seqs[1]
    removed = [v for v, _ in args.remove_from_fields(y_t, rm_dependents=True)]
    assert y_t in removed and b in removed
    assert len(args.outer_in_seqs) == 1 and len(args.inner_out_nit_sot) == 1
    assert len(args.outer_in_nit_sot) == 1
    node = args.make_node()
    f = opgraph.function([x, y], node.outputs[0], mode="FAST_COMPILE")  # n_steps reads y
    xv = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(f(xv, xv), xv + 1.0)
    with pytest.raises(ValueError, match="not part of this Scan"):
        args.remove_from_fields(y_t)


def test_gradient_of_a_loop_that_also_draws():
    srng = RandomStream(seed=2)
    x, w = pt.vector("x"), pt.dscalar("w")

    def step(xt, h, w):
        return h * w + xt, srng.normal() + xt

    (h, noise), updates = opgraph.scan(step, sequences=x, outputs_info=[pt.as_tensor(0.0), None],
                                       non_sequences=w, return_updates=True)
    g = opgraph.grad(h[-1], w)  # the draws do not feed h: the gradient is exact
    f = opgraph.function([x, w], [g, noise], updates=updates, mode="FAST_RUN")
    got, draws = f(np.ones(3), 2.0)
    np.testing.assert_allclose(got, 2 * 2.0 + 1.0)  # h3 = w**2 + w + 1
    assert draws.shape == (3,)
    # the draws are constants to the gradient: noise = draw + x gives ones
    f2 = opgraph.function([x, w], opgraph.grad(noise.sum(), x), updates=updates)
    np.testing.assert_allclose(f2(np.ones(3), 2.0), np.ones(3))


def _rnn_cost(xv, Wv, h0v, epsv):
    h = h0v
    for t in range(len(xv)):
        h = np.tanh(Wv @ h + xv[t] + epsv[t])
    return h.sum()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("truncate", [-1, 2])
def test_gradient_through_draws_that_feed_a_recurrent_state(mode, truncate):
    # noise added to the state at every step: the backward pass replays the draws the
    # forward pass made (recorded as per-step outputs, read back as sequences)
    srng = RandomStream(seed=11)
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")

    def step(xt, h, W):
        eps = srng.normal(size=(3,))
        return pt.tanh(pt.dot(W, h) + xt + eps), eps

    (h, eps), updates = opgraph.scan(step, sequences=x, outputs_info=[h0, None],
                                     non_sequences=W, truncate_gradient=truncate,
                                     return_updates=True)
    cost = h[-1].sum()
    gW, gx = opgraph.grad(cost, [W, x])
    f = opgraph.function([x, W, h0], [cost, gW, gx, eps], updates=updates, mode=mode)
    rng = np.random.default_rng(3)
    xv, Wv, h0v = rng.normal(size=(5, 3)), rng.normal(size=(3, 3)) / 2, rng.normal(size=3)
    c, gWv, gxv, epsv = f(xv, Wv, h0v)
    assert np.isclose(c, _rnn_cost(xv, Wv, h0v, epsv))  # eps: the draws this call made
    if truncate == -1:  # finite differences of the cost with those draws held fixed
        num = np.zeros_like(Wv)
        for idx in np.ndindex(Wv.shape):
            d = np.zeros_like(Wv)
            d[idx] = 1e-6
            num[idx] = (_rnn_cost(xv, Wv + d, h0v, epsv)
                        - _rnn_cost(xv, Wv - d, h0v, epsv)) / 2e-6
        np.testing.assert_allclose(gWv, num, rtol=1e-5, atol=1e-8)
        d = np.zeros_like(xv)
        d[1, 2] = 1e-6
        num_x = (_rnn_cost(xv + d, Wv, h0v, epsv) - _rnn_cost(xv - d, Wv, h0v, epsv)) / 2e-6
        np.testing.assert_allclose(gxv[1, 2], num_x, rtol=1e-5)
    else:  # only the last two steps send gradient back to x
        np.testing.assert_allclose(gxv[:3], 0.0)
        assert np.any(gxv[3:] != 0)
    # a new call draws anew (the generator's update was applied)
    assert not np.allclose(f(xv, Wv, h0v)[3], epsv)


def test_draws_whose_parameters_depend_on_the_loop_have_no_gradient():
    srng = RandomStream(seed=1)
    w = pt.dscalar("w")

    def step(h, w):
        return h * w + srng.normal(0.0, pt.abs(h) + 1.0)

    h, _ = opgraph.scan(step, outputs_info=pt.as_tensor(1.0), non_sequences=w, n_steps=3,
                        return_updates=True)
    with pytest.raises(NullTypeGradError, match="no gradient with respect to their param"):
        opgraph.grad(h[-1], w)


def _rng_walk(rng, steps):
    """A scan whose untraced state is the generator itself (PyMC's AR/GRW shape)."""
    def step(x, r):
        nxt_r, draw = pt.random.normal(0.0, 1.0, rng=r, return_next_rng=True)
        return x * 0.9 + draw, nxt_r

    (walk, last_rng) = opgraph.scan(step, outputs_info=[pt.as_tensor(0.0), rng],
                                    n_steps=steps, return_updates=False)
    return walk, last_rng


@pytest.mark.parametrize("mode", MODES)
def test_a_generator_state_is_advanced_in_place_inside_the_loop_only(mode):
    rng = pt.random.type.random_generator_type("rng")
    walk, last_rng = _rng_walk(rng, 7)
    f = opgraph.function([rng], [walk, last_rng], mode=mode)
    given = np.random.default_rng(11)
    before = given.bit_generator.state
    values, after = f(given)
    # the caller's generator is not advanced; the draws are those of a copy of it
    assert given.bit_generator.state == before
    ref = np.random.default_rng(11)
    expect, x = [], 0.0
    for _ in range(7):
        x = x * 0.9 + ref.normal(0.0, 1.0)
        expect.append(x)
    np.testing.assert_allclose(values, expect, rtol=1e-12)
    assert after.bit_generator.state == ref.bit_generator.state
    assert after is not given


def test_the_inner_draw_does_not_copy_the_generator_at_every_step():
    from opgraph.scan.op import Scan
    from opgraph.tensor.random.op import RandomVariable

    rng = pt.random.type.random_generator_type("rng")
    walk, last_rng = _rng_walk(rng, 3)
    f = opgraph.function([rng], [walk, last_rng], mode="FAST_RUN")
    [scan_node] = [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, Scan)]
    inner = scan_node.op.fn.maker.fgraph.apply_nodes
    rvs = [n.op for n in inner if isinstance(n.op, RandomVariable)]
    assert rvs and all(op.inplace for op in rvs)


@pytest.mark.parametrize("mode", ["FAST_RUN", "C"])
def test_two_generator_states_given_one_generator_draw_alike(mode):
    """Both states get the first draw's next generator: at the next step both draw the
    same number (the inner function copies one of two aliased mutable arguments, so
    in-place draws never advance one object twice)."""
    r1 = pt.random.type.random_generator_type("r1")
    r2 = pt.random.type.random_generator_type("r2")

    def step(a, b):
        n1, d1 = pt.random.normal(0.0, 1.0, rng=a, return_next_rng=True)
        _, d2 = pt.random.normal(0.0, 1.0, rng=b, return_next_rng=True)
        return [n1, n1, d1, d2]

    outs = opgraph.scan(step, outputs_info=[r1, r2, None, None], n_steps=3,
                        return_updates=False)
    f = opgraph.function([r1, r2], outs[2:], mode=mode)
    d1, d2 = f(np.random.default_rng(1), np.random.default_rng(2))
    np.testing.assert_array_equal(d1[1:], d2[1:])
    assert d1[0] != d2[0]
