"""More PyMC programs: samplers, variational fits, SMC, predictive draws, transforms.

Each ``@program`` (from ``program_kit``) registers itself when ``programs.py`` imports
this module; the values follow the key prefixes of ``programs.py``'s docstring.

The area is inference: ``pm.sample``'s NUTS options and every step method, the JAX
samplers, SMC, ``pm.fit``, ``pm.find_MAP``, the predictive samplers and the model's
helper functions, written the way PyMC's docs and examples write them.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from typing import Any

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import xarray as xr
from program_kit import map_values, point_values, posterior, program

CALLBACKS = pm.variational.callbacks
QUIET = {"progressbar": False, "compute_convergence_checks": False}
"""What every ``pm.sample`` call of this module passes (no bars, no diagnostics)."""


def _mc(name: str, draws: Any) -> dict[str, Any]:
    """``mc_``/``mcse_`` of draws along the first axis (a conservative MCMC error)."""
    arr = np.asarray(draws, dtype=float)
    arr = arr.reshape(-1, *arr.shape[1:]) if arr.ndim else arr.reshape(1)
    return {f"mc_{name}": arr.mean(axis=0).tolist(),
            f"mcse_{name}": (arr.std(axis=0) / np.sqrt(arr.shape[0] / 4) + 1e-3).tolist()}


def _chain_draws(idata: Any, name: str, group: str = "posterior") -> np.ndarray:
    values = np.asarray(idata[group][name])
    return values.reshape(-1, *values.shape[2:])


def _text(name: str, text: str) -> dict[str, Any]:
    """A string as exact character codes (compare.py compares numbers)."""
    return {f"exact_{name}": [ord(c) for c in text], f"info_{name}": text}


def _regression_data(n: int = 40, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return x, 1.0 + 2.0 * x + rng.normal(0, 0.5, n)


def _regression(x: np.ndarray, y: np.ndarray) -> pm.Model:
    with pm.Model() as model:
        alpha = pm.Normal("alpha", 0, 5)
        beta = pm.Normal("beta", 0, 5)
        sigma = pm.HalfNormal("sigma", 2)
        pm.Normal("y", alpha + beta * x, sigma, observed=y)
    return model


@program
def nuts_init_methods(quick: bool) -> dict[str, Any]:
    """pm.sample's init options, target_accept, two chains on one core, and initvals."""
    model = _regression(*_regression_data())
    out = point_values(model, model.initial_point())
    draws = 80 if quick else 120
    for init in ("adapt_diag", "jitter+adapt_diag", "adapt_full", "advi+adapt_diag"):
        with model:
            idata = pm.sample(draws=draws, tune=draws, chains=2, cores=1, init=init,
                              random_seed=3, target_accept=0.9, n_init=2000,
                              initvals={"beta": 1.5}, **QUIET)
        tag = init.replace("+", "_")
        for name in ("alpha", "beta", "sigma"):
            out.update(_mc(f"{tag}_{name}", _chain_draws(idata, name)))
        out[f"exact_{tag}_shape"] = list(idata.posterior["beta"].shape)
    # the jittered starting points are seeded draws: equal on both backends
    with model:
        starts, step = pm.init_nuts(init="jitter+adapt_diag", chains=2, random_seed=5,
                                    progressbar=False, initvals={"sigma": 1.0})
    for i, start in enumerate(starts):
        for key, value in sorted(start.items()):
            out[f"drawn_start{i}_{key}"] = np.asarray(value).tolist()
    out["det_potential_var"] = np.asarray(step.potential._var).tolist()
    return out


@program
def metropolis_proposals(quick: bool) -> dict[str, Any]:
    """Metropolis with each proposal distribution, a scaling and a tune interval."""
    rng = np.random.default_rng(7)
    data = rng.normal(1.0, 2.0, 30)
    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 10)
        sigma = pm.HalfNormal("sigma", 5)
        pm.Normal("obs", mu, sigma, observed=data)
    out: dict[str, Any] = {}
    proposals = {
        "normal": pm.step_methods.NormalProposal,
        "cauchy": pm.step_methods.CauchyProposal,
        "laplace": pm.step_methods.LaplaceProposal,
    }
    draws = 800 if quick else 1200
    for tag, proposal in proposals.items():
        with model:
            step = pm.Metropolis([mu, sigma], proposal_dist=proposal, scaling=0.5,
                                 tune_interval=50)
            idata = pm.sample(draws=draws, tune=500, step=step, chains=1, random_seed=4,
                              **QUIET)
        for name in ("mu", "sigma"):
            out.update(_mc(f"{tag}_{name}", _chain_draws(idata, name)))
        out[f"info_{tag}_accept"] = float(idata.sample_stats["accepted"].mean())
    with model:
        cov = np.array([[0.3, 0.05], [0.05, 0.2]])
        step = pm.Metropolis(vars=[mu, sigma], S=cov, blocked=True,
                             proposal_dist=pm.step_methods.MultivariateNormalProposal)
        idata = pm.sample(draws=draws, tune=500, step=step, chains=1, random_seed=4, **QUIET)
    for name in ("mu", "sigma"):
        out.update(_mc(f"mvn_{name}", _chain_draws(idata, name)))
    return out


