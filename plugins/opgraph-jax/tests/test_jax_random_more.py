"""The samplers JAX lacks (written in the plugin): moments against NumPy/SciPy, choice layouts."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from opgraph.link.jax.dispatch import JAXUnsupportedOpError
from scipy import stats

import opgraph
import opgraph.tensor as pt
from opgraph.tensor.random.basic import ChoiceWithoutReplacement

N = 20_000


def _draw(out: object, inputs: list | None = None, *values: object) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the shared Generator is copied
        f = opgraph.function(inputs or [], out, mode="JAX")
    return np.asarray(f(*values))


def _rng(seed: int = 3) -> object:
    return opgraph.shared(np.random.default_rng(seed))


def test_choice_without_replacement_unweighted_and_weighted() -> None:
    draws = _draw(pt.random.choice(np.arange(100), replace=False, size=(2, 49), rng=_rng()))
    assert draws.shape == (2, 49) and np.unique(draws).size == 98
    p = np.array([0.25, 0, 0.25, 0, 0.25, 0, 0.25, 0])
    draws = _draw(pt.random.choice(8, p=p, size=3, replace=False, rng=_rng()))
    assert draws.shape == (3,) and np.unique(draws).size == 3 and np.all(draws % 2 == 0)


def test_choice_without_replacement_batched_population_and_size() -> None:
    op = ChoiceWithoutReplacement(signature="(a0,a1),(2)->(s0,s1,a1)", dtype="int64")
    a = np.arange(30).reshape(3, 5, 2)
    draws = _draw(op(a, (4, 1), size=(2, 3), rng=_rng()))
    assert draws.shape == (2, 3, 4, 1, 2)
    for j in range(2):
        for i in range(3):
            rows = draws[j, i].reshape(4, 2)
            assert np.unique(rows).size == 8  # whole rows of a[i], none twice
            assert all(any((row == r).all() for r in a[i]) for row in rows)


def test_choice_without_replacement_implicit_arange_with_batched_p() -> None:
    op = ChoiceWithoutReplacement(signature="(),(a),(2)->(s0,s1)", dtype="int64")
    p = np.array([[1 / 3, 0, 1 / 3, 0, 1 / 3, 0], [0, 1 / 3, 0, 1 / 3, 0, 1 / 3]])
    draws = _draw(op(6, p, (3, 1), rng=_rng()))
    assert draws.shape == (2, 3, 1)
    assert set(draws[0].ravel()) == {0, 2, 4} and set(draws[1].ravel()) == {1, 3, 5}


def test_choice_without_replacement_needs_a_known_population() -> None:
    n = pt.lscalar("n")
    out = pt.random.choice(n + 0, size=(2,), replace=False, rng=_rng())
    with pytest.raises(JAXUnsupportedOpError, match="population size"):
        _draw(out, [n], 5)


def test_vonmises_against_numpy_including_tiny_and_huge_kappa() -> None:
    mu, kappa = np.array([-30.0, 40.0, 0.5, 0.5]), np.array([100.0, 10.0, 1e-9, 1e7])
    got = _draw(pt.random.vonmises(mu, kappa, size=(N, 4), rng=_rng()))
    want = np.random.default_rng(0).vonmises(mu, kappa, size=(N, 4))
    assert np.all((got >= -np.pi) & (got <= np.pi))
    peaked = [0, 1, 3]  # kappa ~ 0 is uniform on the circle: no mean direction
    np.testing.assert_allclose(np.angle(np.exp(1j * got[:, peaked]).mean(0)),
                               np.angle(np.exp(1j * want[:, peaked]).mean(0)), atol=0.05)
    np.testing.assert_allclose(np.abs(np.exp(1j * got).mean(0)),  # 1 - circular variance
                               np.abs(np.exp(1j * want).mean(0)), atol=0.02)


def test_hypergeometric_betabinom_truncexpon_rayleigh_moments() -> None:
    good, bad, k = np.array([10, 40]), np.array([5, 3]), np.array([7, 20])
    got = _draw(pt.random.hypergeometric(good, bad, k, size=(N, 2), rng=_rng()))
    ref = stats.hypergeom(good + bad, good, k)
    assert got.dtype == np.int64 and np.all((got >= 0) & (got <= k))
    np.testing.assert_allclose(got.mean(0), ref.mean(), rtol=0.02)
    np.testing.assert_allclose(got.std(0), ref.std(), rtol=0.05)

    n, a, b = np.array([10, 40]), np.array([1.5, 13.0]), np.array([0.5, 9.0])
    got = _draw(pt.random.betabinom(n, a, b, size=(N, 2), rng=_rng()))
    np.testing.assert_allclose(got.mean(0), stats.betabinom(n, a, b).mean(), rtol=0.03)
    np.testing.assert_allclose(got.std(0), stats.betabinom(n, a, b).std(), rtol=0.05)

    b_cut = np.array([0.5, 3.0])
    got = _draw(pt.random.truncexpon(b_cut, 1.0, 2.0, size=(N, 2), rng=_rng()))
    assert np.all((got >= 1.0) & (got <= 1.0 + 2.0 * b_cut))
    np.testing.assert_allclose(got.mean(0), stats.truncexpon(b_cut, 1.0, 2.0).mean(), rtol=0.02)

    got = _draw(pt.random.rayleigh(2.0, size=(N,), rng=_rng()))
    np.testing.assert_allclose([got.mean(), got.std()],
                               [stats.rayleigh(scale=2).mean(), stats.rayleigh(scale=2).std()],
                               rtol=0.03)
