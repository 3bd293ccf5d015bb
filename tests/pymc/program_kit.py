"""The registry and helpers that every PyMC program module shares (programs*.py).

A program is a function ``(quick: bool) -> dict`` registered with ``@program``; its
keys' prefixes say how ``compare.py`` compares each value (programs.py's docstring).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pymc as pm

PROGRAMS: dict[str, Callable[[bool], dict[str, Any]]] = {}
"""Every registered program by name."""


def program(fn: Callable[[bool], dict[str, Any]]) -> Callable[[bool], dict[str, Any]]:
    """Register ``fn`` under its name."""
    PROGRAMS[fn.__name__] = fn
    return fn


def point_values(model: pm.Model, point: dict[str, Any]) -> dict[str, Any]:
    """``det_logp`` and ``det_dlogp`` of ``model`` at ``point``."""
    logp = model.compile_logp()(point)
    dlogp = model.compile_dlogp()(point)
    return {"det_logp": float(logp), "det_dlogp": np.asarray(dlogp).tolist()}


def map_values(model: pm.Model) -> dict[str, Any]:
    found = pm.find_MAP(model=model, progressbar=False, seed=1)
    return {f"det_map_{k}": np.asarray(v).tolist() for k, v in sorted(found.items())
            if not k.endswith("__")}


def posterior(idata: Any, names: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        draws = np.asarray(idata.posterior[name]).reshape(-1, *idata.posterior[name].shape[2:])
        n = draws.shape[0]
        out[f"mc_{name}"] = draws.mean(axis=0).tolist()
        # a conservative MC error: sd / sqrt(n / 4) (autocorrelation of MCMC draws)
        out[f"mcse_{name}"] = (draws.std(axis=0) / np.sqrt(n / 4)).tolist()
    return out


def prior_draws(model: pm.Model, names: list[str], draws: int = 50,
           kind: str = "exact") -> dict[str, Any]:
    """Seeded prior draws; ``kind="drawn"`` for draws passed through arithmetic."""
    with model:
        prior = pm.sample_prior_predictive(draws=draws, random_seed=7)
    out = {}
    for name in names:
        group = prior.prior if name in prior.prior else prior.prior_predictive
        out[f"{kind}_prior_{name}"] = np.asarray(group[name]).ravel()[:20].tolist()
    return out


def nuts(model: pm.Model, draws: int, names: list[str], **kwargs: Any) -> dict[str, Any]:
    with model:
        idata = pm.sample(draws=draws, tune=draws, chains=1, cores=1, random_seed=11,
                          progressbar=False, compute_convergence_checks=False, **kwargs)
    return posterior(idata, names)