@program
def discrete_metropolis(quick: bool) -> dict[str, Any]:
    """A Poisson count with PoissonProposal, Metropolis on a discrete uniform."""
    counts = np.array([3, 5, 2, 6, 4, 4, 7, 3])
    with pm.Model() as model:
        lam = pm.Gamma("lam", 2, 0.5)
        k = pm.DiscreteUniform("k", 0, 10)
        n_extra = pm.Poisson("n_extra", 2.0)
        pm.Poisson("counts", lam, observed=counts)
        pm.Normal("noisy", k + n_extra, 1.0, observed=6.0)
        step = [pm.Metropolis([k]),
                pm.Metropolis([n_extra], proposal_dist=pm.step_methods.PoissonProposal),
                pm.NUTS([lam])]
        idata = pm.sample(draws=800 if quick else 1200, tune=300, step=step, chains=1,
                          random_seed=12, **QUIET)
    out = point_values(model, model.initial_point())
    for name in ("lam", "k", "n_extra"):
        out.update(_mc(name, _chain_draws(idata, name)))
    return out


@program
def slice_and_demetropolis(quick: bool) -> dict[str, Any]:
    """Slice (with w and tune), DEMetropolis (a population of chains) and DEMetropolisZ."""
    x, y = _regression_data(30, seed=2)
    model = _regression(x, y)
    out: dict[str, Any] = {}
    n = 400 if quick else 800
    with model:
        idata = pm.sample(draws=n, tune=300, step=pm.Slice(w=0.5), chains=1,
                          random_seed=6, **QUIET)
    for name in ("alpha", "beta", "sigma"):
        out.update(_mc(f"slice_{name}", _chain_draws(idata, name)))
    with model:
        idata = pm.sample(draws=n, tune=1000, step=pm.DEMetropolis(), chains=4, cores=1,
                          random_seed=6, **QUIET)
    for name in ("alpha", "beta"):
        out.update(_mc(f"dem_{name}", _chain_draws(idata, name)))
    with model:
        step = pm.DEMetropolisZ(tune="lambda", tune_interval=100)
        idata = pm.sample(draws=2 * n, tune=1500, step=step, chains=2, cores=1,
                          random_seed=6, **QUIET)
    for name in ("alpha", "beta"):
        out.update(_mc(f"demz_{name}", _chain_draws(idata, name)))
    return out


@program
def binary_categorical_gibbs(quick: bool) -> dict[str, Any]:
    """BinaryMetropolis, BinaryGibbsMetropolis and CategoricalGibbsMetropolis with NUTS."""
    out: dict[str, Any] = {}
    n = 200 if quick else 300
    for tag, stepper in (("bm", pm.BinaryMetropolis), ("bgm", pm.BinaryGibbsMetropolis)):
        with pm.Model() as model:
            p = pm.Beta("p", 2, 2)
            z = pm.Bernoulli("z", p, shape=3)
            pm.Normal("obs", 2.0 * z, 1.0, observed=[1.8, 0.3, 2.4])
            step = [stepper([z]), pm.NUTS([p])]
            idata = pm.sample(draws=n, tune=200, step=step, chains=1, random_seed=2, **QUIET)
        out.update(_mc(f"{tag}_z", _chain_draws(idata, "z")))
        out.update(_mc(f"{tag}_p", _chain_draws(idata, "p")))
    with pm.Model() as model:
        w = pm.Dirichlet("w", np.ones(3))
        c = pm.Categorical("c", p=w, shape=2)
        pm.Normal("obs", pt.as_tensor([-2.0, 0.0, 2.0])[c], 0.7, observed=[1.7, -2.2])
        step = [pm.CategoricalGibbsMetropolis([c]), pm.NUTS([w])]
        idata = pm.sample(draws=n, tune=300, step=step, chains=1, random_seed=2, **QUIET)
    out.update(point_values(model, model.initial_point()))
    out.update(_mc("cat_c", _chain_draws(idata, "c")))
    out.update(_mc("cat_w", _chain_draws(idata, "w")))
    with model:
        idata = pm.sample(draws=n, tune=300, chains=1, random_seed=3,
                          step=pm.CategoricalGibbsMetropolis([c], proposal="proportional"),
                          **QUIET)
    out.update(_mc("catprop_c", _chain_draws(idata, "c")))
    return out


# the coal-mining disasters of PyMC's getting-started guide (1851-1961), two missing
COAL = np.ma.masked_values([
    4, 5, 4, 0, 1, 4, 3, 4, 0, 6, 3, 3, 4, 0, 2, 6, 3, 3, 5, 4, 5, 3, 1, 4, 4, 1, 5, 5, 3,
    4, 2, 5, 2, 2, 3, 4, 2, 1, 3, -999, 2, 1, 1, 1, 1, 3, 0, 0, 1, 0, 1, 1, 0, 0, 3, 1, 0,
    3, 2, 2, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 2, 1, 0, 0, 0, 1, 1, 0, 2, 3, 3, 1, -999, 2,
    1, 1, 1, 1, 2, 4, 2, 0, 0, 1, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1], value=-999)


