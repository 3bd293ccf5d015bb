"""``pymc.dims`` on opgraph: a model written with named dims equals the same model without.

PyMC 6's ``pymc.dims`` builds its distributions on ``pytensor.xtensor`` (opgraph's
``opgraph.xtensor``, the opgraph-xtensor plugin); the logp graph is lowered to
tensors by ``lower_xtensor``.  Checked: logp and dlogp of eight schools written
with dims against the plain model (and SciPy), NUTS means of both models within
Monte Carlo error, and, with numpyro installed, the same through opgraph-jax.

As a script it prints the values, to compare with PyTensor 3.0.7 itself::

    python tests/pymc/test_dims.py                          # opgraph
    OPGRAPH_AS_PYTENSOR=0 python tests/pymc/test_dims.py    # PyTensor
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import numpy as np
import pytest

pm = pytest.importorskip("pymc")
pmd = pytest.importorskip("pymc.dims")
stats = pytest.importorskip("scipy.stats")

import pytensor  # noqa: E402

Y = np.array([28.0, 8, -3, 7, -1, 1, 18, 12])
SIGMA = np.array([15.0, 10, 16, 11, 9, 11, 10, 18])
COORDS = {"school": [f"s{i}" for i in range(8)]}
POINT = {"mu": 1.3, "tau_log__": 0.4, "z": np.linspace(-1.0, 1.0, 8)}


def with_dims() -> pm.Model:
    with pm.Model(coords=COORDS) as model:
        mu = pmd.Normal("mu", 0, 5)
        tau = pmd.HalfCauchy("tau", 5)
        z = pmd.Normal("z", 0, 1, dims="school")
        theta = pmd.Deterministic("theta", mu + tau * z)
        sigma = pmd.Data("sigma", SIGMA, dims="school")
        pmd.Normal("obs", theta, sigma, observed=pmd.as_xtensor(Y, dims=("school",)),
                   dims="school")
    return model


def without_dims() -> pm.Model:
    with pm.Model(coords=COORDS) as model:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        z = pm.Normal("z", 0, 1, dims="school")
        pm.Deterministic("theta", mu + tau * z, dims="school")
        pm.Normal("obs", mu + tau * z, SIGMA, observed=Y, dims="school")
    return model


def _scipy_logp() -> float:
    mu, log_tau, z = POINT["mu"], POINT["tau_log__"], POINT["z"]
    tau = np.exp(log_tau)
    return float(stats.norm.logpdf(mu, 0, 5) + stats.halfcauchy.logpdf(tau, scale=5) + log_tau
                 + stats.norm.logpdf(z).sum() + stats.norm.logpdf(Y, mu + tau * z, SIGMA).sum())


def _sample(model: pm.Model, **kwargs: Any) -> dict[str, np.ndarray]:
    with model:
        idata = pm.sample(draws=1000, tune=1000, chains=2, random_seed=1, progressbar=False,
                          compute_convergence_checks=False, **kwargs)
    return {name: np.asarray(idata.posterior[name]).reshape(-1, *idata.posterior[name].shape[2:])
            for name in ("mu", "tau", "theta")}


def _agree(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    for name in a:
        # a conservative MC error of each mean: sd / sqrt(n / 10) (autocorrelated draws)
        err = np.hypot(a[name].std(0), b[name].std(0)) / np.sqrt(len(a[name]) / 10)
        assert np.all(np.abs(a[name].mean(0) - b[name].mean(0)) < 4 * err), name


def test_dims_model_logp_and_dlogp_equal_the_plain_model() -> None:
    dims, plain = with_dims(), without_dims()
    assert [v.name for v in dims.value_vars] == [v.name for v in plain.value_vars]
    logp = float(dims.compile_logp()(POINT))
    assert logp == pytest.approx(float(plain.compile_logp()(POINT)), rel=1e-13)
    assert logp == pytest.approx(_scipy_logp(), rel=1e-8)  # PyTensor itself: 1.3e-9 off
    np.testing.assert_allclose(dims.compile_dlogp()(POINT), plain.compile_dlogp()(POINT),
                               rtol=1e-12, atol=1e-14)


def test_dims_model_nuts_agrees_with_the_plain_model() -> None:
    _agree(_sample(with_dims(), cores=1), _sample(without_dims(), cores=1))


@pytest.mark.skipif(importlib.util.find_spec("numpyro") is None, reason="needs numpyro")
def test_dims_model_through_numpyro_agrees_with_pymc_nuts() -> None:
    """PyMC's JAX path swaps shared data for constants with ``clone_replace``, which
    rebuilds strictly: the tensor constant is converted to the xtensor it replaces."""
    _agree(_sample(with_dims(), nuts_sampler="numpyro"), _sample(with_dims(), cores=1))


def main() -> int:
    print(f"backend: {pytensor.__name__}")
    for build in (with_dims, without_dims):
        model = build()
        print(f"{build.__name__}: logp {float(model.compile_logp()(POINT))!r} "
              f"dlogp {np.asarray(model.compile_dlogp()(POINT)).round(12).tolist()}")
        draws = _sample(model, cores=1)
        print("  NUTS means", {k: np.round(v.mean(0), 3).tolist() for k, v in draws.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
