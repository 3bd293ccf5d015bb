"""Every distribution against NumPy/SciPy seeded with the same generator.

Evaluated node by node with ``perform`` (tests/tensor/helpers.evaluate), so
no linker plugin is needed; tests/integration/test_random.py covers modes.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as stats
from scipy.special import gamma as gamma_fn

import opgraph.tensor as pt
from opgraph.compile.sharedvalue import shared
from opgraph.tensor.random import basic as rb

from ..helpers import evaluate

SEED = 20261124


def draw(rv_fn, *args, seed=SEED, **kwargs):
    """Build ``rv_fn(*args, rng=shared generator)`` and evaluate it once."""
    rng = shared(np.random.default_rng(seed))
    out = rv_fn(*args, rng=rng, **kwargs)
    return out, evaluate(out, {rng: np.random.default_rng(seed)})


def gen(seed=SEED):
    return np.random.default_rng(seed)


# (opgraph distribution, its args, how NumPy/SciPy draws the same thing)
CASES = [
    (rb.normal, (1.0, 2.0), lambda r, s: r.normal(1.0, 2.0, size=s)),
    (rb.uniform, (-1.0, 3.0), lambda r, s: r.uniform(-1.0, 3.0, size=s)),
    (rb.triangular, (0.0, 1.0, 4.0), lambda r, s: r.triangular(0.0, 1.0, 4.0, size=s)),
    (rb.beta, (2.0, 3.0), lambda r, s: r.beta(2.0, 3.0, size=s)),
    (rb.lognormal, (0.5, 0.3), lambda r, s: r.lognormal(0.5, 0.3, size=s)),
    (rb._gamma, (2.0, 0.5), lambda r, s: r.gamma(2.0, 0.5, size=s)),
    (rb.exponential, (3.0,), lambda r, s: r.exponential(3.0, size=s)),
    (rb.weibull, (1.5,), lambda r, s: r.weibull(1.5, size=s)),
    (rb.logistic, (1.0, 2.0), lambda r, s: r.logistic(1.0, 2.0, size=s)),
    (rb.vonmises, (0.5, 2.0), lambda r, s: r.vonmises(0.5, 2.0, size=s)),
    (rb.wald, (1.0, 2.0), lambda r, s: r.wald(1.0, 2.0, size=s)),
    (rb.laplace, (1.0, 2.0), lambda r, s: r.laplace(1.0, 2.0, size=s)),
    (rb.binomial, (10, 0.3), lambda r, s: r.binomial(10, 0.3, size=s)),
    (rb.poisson, (4.0,), lambda r, s: r.poisson(4.0, size=s)),
    (rb.geometric, (0.2,), lambda r, s: r.geometric(0.2, size=s)),
    (rb.hypergeometric, (7, 5, 4), lambda r, s: r.hypergeometric(7, 5, 4, size=s)),
    (rb.integers, (3, 9), lambda r, s: r.integers(3, 9, size=s)),
    (rb.halfnormal, (1.0, 2.0),
     lambda r, s: stats.halfnorm.rvs(1.0, 2.0, size=s, random_state=r)),
    (rb.chisquare, (3.0,), lambda r, s: stats.chi2.rvs(3.0, size=s, random_state=r)),
    (rb.rayleigh, (2.0,), lambda r, s: stats.rayleigh.rvs(scale=2.0, size=s, random_state=r)),
    (rb.pareto, (3.0, 2.0),
     lambda r, s: stats.pareto.rvs(3.0, scale=2.0, size=s, random_state=r)),
    (rb.gumbel, (1.0, 2.0), lambda r, s: stats.gumbel_r.rvs(1.0, 2.0, size=s, random_state=r)),
    (rb.cauchy, (1.0, 2.0), lambda r, s: stats.cauchy.rvs(1.0, 2.0, size=s, random_state=r)),
    (rb.halfcauchy, (1.0, 2.0),
     lambda r, s: stats.halfcauchy.rvs(1.0, 2.0, size=s, random_state=r)),
    # PyTensor 3.0.7's draw (1 / gamma(alpha, 1 / beta)), not SciPy's invgamma.rvs
    (rb.invgamma, (3.0, 2.0), lambda r, s: 1 / r.gamma(3.0, 1 / 2.0, size=s)),
    (rb.truncexpon, (2.0, 1.0, 3.0),
     lambda r, s: stats.truncexpon.rvs(2.0, 1.0, 3.0, size=s, random_state=r)),
    (rb.t, (4.0, 1.0, 2.0), lambda r, s: stats.t.rvs(4.0, 1.0, 2.0, size=s, random_state=r)),
    (rb.bernoulli, (0.3,), lambda r, s: stats.bernoulli.rvs(0.3, size=s, random_state=r)),
    (rb.nbinom, (5, 0.4), lambda r, s: stats.nbinom.rvs(5, 0.4, size=s, random_state=r)),
    (rb.betabinom, (10, 2.0, 3.0),
     lambda r, s: stats.betabinom.rvs(10, 2.0, 3.0, size=s, random_state=r)),
]


@pytest.mark.parametrize("size", [None, (), (3,), (2, 3)])
@pytest.mark.parametrize("dist, args, ref", CASES, ids=[c[0].name for c in CASES])
def test_scalar_distributions_match_numpy_and_scipy(dist, args, ref, size):
    out, value = draw(dist, *args, size=size)
    expected = np.asarray(ref(gen(), size))
    assert value.shape == expected.shape == tuple(out.type.shape)
    assert value.dtype == out.type.numpy_dtype
    assert value.dtype.kind == expected.dtype.kind
    np.testing.assert_allclose(value, expected)
    assert value.flags.writeable


def test_parameters_broadcast_like_numpy():
    loc = np.arange(3.0)
    scale = np.array([[1.0], [2.0]])
    out, value = draw(rb.normal, loc, scale)
    assert out.type.shape == (2, 3)
    np.testing.assert_allclose(value, gen().normal(loc, scale))
    out, value = draw(rb.normal, loc, scale, size=(4, 2, 3))
    np.testing.assert_allclose(value, gen().normal(loc, scale, size=(4, 2, 3)))


def test_symbolic_parameters_and_size():
    mu = pt.dvector("mu")
    n = pt.iscalar("n")
    rng = shared(np.random.default_rng(SEED))
    out = rb.normal(mu, 1.0, size=(n, 3), rng=rng)
    assert out.type.shape == (None, 3)
    mu_val = np.array([0.0, 10.0, 20.0])
    value = evaluate(out, {rng: gen(), mu: mu_val, n: 2})
    np.testing.assert_allclose(value, gen().normal(mu_val, 1.0, size=(2, 3)))


def test_multivariate_normal_matches_numpy_per_batch():
    mean = np.array([[0.0, 1.0], [10.0, 11.0]])
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    out, value = draw(rb.multivariate_normal, mean, cov, size=(3, 2))
    assert out.type.shape == (3, 2, 2)
    ref = gen()
    expected = [[ref.multivariate_normal(mean[j], cov, method="cholesky") for j in range(2)]
                for _ in range(3)]
    np.testing.assert_allclose(value, np.array(expected))
    _, value = draw(rb.multivariate_normal, mean[0], cov, method="svd")
    np.testing.assert_allclose(value, gen().multivariate_normal(mean[0], cov, method="svd"))


def test_dirichlet_and_multinomial_match_numpy():
    alphas = np.array([[1.0, 2.0, 3.0], [10.0, 1.0, 1.0]])
    out, value = draw(rb.dirichlet, alphas)
    assert out.type.shape == (2, 3)
    ref = gen()
    np.testing.assert_allclose(value, [ref.dirichlet(alphas[0]), ref.dirichlet(alphas[1])])
    p = np.array([0.2, 0.3, 0.5])
    out, value = draw(rb.multinomial, np.array([5, 50]), p)
    assert out.type.shape == (2, 3) and value.dtype == np.int64
    ref = gen()
    np.testing.assert_array_equal(value, [ref.multinomial(5, p), ref.multinomial(50, p)])


def test_categorical_and_choice_with_p_follow_the_cdf_like_numpy():
    p = np.array([0.1, 0.6, 0.3])
    _, value = draw(rb.categorical, p, size=(50,))
    np.testing.assert_array_equal(value, gen().choice(3, size=50, p=p))
    _, value = draw(rb.choice, np.array([10, 20, 30]), 50, p=p)
    np.testing.assert_array_equal(value, gen().choice([10, 20, 30], size=50, p=p))


def test_choice_and_permutation_match_numpy():
    a = np.array([4.0, 5.0, 6.0, 7.0])
    _, value = draw(rb.choice, a, (2, 3))
    np.testing.assert_array_equal(value, gen().choice(a, size=(2, 3)))
    out, value = draw(rb.choice, a, 3, replace=False)
    assert out.type.shape == (3,)
    np.testing.assert_array_equal(value, gen().choice(a, size=3, replace=False))
    _, value = draw(rb.choice, 6, 4, replace=False, p=np.full(6, 1 / 6))
    np.testing.assert_array_equal(value, gen().choice(6, 4, replace=False, p=np.full(6, 1 / 6)))
    out, value = draw(rb.permutation, 5)
    assert out.type.shape == (5,) and out.type.dtype == "int64"
    np.testing.assert_array_equal(value, gen().permutation(5))
    m = np.arange(6).reshape(3, 2)
    _, value = draw(rb.permutation, m)
    np.testing.assert_array_equal(value, gen().permutation(m))


def test_standard_normal_and_gamma_helpers():
    _, value = draw(rb.standard_normal, size=(4,))
    np.testing.assert_allclose(value, gen().standard_normal(4))
    _, value = draw(rb.gamma, 3.0, scale=0.5, size=(4,))
    np.testing.assert_allclose(value, gen().gamma(3.0, 0.5, size=4))
    with pytest.warns(FutureWarning, match="rate argument is deprecated"):
        out = rb.gamma(3.0, 2.0)
    np.testing.assert_allclose(evaluate(out.owner.inputs[-1]), 0.5)
    with pytest.raises(ValueError, match="Must specify scale"):
        rb.gamma(3.0)
    with pytest.raises(ValueError, match="Cannot specify both rate and scale"):
        rb.gamma(3.0, rate=1.0, scale=1.0)


def test_gengamma_has_the_generalised_gamma_moments():
    _, value = draw(rb.gengamma, 2.0, 1.5, 3.0, size=(200_000,))
    alpha, p, lambd = 2.0, 1.5, 3.0
    mean = lambd * gamma_fn((alpha + 1) / p) / gamma_fn(alpha / p)
    np.testing.assert_allclose(value.mean(), mean, rtol=0.01)


def test_uniform_with_a_nan_or_infinite_bound_draws_nan_not_overflow():
    """PyMC's Truncated draws pass ``cdf(inf)`` (NaN for a StudentT) as a bound: NaN draws,
    as PyTensor's default backend gives (NumPy raises OverflowError); finite bounds draw
    NumPy's values, and a NaN column keeps the others' values and stream."""
    low, high = np.array([0.0, 1.0]), np.array([2.0, np.nan])
    _, got = draw(rb.uniform, low, high, size=(3, 2))
    want = gen().uniform(low, np.array([2.0, 3.0]), size=(3, 2))
    np.testing.assert_array_equal(got[:, 0], want[:, 0])
    assert np.all(np.isnan(got[:, 1]))
    np.testing.assert_array_equal(draw(rb.uniform, low, np.array([2.0, 3.0]), size=(3, 2))[1],
                                  want)