@program
def coal_mining_switchpoint(quick: bool) -> dict[str, Any]:
    """The switchpoint model: a CompoundStep of Metropolis (switchpoint, imputed counts)
    and NUTS (the two rates), assigned by pm.sample itself."""
    years = np.arange(1851, 1962)
    with pm.Model() as model:
        switchpoint = pm.DiscreteUniform("switchpoint", lower=years.min(), upper=years.max())
        early = pm.Exponential("early_rate", 1.0)
        late = pm.Exponential("late_rate", 1.0)
        rate = pm.math.switch(switchpoint >= years, early, late)
        pm.Poisson("disasters", rate, observed=COAL)
        idata = pm.sample(draws=300 if quick else 500, tune=300, chains=2, cores=1,
                          random_seed=5, **QUIET)
    out = point_values(model, model.initial_point())
    out["exact_free_rvs"] = [ord(c) for c in ",".join(v.name for v in model.free_RVs)]
    for name in ("switchpoint", "early_rate", "late_rate", "disasters_unobserved"):
        out.update(_mc(name, _chain_draws(idata, name)))
    out["exact_stat_names"] = [ord(c) for c in ",".join(sorted(idata.sample_stats.data_vars))]
    return out


@program
def smc_kernels(quick: bool) -> dict[str, Any]:
    """sample_smc with the IMH and MH kernels, two chains on one core."""
    rng = np.random.default_rng(4)
    data = rng.normal(0.5, 1.0, 25)
    out: dict[str, Any] = {}
    for tag, kernel in (("imh", pm.smc.kernels.IMH), ("mh", pm.smc.kernels.MH)):
        with pm.Model():
            mu = pm.Normal("mu", 0, 2)
            sd = pm.HalfNormal("sd", 2)
            pm.Normal("y", mu, sd, observed=data)
            idata = pm.sample_smc(draws=300 if quick else 500, kernel=kernel, chains=2,
                                  cores=1, random_seed=8, progressbar=False,
                                  compute_convergence_checks=False)
        for name in ("mu", "sd"):
            out.update(_mc(f"{tag}_{name}", _chain_draws(idata, name)))
        # one value per chain, at its last stage (NaN at the tempered stages)
        lml = np.asarray(idata.sample_stats["log_marginal_likelihood"], dtype=float)
        out[f"mc_{tag}_log_ml"] = float(np.nanmean(lml))
        out[f"mcse_{tag}_log_ml"] = 0.3
    return out


@program
def variational_methods(quick: bool) -> dict[str, Any]:
    """pm.fit with ADVI, FullRankADVI, SVGD and ASVGD; approx.sample; convergence callbacks."""
    x, y = _regression_data(50, seed=3)
    model = _regression(x, y)
    out: dict[str, Any] = {}
    n = 1000 if quick else 1500
    with model:
        tracker = CALLBACKS.Tracker(mean=lambda: 0)
        conv = CALLBACKS.CheckParametersConvergence(diff="absolute", tolerance=1e-4)
        approx = pm.fit(n=n, method="advi", random_seed=2, progressbar=False,
                        callbacks=[conv, tracker])
        out["info_advi_hist_len"] = len(approx.hist)
        trace = approx.sample(2000, random_seed=3)
        for name in ("alpha", "beta", "sigma"):
            out.update(_mc(f"advi_{name}", _chain_draws(trace, name)))
        full = pm.FullRankADVI(random_seed=2)
        approx = full.fit(n=n, progressbar=False,
                          callbacks=[CALLBACKS.CheckParametersConvergence(every=500)])
        trace = approx.sample(2000, random_seed=3)
        for name in ("alpha", "beta"):
            out.update(_mc(f"frank_{name}", _chain_draws(trace, name)))
        out["exact_frank_cov_shape"] = list(approx.cov.eval().shape)
        np.random.seed(4)  # Empirical's particles start from NumPy's global generator
        svgd = pm.fit(n=100 if quick else 200, method="svgd", random_seed=2,
                      inf_kwargs={"n_particles": 20}, progressbar=False,
                      obj_optimizer=pm.sgd(learning_rate=0.01))
        trace = svgd.sample(400, random_seed=3)
        for name in ("alpha", "beta"):
            out.update(_mc(f"svgd_{name}", _chain_draws(trace, name)))
        np.random.seed(5)
        asvgd = pm.ASVGD(random_seed=2)
        approx = asvgd.fit(n=100 if quick else 200, progressbar=False, obj_n_mc=20,
                           obj_optimizer=pm.adagrad_window(learning_rate=0.05))
        trace = approx.sample(400, random_seed=3)
        # 200 steps of ASVGD are not converged: compared within its particles' spread
        beta = _chain_draws(trace, "beta")
        out["mc_asvgd_beta"], out["mcse_asvgd_beta"] = float(beta.mean()), float(beta.std())
    out["exact_tracker_len"] = [len(tracker["mean"]) > 0]
    return out


