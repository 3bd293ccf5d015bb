"""The quick PyMC guard of the default ``nox`` run (session ``pymc-quick``).

PyMC 6 runs unchanged on opgraph through the ``opgraph-pytensor`` layer: import,
logp/dlogp of a hierarchical model (against SciPy), find_MAP and a short NUTS
run of a conjugate model (against the closed form), and prior predictive draws.
"""

from __future__ import annotations

import numpy as np
import pytest

pm = pytest.importorskip("pymc")
stats = pytest.importorskip("scipy.stats")

import pytensor  # noqa: E402

import opgraph  # noqa: E402

Y = np.array([28.0, 8, -3, 7, -1, 1, 18, 12])
SIGMA = np.array([15.0, 10, 16, 11, 9, 11, 10, 18])


def test_pymc_runs_on_opgraph() -> None:
    assert pytensor is opgraph


def hierarchical() -> pm.Model:
    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfNormal("tau", 5)
        theta = pm.Normal("theta", mu, tau, shape=8)
        pm.Normal("obs", theta, SIGMA, observed=Y)
    return model


def reference_logp(mu: float, log_tau: float, theta: np.ndarray) -> float:
    tau = np.exp(log_tau)
    return (stats.norm.logpdf(mu, 0, 5) + stats.halfnorm.logpdf(tau, scale=5) + log_tau
            + stats.norm.logpdf(theta, mu, tau).sum() + stats.norm.logpdf(Y, theta, SIGMA).sum())


def test_hierarchical_logp_and_dlogp_match_scipy() -> None:
    model = hierarchical()
    theta = np.linspace(-2, 3, 8)
    point = {"mu": 1.3, "tau_log__": 0.4, "theta": theta}
    logp = model.compile_logp()(point)
    assert logp == pytest.approx(reference_logp(1.3, 0.4, theta), rel=1e-12)
    grad = model.compile_dlogp()(point)  # ordered as model.value_vars: mu, tau_log__, theta
    flat = np.concatenate([[1.3, 0.4], theta])

    def f(v: np.ndarray) -> float:
        return reference_logp(v[0], v[1], v[2:])

    eps = 1e-6
    numeric = [(f(flat + eps * e) - f(flat - eps * e)) / (2 * eps) for e in np.eye(len(flat))]
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-6)


def conjugate() -> pm.Model:
    with pm.Model() as model:
        m = pm.Normal("m", 0, 10)
        pm.Normal("y", m, 2.0, observed=Y)
    return model


def conjugate_posterior() -> tuple[float, float]:
    precision = 1 / 10**2 + len(Y) / 2.0**2
    return (Y.sum() / 2.0**2) / precision, precision**-0.5


def test_find_map_is_the_posterior_mode() -> None:
    found = pm.find_MAP(model=conjugate(), progressbar=False)
    assert found["m"] == pytest.approx(conjugate_posterior()[0], rel=1e-6)


def test_short_nuts_run_recovers_the_posterior() -> None:
    with conjugate():
        idata = pm.sample(draws=300, tune=200, chains=1, cores=1, random_seed=2,
                          progressbar=False, compute_convergence_checks=False)
    draws = np.asarray(idata.posterior["m"]).ravel()
    mean, sd = conjugate_posterior()
    assert abs(draws.mean() - mean) < 5 * sd / np.sqrt(len(draws) / 4)
    assert draws.std() == pytest.approx(sd, rel=0.25)


def test_prior_predictive_draws_follow_the_prior() -> None:
    with hierarchical():
        prior = pm.sample_prior_predictive(draws=2000, random_seed=3)
    mu = np.asarray(prior.prior["mu"]).ravel()
    assert abs(mu.mean()) < 5 * 5 / np.sqrt(2000)
    assert mu.std() == pytest.approx(5, rel=0.1)
    obs = np.asarray(prior.prior_predictive["obs"])
    assert obs.shape[-1] == 8 and np.isfinite(obs).all()
