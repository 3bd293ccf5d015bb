"""PyMC's JAX samplers on opgraph: ``pm.sample(nuts_sampler="numpyro")`` through opgraph-jax.

PyMC translates the model's logp graph with ``pytensor.link.jax.dispatch.jax_funcify``
after ``pytensor.compile.mode.JAX.optimizer.rewrite(fgraph)``; with the
``opgraph-pytensor`` layer both are opgraph's (the opgraph-jax plugin).  Checked:
the jaxified logp and its JAX gradient against the model's compiled logp/dlogp
(C mode), numpyro's posterior against the closed form of a conjugate model, and
against PyMC's own NUTS on eight schools within Monte Carlo error.

Needs numpyro and opgraph-jax (skipped without them).  As a script it prints the
eight-schools posterior, to compare with PyTensor 3.0.7 itself::

    python tests/pymc/test_numpyro.py                          # opgraph
    OPGRAPH_AS_PYTENSOR=0 python tests/pymc/test_numpyro.py    # PyTensor
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

pm = pytest.importorskip("pymc")
pytest.importorskip("numpyro")
jax = pytest.importorskip("jax")

import pymc.sampling.jax as pm_jax  # noqa: E402
import pytensor  # noqa: E402

Y = np.array([28.0, 8, -3, 7, -1, 1, 18, 12])
SIGMA = np.array([15.0, 10, 16, 11, 9, 11, 10, 18])


def eight_schools() -> pm.Model:
    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        z = pm.Normal("z", 0, 1, shape=8)
        pm.Deterministic("theta", mu + tau * z)
        pm.Normal("obs", mu + tau * z, SIGMA, observed=Y)
    return model


def conjugate() -> pm.Model:
    with pm.Model() as model:
        m = pm.Normal("m", 0, 10)
        pm.Normal("y", m, 2.0, observed=Y)
    return model


def _numpyro(model: pm.Model, draws: int, seed: int) -> Any:
    with model:
        return pm.sample(draws=draws, tune=draws, chains=2, nuts_sampler="numpyro",
                         random_seed=seed, progressbar=False, compute_convergence_checks=False)


def _draws(idata: Any, name: str) -> np.ndarray:
    post = idata.posterior[name]
    return np.asarray(post).reshape(-1, *post.shape[2:])


def test_the_translation_is_opgraphs() -> None:
    if pytensor.__name__ != "opgraph":
        pytest.skip("the opgraph-pytensor layer is off")
    from opgraph.link.jax.dispatch import jax_funcify

    assert pm_jax.jax_funcify is jax_funcify


def test_jaxified_logp_and_gradient_match_the_compiled_model() -> None:
    model = eight_schools()
    logp_jax = pm_jax.get_jaxified_logp(model)  # PyMC: the default gives +logp
    logp_c, dlogp_c = model.compile_logp(), model.compile_dlogp()
    rng = np.random.default_rng(5)
    for _ in range(3):
        point = {"mu": rng.normal(), "tau_log__": rng.normal(), "z": rng.normal(size=8)}
        values = [point[v.name] for v in model.value_vars]
        assert float(logp_jax(values)) == pytest.approx(float(logp_c(point)), rel=1e-10)
        grads = jax.grad(lambda xs: logp_jax(xs))(values)
        flat = np.concatenate([np.ravel(g) for g in grads])
        np.testing.assert_allclose(flat, dlogp_c(point), rtol=1e-9, atol=1e-12)


def test_numpyro_recovers_a_conjugate_posterior() -> None:
    draws = _draws(_numpyro(conjugate(), 1000, seed=2), "m")
    precision = 1 / 10**2 + len(Y) / 2.0**2
    mean, sd = (Y.sum() / 2.0**2) / precision, precision**-0.5
    assert abs(draws.mean() - mean) < 5 * sd / np.sqrt(len(draws) / 4)
    assert draws.std() == pytest.approx(sd, rel=0.1)


def test_numpyro_agrees_with_pymc_nuts_on_eight_schools() -> None:
    got = _numpyro(eight_schools(), 1000, seed=1)
    with eight_schools():
        ref = pm.sample(draws=1000, tune=1000, chains=2, cores=1, random_seed=1,
                        progressbar=False, compute_convergence_checks=False)
    for name in ("mu", "tau", "theta"):
        a, b = _draws(got, name), _draws(ref, name)
        # a conservative MC error of each mean: sd / sqrt(n / 10) (autocorrelated draws)
        err = np.hypot(a.std(0) / np.sqrt(len(a) / 10), b.std(0) / np.sqrt(len(b) / 10))
        assert np.all(np.abs(a.mean(0) - b.mean(0)) < 4 * err), name


def main() -> int:
    idata = _numpyro(eight_schools(), 2000, seed=1)
    print(f"backend: {pytensor.__name__}")
    for name in ("mu", "tau", "theta"):
        d = _draws(idata, name)
        print(f"{name}: mean {np.round(d.mean(0), 3).tolist()} sd {np.round(d.std(0), 3).tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