@program
def find_map_options(quick: bool) -> dict[str, Any]:
    """find_MAP's methods, include_transformed, start and vars, on a bounded model."""
    rng = np.random.default_rng(11)
    data = rng.gamma(3.0, 1.5, 40)
    with pm.Model() as model:
        alpha = pm.Gamma("alpha", 2, 1)
        beta = pm.HalfNormal("beta", 2)
        pm.Deterministic("rate", alpha / beta)
        pm.Gamma("obs", alpha=alpha, beta=1 / beta, observed=data)
    out: dict[str, Any] = {}
    for method in ("L-BFGS-B", "BFGS", "Powell", "Nelder-Mead"):
        found = pm.find_MAP(model=model, method=method, progressbar=False,
                            include_transformed=True, seed=1)
        for key, value in sorted(found.items()):
            out[f"det_map_{method}_{key}".replace("-", "")] = np.asarray(value).tolist()
    found = pm.find_MAP(model=model, start={"alpha": 3.0, "beta": 1.0}, vars=[alpha],
                        progressbar=False, include_transformed=False, seed=1)
    out["exact_keys_partial"] = [ord(c) for c in ",".join(sorted(found))]
    out["det_map_partial_alpha"] = float(found["alpha"])
    out["det_map_partial_rate"] = float(found["rate"])
    out.update(map_values(model))
    return out


def _fake_posterior(values: dict[str, np.ndarray], coords: dict[str, Any] | None = None,
                    dims: dict[str, list[str]] | None = None) -> xr.DataTree:
    """A DataTree whose posterior holds ``values`` (chain, draw, ...): fixed draws, so what is
    computed from them (predictive draws, log-likelihoods, deterministics) compares exactly."""
    dims = dims or {}
    data = {k: (["chain", "draw", *dims.get(k, [f"{k}_dim_{i}" for i in range(v.ndim - 2)])], v)
            for k, v in values.items()}
    return xr.DataTree.from_dict({"posterior": xr.Dataset(data, coords=coords)})


@program
def predictive_workflow(quick: bool) -> dict[str, Any]:
    """Prior and posterior predictive with var_names, predictions after set_data,
    extend_inferencedata, compute_log_likelihood and compute_deterministics."""
    x = np.linspace(0, 1, 12)
    y = np.array([0.9, 1.4, 1.2, 2.0, 2.1, 2.6, 2.4, 3.1, 3.3, 3.2, 4.0, 4.1])
    with pm.Model(coords={"obs_id": range(12)}) as model:
        xd = pm.Data("x", x, dims="obs_id")
        a = pm.Normal("a", 1, 1)
        b = pm.Normal("b", 3, 1)
        s = pm.HalfNormal("s", 0.5)
        mu = pm.Deterministic("mu", a + b * xd, dims="obs_id")
        pm.Normal("y", mu, s, observed=y, dims="obs_id", shape=xd.shape)
        prior = pm.sample_prior_predictive(draws=40, random_seed=3, var_names=["a", "b", "y"])
    out: dict[str, Any] = {}
    out["exact_prior_a"] = np.asarray(prior.prior["a"]).ravel().tolist()
    out["exact_prior_groups"] = [ord(c) for c in ",".join(sorted(prior.children))]
    out["drawn_prior_y"] = np.asarray(prior.prior_predictive["y"])[0, :5].ravel().tolist()
    rng = np.random.default_rng(0)
    post = _fake_posterior({"a": rng.normal(1, 0.1, (2, 30)), "b": rng.normal(3, 0.1, (2, 30)),
                            "s": np.abs(rng.normal(0.3, 0.05, (2, 30)))})
    with model:
        pp = pm.sample_posterior_predictive(post, var_names=["y", "mu"], random_seed=4,
                                            progressbar=False)
        out["drawn_pp_y"] = np.asarray(pp.posterior_predictive["y"])[:, :4].ravel().tolist()
        out["drawn_pp_mu"] = np.asarray(pp.posterior_predictive["mu"])[0, :3].ravel().tolist()
        ll = pm.compute_log_likelihood(post, extend_inferencedata=False, progressbar=False)
        out["det_loglik_y"] = np.asarray(ll["y"])[:, :5].ravel().tolist()
        det = pm.compute_deterministics(post.posterior, progressbar=False)
        out["det_mu"] = np.asarray(det["mu"])[1, :3].ravel().tolist()
        pm.compute_log_likelihood(post, progressbar=False)
        out["exact_extended_groups"] = [ord(c) for c in ",".join(sorted(post.children))]
        pm.set_data({"x": np.array([1.5, 2.0])}, coords={"obs_id": [100, 101]})
        pred = pm.sample_posterior_predictive(post, predictions=True, random_seed=5,
                                              progressbar=False, extend_inferencedata=True)
    out["drawn_predictions_y"] = np.asarray(post.predictions["y"])[:, :4].ravel().tolist()
    out["exact_predictions_coords"] = np.asarray(post.predictions["obs_id"]).tolist()
    out["exact_extended_after_pred"] = [ord(c) for c in ",".join(sorted(post.children))]
    out["exact_pred_return_none"] = [pred is None]
    return out


