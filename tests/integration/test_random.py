"""Random variables compiled in every mode: same seed, same draws; updates advance.

Runs with every plugin installed (linkers and the rewrite database).
"""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph import function, shared
from opgraph.tensor.random.basic import NormalRV
from opgraph.tensor.random.utils import RandomStream

MODES = ["FAST_COMPILE", "FAST_RUN", "C", "CVM"]


@pytest.mark.parametrize("mode", MODES)
def test_same_seed_same_draws_in_every_mode(mode):
    rng = shared(np.random.default_rng(11))
    mu = pt.dvector("mu")
    x = pt.random.normal(mu, 2.0, rng=rng)
    y = pt.random.poisson(3.0, size=(2, 2), rng=x.owner.outputs[0])
    f = function([mu], [x, y], updates={rng: y.owner.outputs[0]}, mode=mode)
    mu_val = np.array([0.0, 5.0, 10.0])
    ref = np.random.default_rng(11)
    for _ in range(3):  # successive calls continue the same stream
        xv, yv = f(mu_val)
        np.testing.assert_allclose(xv, ref.normal(mu_val, 2.0))
        np.testing.assert_array_equal(yv, ref.poisson(3.0, size=(2, 2)))


@pytest.mark.parametrize("mode", MODES)
def test_without_update_the_shared_generator_is_never_mutated(mode):
    gen = np.random.default_rng(5)
    rng = shared(gen, borrow=True)
    x = pt.random.uniform(size=(3,), rng=rng)
    f = function([], x, mode=mode)
    state = gen.bit_generator.state
    first = f()
    np.testing.assert_array_equal(first, f())
    assert gen.bit_generator.state == state
    np.testing.assert_allclose(first, np.random.default_rng(5).uniform(size=3))


@pytest.mark.parametrize("mode", ["FAST_RUN", "C", "CVM"])
def test_inplace_rewrite_only_where_the_generator_is_updated(mode):
    rng = shared(np.random.default_rng(2))
    x = pt.random.normal(size=(2,), rng=rng)
    updated = function([], x, updates={rng: x.owner.outputs[0]}, mode=mode)
    ops = [n.op for n in updated.maker.fgraph.apply_nodes if isinstance(n.op, NormalRV)]
    assert [op.inplace for op in ops] == [True]
    plain = function([], x, mode=mode)
    ops = [n.op for n in plain.maker.fgraph.apply_nodes if isinstance(n.op, NormalRV)]
    assert [op.inplace for op in ops] == [False]
    ref = np.random.default_rng(2)
    np.testing.assert_allclose(updated(), ref.normal(size=2))
    np.testing.assert_allclose(updated(), ref.normal(size=2))
    np.testing.assert_allclose(plain(), plain())


def test_implicit_generator_has_a_default_update():
    x = pt.random.normal(0, 1, size=(4,))
    rng = x.owner.inputs[0]
    assert rng.default_update is x.owner.outputs[0]
    f = function([], x)
    assert not np.allclose(f(), f())
    g = function([], x, no_default_updates=True)
    np.testing.assert_array_equal(g(), g())


def test_random_stream_end_to_end_and_reseeding():
    stream = RandomStream(seed=234)
    u = stream.uniform(0, 1, size=(2, 2))
    f = function([], u)
    (child,) = np.random.SeedSequence(234).spawn(1)
    ref = np.random.default_rng(child)
    np.testing.assert_allclose(f(), ref.uniform(0, 1, size=(2, 2)))
    np.testing.assert_allclose(f(), ref.uniform(0, 1, size=(2, 2)))
    stream.seed(234)
    ref = np.random.default_rng(child)
    np.testing.assert_allclose(f(), ref.uniform(0, 1, size=(2, 2)))
    nearly_zero = function([], u + u - 2 * u)
    np.testing.assert_allclose(nearly_zero(), 0.0, atol=1e-12)


def test_generator_as_an_explicit_input_and_output():
    rng_in = pt.random.type.random_generator_type("rng")
    next_rng, x = rng_in.normal(0, 1, size=(3,))
    f = function([rng_in], [next_rng, x])
    gen = np.random.default_rng(9)
    new_gen, xv = f(gen)
    np.testing.assert_allclose(xv, np.random.default_rng(9).normal(size=3))
    _, xv2 = f(new_gen)
    ref = np.random.default_rng(9)
    ref.normal(size=3)
    np.testing.assert_allclose(xv2, ref.normal(size=3))
