"""The quick PyMC guard of the default ``nox`` run (session ``pymc-quick``).

PyMC 6 runs unchanged on opgraph through the ``opgraph-pytensor`` layer: import,
logp/dlogp of a hierarchical model (against SciPy), find_MAP and a short NUTS
run of a conjugate model (against the closed form), prior predictive draws, and
three models that needed PyTensor's behaviour: CAR with a sparse W, the
find_constrained_prior gradient at a bound, LKJCholeskyCov.
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


def test_car_with_a_sparse_w_matches_the_dense_w() -> None:
    """CAR with a scipy.sparse W (PyMC's sparse path) gives the logp and gradient of the
    same model with the dense W, which changes with phi as the quadratic form says."""
    sps = pytest.importorskip("scipy.sparse")
    w = np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]], dtype=float)
    phi = np.array([0.3, -0.2, 0.5, 0.1])
    values = []
    for weights in (sps.csr_matrix(w), w):
        with pm.Model() as model:
            pm.CAR("phi", mu=np.zeros(4), W=weights, alpha=0.5, tau=2.0)
        values.append((model.compile_logp()({"phi": phi}), model.compile_dlogp()({"phi": phi}),
                       model.compile_logp()({"phi": 2 * phi})))
    (sparse_logp, sparse_grad, sparse_2), (dense_logp, dense_grad, _) = values
    assert sparse_logp == pytest.approx(dense_logp, rel=1e-12)
    np.testing.assert_allclose(sparse_grad, dense_grad, rtol=1e-12)
    quad = 0.5 * phi @ (2.0 * (np.diag(w.sum(1)) - 0.5 * w)) @ phi
    assert sparse_logp - sparse_2 == pytest.approx(3 * quad, rel=1e-10)


def test_constrained_prior_gradient_at_the_bound_is_zero() -> None:
    """find_constrained_prior differentiates exp(logcdf(0))**2 where logcdf is -inf."""
    lam = pytensor.tensor.dvector("lam")
    term = pm.math.exp(pm.logcdf(pm.Exponential.dist(lam=lam[0]), 0.0)) ** 2
    grad = pm.pytensorf.compile([lam], pytensor.grad(term, lam))(np.array([1.3]))
    assert grad.tolist() == [0.0]
    found = pm.find_constrained_prior(pm.HalfNormal, lower=0.0, upper=1.0, mass=0.75,
                                      init_guess={"sigma": 1.0})
    assert stats.halfnorm.cdf(1.0, scale=found["sigma"]) == pytest.approx(0.75, abs=1e-5)


def test_lkj_cholesky_cov_builds_and_differentiates() -> None:
    with pm.Model() as model:
        chol, _, _ = pm.LKJCholeskyCov("chol", n=3, eta=2.0,
                                       sd_dist=pm.Exponential.dist(1.0, shape=3))
        pm.MvNormal("x", mu=np.zeros(3), chol=chol, observed=np.eye(3))
    point = model.initial_point()
    assert np.isfinite(model.compile_logp()(point))
    assert np.isfinite(model.compile_dlogp()(point)).all()


def _ar_dist(init: list[float], steps: int):
    """A CustomDist ``dist``: an AR process drawn through scan (taps -len(init)..-1)."""
    taps = list(range(-len(init), 0))

    def dist(rho, sigma, size):
        rng = pytensor.shared(np.random.default_rng())

        def step(*args):
            *past, rng, rho, sigma = args
            mu = sum(rho[k] * x for k, x in enumerate(past))
            next_rng, x = pm.Normal.dist(mu, sigma, rng=rng, return_next_rng=True)
            return x, next_rng

        start = pytensor.tensor.as_tensor(np.array(init))
        xs = pytensor.scan(step, outputs_info=[{"initial": start if len(init) > 1 else start[0],
                                                "taps": taps}, rng],
                           non_sequences=[rho, sigma], n_steps=steps, strict=True,
                           return_updates=False)[0]
        return xs

    return dist


@pytest.mark.parametrize("init", [[0.0], [0.5, -0.25]], ids=["ar1-sit-sot", "ar2-mit-sot"])
def test_custom_dist_with_scan_logp_matches_scipy(init: list[float]) -> None:
    """PyMC derives the logp of a CustomDist drawn through scan (its measurable-scan rewrite)."""
    data = np.sin(np.linspace(0, 3, 10))
    order = len(init)
    with pm.Model() as model:
        rho = pm.Normal("rho", 0, 1, shape=order)
        pm.CustomDist("ar", rho, 0.7, dist=_ar_dist(init, len(data)), observed=data)
    full = np.concatenate([init, data])
    past = np.stack([full[k:k + len(data)] for k in range(order)])  # oldest tap first

    def reference(r: np.ndarray) -> float:
        return float(stats.norm.logpdf(r, 0, 1).sum()
                     + stats.norm.logpdf(data, r @ past, 0.7).sum())

    r = np.linspace(0.3, -0.2, order)
    assert model.compile_logp()({"rho": r}) == pytest.approx(reference(r), rel=1e-12)
    analytic = -r + past @ (data - r @ past) / 0.49
    np.testing.assert_allclose(model.compile_dlogp()({"rho": r}), analytic, rtol=1e-10)
    with model:
        prior = pm.sample_prior_predictive(draws=5, random_seed=3)
    draws = np.asarray(prior.prior_predictive["ar"])
    assert draws.shape == (1, 5, len(data)) and np.isfinite(draws).all()
    assert len({tuple(d) for d in draws[0]}) == 5  # the generator advances per draw