@program
def predictive_after_nuts(quick: bool) -> dict[str, Any]:
    """The docs' linear-regression workflow: sample, posterior predictive into the same
    idata, out-of-sample predictions with pm.set_data, log-likelihood in pm.sample."""
    x, y = _regression_data(30, seed=5)
    with pm.Model():
        xd = pm.Data("x", x)
        alpha = pm.Normal("alpha", 0, 5)
        beta = pm.Normal("beta", 0, 5)
        sigma = pm.HalfNormal("sigma", 2)
        pm.Normal("y", alpha + beta * xd, sigma, observed=y, shape=xd.shape)
        idata = pm.sample(draws=200 if quick else 400, tune=300, chains=2, cores=1,
                          random_seed=9, **QUIET)
        pm.compute_log_likelihood(idata, progressbar=False)
        pm.sample_posterior_predictive(idata, extend_inferencedata=True, random_seed=2,
                                       progressbar=False)
        pm.set_data({"x": np.array([-1.0, 0.0, 2.0])})
        preds = pm.sample_posterior_predictive(idata, predictions=True, random_seed=2,
                                               progressbar=False)
    out = posterior(idata, ["alpha", "beta"])
    out.update(_mc("pp_mean", np.asarray(idata.posterior_predictive["y"]).mean(axis=-1)
                   .reshape(-1)))
    out.update(_mc("pred_y", _chain_draws(preds, "y", "predictions")))
    out.update(_mc("loglik", _chain_draws(idata, "y", "log_likelihood").sum(axis=-1)))
    out["exact_groups"] = [ord(c) for c in ",".join(sorted(idata.children))]
    return out


@program
def jax_samplers(quick: bool) -> dict[str, Any]:
    """pm.sample(nuts_sampler="numpyro"/"blackjax") and pm.sampling.jax's functions
    (opgraph's JAX backend against PyTensor's JAX path)."""
    import pymc.sampling.jax as pmjax

    y = np.array([28.0, 8, -3, 7, -1, 1, 18, 12])
    sigma = np.array([15.0, 10, 16, 11, 9, 11, 10, 18])
    with pm.Model(coords={"school": range(8)}) as model:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        z = pm.Normal("z", 0, 1, dims="school")
        theta = pm.Deterministic("theta", mu + tau * z, dims="school")
        pm.Normal("obs", theta, sigma, observed=y, dims="school")
    out: dict[str, Any] = {}
    point = {"mu": 1.0, "tau_log__": 0.4, "z": np.linspace(-1, 1, 8)}
    logp_fn = pmjax.get_jaxified_logp(model, negative_logp=False)
    out["det_jax_logp"] = float(logp_fn([np.asarray(point[v.name]) for v in
                                         model.value_vars]))
    jfn = pmjax.get_jaxified_graph(inputs=model.value_vars, outputs=[model.logp()])
    out["det_jax_graph_logp"] = float(jfn(*[np.asarray(point[v.name])
                                             for v in model.value_vars])[0])
    n = 150 if quick else 250
    # (not "blackjax": PyMC 6.0.0 passes blackjax 1.7 a progress_bar it refuses, PyTensor too)
    for sampler in ("numpyro",):
        with model:
            idata = pm.sample(draws=n, tune=n, chains=2, nuts_sampler=sampler,
                              random_seed=4, target_accept=0.9, progressbar=False,
                              compute_convergence_checks=False)
        for name in ("mu", "theta"):
            out.update(_mc(f"{sampler}_{name}", _chain_draws(idata, name)))
        out[f"exact_{sampler}_shape"] = list(idata.posterior["theta"].shape)
        out[f"info_{sampler}_dtype"] = str(idata.posterior["mu"].dtype)
    with model:
        idata = pmjax.sample_jax_nuts(draws=n, tune=n, chains=1, random_seed=6,
                                      nuts_sampler="numpyro", progressbar=False,
                                      var_names=["mu", "tau"], keep_untransformed=True,
                                      idata_kwargs={"log_likelihood": True},
                                      compute_convergence_checks=False)
    out.update(_mc("direct_mu", _chain_draws(idata, "mu")))
    out["exact_direct_vars"] = [ord(c) for c in ",".join(sorted(idata.posterior.data_vars))]
    out["exact_direct_loglik_shape"] = list(idata.log_likelihood["obs"].shape)
    return out


@program
def model_functions(quick: bool) -> dict[str, Any]:
    """compile_fn, point_logps, debug, initial_point with initvals, Potential, Deterministic,
    pm.draw, pm.do and pm.observe."""
    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 1, initval=0.5)
        sd = pm.LogNormal("sd", 0, 0.5)
        w = pm.Dirichlet("w", np.ones(3), initval=np.array([0.2, 0.3, 0.5]))
        x = pm.Normal("x", mu, sd, shape=3)
        pm.Potential("pen", -0.5 * pt.sum(w * x**2))
        pm.Deterministic("total", x.sum() + mu)
        pm.Normal("y", x.mean(), 1, observed=0.7)
    model.set_initval(x, np.array([0.1, -0.2, 0.3]))
    ip = model.initial_point(random_seed=1)
    # near: PyTensor's LogNormal support point goes through float32 constants (1.5e-7)
    out = {f"near_ip_{k}": np.asarray(v).tolist() for k, v in sorted(ip.items())}
    out.update({k.replace("det_", "near_"): v for k, v in point_values(model, ip).items()})
    logps = model.point_logps(ip)
    out["det_point_logps"] = [float(logps[k]) for k in sorted(logps)]
    out["exact_point_logps_keys"] = [ord(c) for c in ",".join(sorted(logps))]
    # compile_fn does not replace RVs by values: the Deterministic is given its value graph
    total = model.replace_rvs_by_values([model.deterministics[0]])[0]
    fn = model.compile_fn([model.logp(), total], inputs=model.value_vars)
    out["near_compile_fn"] = np.hstack([np.ravel(v) for v in fn(ip)]).tolist()
    fn = model.compile_fn(model.deterministics[0], inputs=[model["mu"], model["x"]],
                          point_fn=False)
    out["det_compile_fn_rvs"] = float(fn(ip["mu"], ip["x"]))
    buf = io.StringIO()
    # (not on this model: PyMC's debug fails on a model with a Potential, PyTensor too)
    with pm.Model() as small, redirect_stdout(buf):
        sig = pm.HalfNormal("sig", 1)
        pm.Normal("obs", 0, sig, observed=[0.1, -0.3])
        small.debug({"sig_log__": np.array(-1.0)}, fn="logp", verbose=True)
        small.debug(fn="random")
    out["info_debug"] = buf.getvalue()
    # drawn: mu + sd * z (Numba rounds the last bit otherwise)
    out["drawn_draw_x"] = np.asarray(pm.draw(x, draws=4, random_seed=3)).ravel().tolist()
    out["exact_draw_pair"] = np.hstack([np.ravel(d) for d in
                                        pm.draw([mu, sd], draws=3, random_seed=2)]).tolist()
    with pm.Model() as plain:  # pm.do and pm.observe take models without initvals only
        m2 = pm.Normal("m2", 0, 1)
        pm.Normal("x2", m2, 2.0, shape=3)
        pm.Potential("pen2", -0.1 * m2**2)
    fixed = pm.do(plain, {"m2": 2.0})
    out["exact_do_x"] = np.asarray(pm.draw(fixed["x2"], draws=3, random_seed=4)).ravel().tolist()
    observed = pm.observe(plain, {"x2": np.array([0.3, 0.1, -0.2])})
    ip2 = observed.initial_point()
    out["det_observe_logp"] = float(observed.compile_logp()(ip2))
    out["exact_observe_free"] = [ord(c) for c in ",".join(v.name for v in observed.free_RVs)]
    return out


@program
def minibatch_advi_data(quick: bool) -> dict[str, Any]:
    """pm.Minibatch of two arrays in a logistic regression fitted by ADVI, then
    approx.sample and sample_node."""
    rng = np.random.default_rng(21)
    X = rng.normal(size=(1000, 2))
    yb = (rng.random(1000) < 1 / (1 + np.exp(-(X @ np.array([1.0, -2.0]) + 0.5)))) * 1.0
    X_mb, y_mb = pm.Minibatch(X, yb, batch_size=128)
    with pm.Model():
        coef = pm.Normal("coef", 0, 2, shape=2)
        icpt = pm.Normal("icpt", 0, 2)
        pm.Bernoulli("y", logit_p=X_mb @ coef + icpt, observed=y_mb, total_size=1000)
        approx = pm.fit(n=4000 if quick else 8000, random_seed=5, progressbar=False,
                        obj_optimizer=pm.adam(learning_rate=0.02))
        trace = approx.sample(1000, random_seed=1)
        node = approx.sample_node(coef, size=200)
    out = _mc("coef", _chain_draws(trace, "coef"))
    out.update(_mc("icpt", _chain_draws(trace, "icpt")))
    out.update(_mc("node", node.eval()))
    out["exact_node_shape"] = list(node.eval().shape)
    return out


@program
def model_graph_text(quick: bool) -> dict[str, Any]:
    """model_to_graphviz's dot source (skipped without graphviz), the model's str_repr."""
    with pm.Model(coords={"g": ["a", "b", "c"]}) as model:
        mu = pm.Normal("mu", 0, 1)
        sd = pm.HalfNormal("sd", 1)
        th = pm.Normal("theta", mu, sd, dims="g")
        pm.Deterministic("th2", th * 2, dims="g")
        pm.Potential("pot", -th.sum() ** 2)
        pm.Poisson("y", pm.math.exp(th), observed=[1, 2, 3], dims="g")
    out: dict[str, Any] = {}
    out.update(_text("str_repr", model.str_repr()))
    out.update(_text("latex", model.str_repr(formatting="latex")))
    out.update(_text("var_repr", str(th) + "|" + str(mu)))
    try:
        import graphviz  # noqa: F401
    except ImportError:
        out["info_graphviz"] = "graphviz not importable: skipped"
        return out
    out.update(_text("dot", pm.model_to_graphviz(model).source))
    return out


@program
def nuts_step_options(quick: bool) -> dict[str, Any]:
    """pm.NUTS and pm.HamiltonianMC given explicitly (max_treedepth, step_scale,
    path_length), a MultiTrace result, tuned draws kept, var_names and a callback."""
    x, y = _regression_data(25, seed=8)
    model = _regression(x, y)
    calls = []
    n = 200 if quick else 400
    with model:
        step = pm.NUTS(target_accept=0.85, max_treedepth=6, step_scale=0.3)
        trace = pm.sample(draws=n, tune=200, step=step, chains=1, random_seed=1,
                          return_inferencedata=False, discard_tuned_samples=False,
                          callback=lambda trace, draw: calls.append(draw.tuning), **QUIET)
        hmc = pm.sample(draws=n, tune=200, step=pm.HamiltonianMC(path_length=1.0),
                        chains=1, random_seed=2, var_names=["beta", "sigma"], **QUIET)
    out = {"exact_trace_len": [len(trace), sum(calls), len(calls)]}
    out.update(_mc("nuts_beta", trace.get_values("beta")[200:]))
    out.update(_mc("nuts_sigma", trace.get_values("sigma")[200:]))
    out["exact_depth_le_6"] = [bool(np.all(trace.get_sampler_stats("depth") <= 6))]
    out.update(_mc("hmc_beta", _chain_draws(hmc, "beta")))
    out["exact_hmc_vars"] = [ord(c) for c in ",".join(sorted(hmc.posterior.data_vars))]
    out["exact_hmc_stats"] = [ord(c) for c in ",".join(sorted(hmc.sample_stats.data_vars))]
    return out


@program
def logp_function_options(quick: bool) -> dict[str, Any]:
    """compile_logp (jacobian=False, sum=False, vars), compile_dlogp(vars),
    compile_d2logp, logp with a Potential, compute_log_prior, the Hessian at the MAP."""
    rng = np.random.default_rng(13)
    counts = rng.poisson(4.0, 20)
    with pm.Model() as model:
        lam = pm.Gamma("lam", 2, 0.5)
        p = pm.Beta("p", 2, 2)
        pm.ZeroInflatedPoisson("y", psi=p, mu=lam, observed=counts)
        pm.Potential("soft", pm.logp(pm.Normal.dist(4, 1), lam))
    point = {"lam_log__": np.log(3.5), "p_logodds__": 0.7}
    out = point_values(model, point)
    out["det_logp_nojac"] = float(model.compile_logp(jacobian=False)(point))
    # near: PyTensor computes a term through a float32 constant (docs/pymc.md)
    out["near_logp_terms"] = [float(np.sum(v)) for v in model.compile_logp(sum=False)(point)]
    out["det_logp_lam"] = float(model.compile_logp(vars=[lam])(point))
    out["det_dlogp_p"] = np.asarray(model.compile_dlogp(vars=[p])(point)).tolist()
    out["det_d2logp"] = np.asarray(model.compile_d2logp()(point)).tolist()
    out["det_d2logp_nojac"] = np.asarray(model.compile_d2logp(jacobian=False)(point)).tolist()
    post = _fake_posterior({"lam": np.array([[3.5, 3.6, 3.7]]),
                            "p": np.full((1, 3), 0.6)})
    with model:
        pm.compute_log_prior(post, progressbar=False)
        pm.compute_log_likelihood(post, progressbar=False)
    out["det_log_prior_lam"] = np.asarray(post.log_prior["lam"]).ravel().tolist()
    out["det_log_lik_y"] = np.asarray(post.log_likelihood["y"]).sum(axis=-1).ravel().tolist()
    out.update(map_values(model))
    return out


@program
def radon_style_predictions(quick: bool) -> dict[str, Any]:
    """A varying-intercept model with pm.Data indices and coords, NUTS, then predictions
    for new houses with pm.set_data (new coords) and predictions=True."""
    rng = np.random.default_rng(17)
    n_county, n_obs = 5, 60
    county = rng.integers(0, n_county, n_obs)
    floor = rng.integers(0, 2, n_obs).astype(float)
    a_true = rng.normal(1.5, 0.5, n_county)
    log_radon = a_true[county] - 0.6 * floor + rng.normal(0, 0.4, n_obs)
    coords = {"county": [f"c{i}" for i in range(n_county)], "obs_id": np.arange(n_obs)}
    with pm.Model(coords=coords) as model:
        floor_d = pm.Data("floor", floor, dims="obs_id")
        county_d = pm.Data("county_idx", county, dims="obs_id")
        mu_a = pm.Normal("mu_a", 0, 5)
        sigma_a = pm.HalfNormal("sigma_a", 1)
        a = pm.Normal("a", mu_a, sigma_a, dims="county")
        b = pm.Normal("b", 0, 1)
        eps = pm.HalfNormal("eps", 1)
        theta = pm.Deterministic("theta", a[county_d] + b * floor_d, dims="obs_id")
        pm.Normal("y", theta, eps, observed=log_radon, dims="obs_id", shape=floor_d.shape)
        out = point_values(model, model.initial_point())
        idata = pm.sample(draws=200 if quick else 300, tune=300, chains=2, cores=1,
                          random_seed=21, target_accept=0.9, **QUIET)
        pm.set_data({"floor": np.array([0.0, 1.0, 1.0]), "county_idx": np.array([0, 2, 4])},
                    coords={"obs_id": [1000, 1001, 1002]})
        preds = pm.sample_posterior_predictive(idata, var_names=["theta", "y"],
                                               predictions=True, random_seed=3,
                                               progressbar=False)
    out.update(posterior(idata, ["mu_a", "b", "a"]))
    out.update(_mc("pred_theta", _chain_draws(preds, "theta", "predictions")))
    out.update(_mc("pred_y", _chain_draws(preds, "y", "predictions")))
    out["exact_pred_obs_id"] = np.asarray(preds.predictions["obs_id"]).tolist()
    out["exact_pred_groups"] = [ord(c) for c in ",".join(sorted(preds.children))]
    return out


@program
def predictive_options(quick: bool) -> dict[str, Any]:
    """sample_posterior_predictive's sample_vars / freeze_vars / var_names on fixed draws,
    a list of points, a dict result, and forward draws of a hierarchical model."""
    with pm.Model(coords={"grp": ["a", "b", "c"]}) as model:
        mu = pm.Normal("mu", 0, 1)
        tau = pm.HalfNormal("tau", 1)
        z = pm.Normal("z", 0, 1, dims="grp")
        theta = pm.Deterministic("theta", mu + tau * z, dims="grp")
        pm.Poisson("counts", pm.math.exp(theta), observed=[2, 5, 1], dims="grp")
    rng = np.random.default_rng(9)
    draws = {"mu": rng.normal(0.5, 0.1, (2, 10)), "tau": np.abs(rng.normal(0.5, 0.1, (2, 10))),
             "z": rng.normal(size=(2, 10, 3))}
    draws["theta"] = draws["mu"][..., None] + draws["tau"][..., None] * draws["z"]
    post = _fake_posterior(draws, coords={"grp": ["a", "b", "c"]},
                           dims={"z": ["grp"], "theta": ["grp"]})
    out: dict[str, Any] = {}
    with model:
        pp = pm.sample_posterior_predictive(post, random_seed=1, progressbar=False)
        out["exact_pp_counts"] = np.asarray(pp.posterior_predictive["counts"]).ravel().tolist()
        resampled = pm.sample_posterior_predictive(
            post, sample_vars=["z"], var_names=["z", "theta", "counts"], random_seed=2,
            progressbar=False)
        group = resampled.posterior_predictive
        out["exact_resampled_z"] = np.asarray(group["z"]).ravel()[:12].tolist()
        out["drawn_resampled_theta"] = np.asarray(group["theta"]).ravel()[:12].tolist()
        out["exact_resampled_counts"] = np.asarray(group["counts"]).ravel().tolist()
        frozen = pm.sample_posterior_predictive(post, freeze_vars=["theta"],
                                                var_names=["theta", "counts"], random_seed=3,
                                                progressbar=False, return_inferencedata=False)
        out["drawn_frozen_theta"] = np.asarray(frozen["theta"]).ravel()[:6].tolist()
        out["exact_frozen_counts_shape"] = list(np.shape(frozen["counts"]))
        points = [{"mu": 0.1, "tau": 0.5, "z": np.array([0.0, 1.0, -1.0])},
                  {"mu": 0.3, "tau": 0.2, "z": np.array([1.0, 0.5, 0.0])}]
        from_points = pm.sample_posterior_predictive(points, random_seed=4, progressbar=False,
                                                     return_inferencedata=False)
        out["exact_points_counts"] = np.asarray(from_points["counts"]).ravel().tolist()
        prior = pm.sample_prior_predictive(draws=8, random_seed=5, return_inferencedata=False)
    out["exact_prior_dict_counts"] = np.asarray(prior["counts"]).ravel().tolist()
    out["drawn_prior_dict_theta"] = np.asarray(prior["theta"]).ravel().tolist()
    out["exact_prior_keys"] = [ord(c) for c in ",".join(sorted(prior))]
    return out
