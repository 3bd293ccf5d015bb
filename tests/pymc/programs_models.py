"""More PyMC programs: regressions, GPs, mixtures, multivariate and time-series models.

Each ``@program`` (from ``program_kit``) registers itself when ``programs.py`` imports
this module; the values follow the key prefixes of ``programs.py``'s docstring.
Written the way PyMC's docs and examples write models (``pm.Data``, coords and dims,
``pm.math``), so they stand in for users' programs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from program_kit import map_values, nuts, point_values, prior_draws, program


def _at(model: pm.Model, seed: int, scale: float = 0.3) -> dict[str, Any]:
    """A point of ``model``'s value variables: the initial point moved by seeded noise."""
    rng = np.random.default_rng(seed)
    return {k: np.asarray(v) + scale * rng.normal(size=np.shape(v))
            for k, v in model.initial_point().items()}


def _values(model: pm.Model, seed: int = 1, mapped: bool | str = True) -> dict[str, Any]:
    """logp/dlogp at the initial point and a random point, and the MAP.

    ``mapped="shown"``: the MAP is reported as ``info_`` (not compared), for models
    whose optimum is not a point L-BFGS reaches the same way on two backends: an
    unbounded density (a scale going to 0) or a flat top where it stops on its tolerance.
    """
    out = point_values(model, model.initial_point())
    out.update({f"{k}_rand": v for k, v in point_values(model, _at(model, seed)).items()})
    if mapped == "shown":
        out.update({"info_" + k[len("det_"):]: v for k, v in map_values(model).items()})
    elif mapped:
        out.update(map_values(model))
    return out


@program
def glm_counts_offsets(quick: bool) -> dict[str, Any]:
    """Logistic, Poisson and NegativeBinomial regressions with pm.Data, dims and log offsets."""
    rng = np.random.default_rng(21)
    n = 60
    x = rng.normal(size=(n, 2))
    exposure = rng.uniform(0.5, 3.0, n)
    y_bin = (rng.random(n) < pm.math.invlogit(x @ [0.8, -0.5]).eval()).astype(int)
    y_pois = rng.poisson(exposure * np.exp(0.3 + x @ [0.4, 0.2]))
    y_nb = rng.negative_binomial(4, 4 / (4 + exposure * np.exp(0.5 + 0.3 * x[:, 0])))
    coords = {"obs": np.arange(n), "pred": ["x1", "x2"]}
    with pm.Model(coords=coords) as model:
        X = pm.Data("X", x, dims=("obs", "pred"))
        log_exp = pm.Data("log_exposure", np.log(exposure), dims="obs")
        a = pm.Normal("a", 0, 2)
        b = pm.Normal("b", 0, 1, dims="pred")
        pm.Bernoulli("y_bin", logit_p=a + pm.math.dot(X, b), observed=y_bin, dims="obs")
        c = pm.Normal("c", 0, 2)
        d = pm.Normal("d", 0, 1, dims="pred")
        pm.Poisson("y_pois", mu=pm.math.exp(c + X @ d + log_exp), observed=y_pois, dims="obs")
        e = pm.Normal("e", 0, 2)
        alpha = pm.Gamma("alpha", 2, 0.5)
        mu_nb = pm.Deterministic("mu_nb", pt.exp(e + 0.3 * X[:, 0] + log_exp), dims="obs")
        pm.NegativeBinomial("y_nb", mu=mu_nb, alpha=alpha, observed=y_nb, dims="obs")
    out = _values(model)
    out.update(prior_draws(model, ["a", "b", "y_bin", "y_pois", "y_nb"]))
    out.update(nuts(model, 100 if quick else 200, ["b", "alpha"]))
    return out


@program
def robust_and_ordinal(quick: bool) -> dict[str, Any]:
    """StudentT regression with outliers; OrderedLogistic and OrderedProbit with cutpoints."""
    rng = np.random.default_rng(22)
    x = np.linspace(-2, 2, 40)
    y = 1.0 + 0.7 * x + rng.standard_t(3, 40) * 0.3
    y[[3, 17, 30]] += [6.0, -5.0, 8.0]
    latent = 1.2 * x + rng.logistic(size=40)
    grade = np.digitize(latent, [-1.0, 0.5, 2.0])
    with pm.Model() as model:
        icpt = pm.Normal("icpt", 0, 5)
        slope = pm.Normal("slope", 0, 5)
        sigma = pm.HalfCauchy("sigma", 1)
        nu = pm.Gamma("nu", 2, 0.1)
        pm.StudentT("y", nu=nu, mu=icpt + slope * x, sigma=sigma, observed=y)
        beta = pm.Normal("beta", 0, 2)
        cuts = pm.Normal("cuts", mu=[-1.0, 0.0, 1.0], sigma=3, shape=3,
                         transform=pm.distributions.transforms.ordered)
        pm.OrderedLogistic("grade", eta=beta * x, cutpoints=cuts, observed=grade,
                           compute_p=False)
        cuts_p = pm.Normal("cuts_p", mu=[-1.0, 0.0, 1.0], sigma=3, shape=3,
                           transform=pm.distributions.transforms.ordered)
        pm.OrderedProbit("grade_p", eta=beta * x, cutpoints=cuts_p, sigma=1.5,
                         observed=grade, compute_p=False)
    # near: PyTensor's OrderedProbit gradient is 1.3e-7 off (mpmath agrees with opgraph's)
    out = {k.replace("det_", "near_") if "dlogp" in k else k: v
           for k, v in _values(model).items()}
    out.update(prior_draws(model, ["icpt"]))
    out.update(prior_draws(model, ["nu"], kind="drawn"))  # Numba scales gamma draws itself
    # prior cutpoints are unsorted Normal draws, so the category probabilities can be
    # negative: what a draw then gives is the backend's own (shown, not compared)
    out.update(prior_draws(model, ["grade"], kind="info"))
    return out


@program
def zero_inflated_hurdle(quick: bool) -> dict[str, Any]:
    """Zero-inflated Poisson/Binomial/NegativeBinomial and hurdle models with covariates."""
    rng = np.random.default_rng(23)
    n = 50
    x = rng.normal(size=n)
    counts = np.where(rng.random(n) < 0.3, 0, rng.poisson(np.exp(0.5 + 0.4 * x)))
    successes = np.where(rng.random(n) < 0.2, 0, rng.binomial(8, 0.4, n))
    positive = np.where(rng.random(n) < 0.4, 0.0, rng.lognormal(0.3, 0.5, n))
    with pm.Model() as model:
        psi = pm.Beta("psi", 2, 2)
        b0 = pm.Normal("b0", 0, 1)
        b1 = pm.Normal("b1", 0, 1)
        pm.ZeroInflatedPoisson("zip", psi=psi, mu=pm.math.exp(b0 + b1 * x), observed=counts)
        p = pm.Beta("p", 1, 1)
        pm.ZeroInflatedBinomial("zib", psi=psi, n=8, p=p, observed=successes)
        alpha = pm.HalfNormal("alpha", 5)
        pm.ZeroInflatedNegativeBinomial("zinb", psi=psi, mu=pm.math.exp(b0), alpha=alpha,
                                        observed=counts)
        pi = pm.Beta("pi", 1, 1)
        pm.HurdlePoisson("hp", psi=pi, mu=pm.math.exp(b0 + b1 * x), observed=counts)
        pm.HurdleNegativeBinomial("hnb", psi=pi, mu=3.0, alpha=alpha, observed=counts)
        sig = pm.HalfNormal("sig", 1)
        pm.HurdleLogNormal("hln", psi=pi, mu=b0, sigma=sig, observed=positive)
    out = _values(model)
    out.update(prior_draws(model, ["zip", "zib", "hp", "hnb"]))
    out.update(prior_draws(model, ["psi", "hln"], kind="drawn"))  # Numba's beta: last bit
    return out


@program
def changepoint_switch(quick: bool) -> dict[str, Any]:
    """The coal-mining disasters change point (discrete switchpoint, pm.math.switch)
    and a continuous change point in a regression's mean."""
    disasters = np.array([4, 5, 4, 0, 1, 4, 3, 4, 0, 6, 3, 3, 4, 0, 2, 6, 3, 3, 5, 4, 5, 3, 1,
                          4, 4, 1, 5, 5, 3, 4, 2, 5, 2, 2, 3, 4, 2, 1, 3, 2, 2, 1, 1, 1, 1, 3,
                          0, 0, 1, 0, 1, 1, 0, 0, 3, 1, 0, 3, 2, 2, 0, 1, 1, 1, 0, 1, 0, 1, 0,
                          0, 0, 2, 1, 0, 0, 0, 1, 1, 0, 2, 3, 3, 1, 1, 2, 1, 1, 1, 1, 2, 4, 2,
                          0, 0, 1, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1])
    years = np.arange(1851, 1851 + len(disasters))
    with pm.Model(coords={"year": years}) as disaster:
        sp = pm.DiscreteUniform("switchpoint", lower=years.min(), upper=years.max())
        early = pm.Exponential("early_rate", 1.0)
        late = pm.Exponential("late_rate", 1.0)
        rate = pm.math.switch(sp >= years, early, late)
        pm.Poisson("disasters", rate, observed=disasters, dims="year")
    out = point_values(disaster, disaster.initial_point())
    point = dict(disaster.initial_point(), switchpoint=np.array(1890),
                 early_rate_log__=np.array(1.1), late_rate_log__=np.array(-0.1))
    out.update({f"{k}_sp1890": v for k, v in point_values(disaster, point).items()})
    out.update(prior_draws(disaster, ["switchpoint", "early_rate", "disasters"], draws=20))
    x = np.linspace(0, 10, 50)
    y = np.where(x < 6.3, 1.0 + 0.2 * x, 4.0 - 0.3 * x) + 0.1 * np.sin(5 * x)
    with pm.Model() as cont:
        tau = pm.Uniform("tau", 0, 10)
        b = pm.Normal("b", 0, 3, shape=2)
        m = pm.Normal("m", 0, 1, shape=2)
        s = pm.HalfNormal("s", 1)
        before = pm.math.lt(x, tau)
        mu = pm.math.switch(before, b[0] + m[0] * x, b[1] + m[1] * x)
        pm.Normal("y", mu, s, observed=y)
    cout = _values(cont)
    out.update({f"{k}_cont" if k.startswith("det_") else k: v for k, v in cout.items()})
    return out


@program
def hierarchical_noncentered(quick: bool) -> dict[str, Any]:
    """A radon-style varying-intercept, varying-slope model, non-centred, with pm.Data,
    coords/dims, set_data and posterior predictive at new data."""
    rng = np.random.default_rng(24)
    counties = ["A", "B", "C", "D", "E"]
    idx = rng.integers(0, 5, 80)
    floor = rng.integers(0, 2, 80).astype(float)
    a_true = rng.normal(1.5, 0.4, 5)
    log_radon = a_true[idx] - 0.6 * floor + rng.normal(0, 0.3, 80)
    coords = {"county": counties, "obs_id": np.arange(80)}
    with pm.Model(coords=coords) as model:
        floor_idx = pm.Data("floor_idx", floor, dims="obs_id")
        county_idx = pm.Data("county_idx", idx, dims="obs_id")
        mu_a = pm.Normal("mu_a", 0, 5)
        sigma_a = pm.Exponential("sigma_a", 1)
        z_a = pm.Normal("z_a", 0, 1, dims="county")
        a = pm.Deterministic("a", mu_a + sigma_a * z_a, dims="county")
        mu_b = pm.Normal("mu_b", 0, 1)
        sigma_b = pm.Exponential("sigma_b", 1)
        z_b = pm.Normal("z_b", 0, 1, dims="county")
        b = pm.Deterministic("b", mu_b + sigma_b * z_b, dims="county")
        sigma_y = pm.Exponential("sigma_y", 1)
        theta = a[county_idx] + b[county_idx] * floor_idx
        pm.Normal("y", theta, sigma_y, observed=log_radon, dims="obs_id",
                  shape=floor_idx.shape)
    out = _values(model)
    out.update(prior_draws(model, ["mu_a", "z_a", "y"]))
    out.update(prior_draws(model, ["a"], kind="drawn"))
    with model:
        idata = pm.sample(draws=150 if quick else 300, tune=200, chains=1, cores=1,
                          random_seed=11, target_accept=0.9, progressbar=False,
                          compute_convergence_checks=False)
        pm.set_data({"floor_idx": np.array([0.0, 1.0]), "county_idx": np.array([2, 2])},
                    coords={"obs_id": [0, 1]})
        pp = pm.sample_posterior_predictive(idata, random_seed=5, predictions=True,
                                            progressbar=False)
    post = idata.posterior
    for name in ("mu_a", "mu_b"):
        draws = np.asarray(post[name]).ravel()
        out[f"mc_{name}"] = float(draws.mean())
        out[f"mcse_{name}"] = float(draws.std() / np.sqrt(draws.size / 4))
    draws = np.asarray(pp.predictions["y"]).reshape(-1, 2)
    out["mc_pp_y"] = draws.mean(axis=0).tolist()
    out["mcse_pp_y"] = (draws.std(axis=0) / np.sqrt(draws.shape[0] / 4)).tolist()
    return out


@program
def gp_latent_marginal(quick: bool) -> dict[str, Any]:
    """gp.Latent (prior, conditional) with a Bernoulli likelihood; gp.Marginal with a
    linear mean, a kernel sum/product, conditional and predict."""
    rng = np.random.default_rng(25)
    X = np.linspace(0, 4, 15)[:, None]
    yb = (np.sin(2 * X[:, 0]) + 0.3 * rng.normal(size=15) > 0).astype(int)
    Xnew = np.linspace(0, 5, 6)[:, None]
    with pm.Model() as latent:
        ell = pm.InverseGamma("ell", 3, 3)
        eta = pm.HalfNormal("eta", 1.5)
        cov = eta**2 * pm.gp.cov.Matern52(1, ls=ell)
        gp = pm.gp.Latent(mean_func=pm.gp.mean.Constant(0.2), cov_func=cov)
        f = gp.prior("f", X=X, jitter=1e-6)
        pm.Bernoulli("y", p=pm.math.invlogit(f), observed=yb)
        gp.conditional("f_new", Xnew, jitter=1e-6)
    out = point_values(latent, latent.initial_point())
    out.update({f"{k}_rand": v for k, v in point_values(latent, _at(latent, 3, 0.1)).items()})
    out.update(prior_draws(latent, ["ell", "eta"], draws=10))
    out.update(prior_draws(latent, ["f", "f_new"], draws=5, kind="near"))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 0] + 0.1 * rng.normal(size=15)
    with pm.Model() as marginal:
        ls = pm.Gamma("ls", 2, 1)
        amp = pm.HalfNormal("amp", 2)
        period = pm.Normal("period", 3.0, 0.3)
        slope = pm.Normal("slope", 0, 1)
        cov = (amp**2 * pm.gp.cov.ExpQuad(1, ls=ls)
               + 0.3 * pm.gp.cov.Periodic(1, period=period, ls=1.0)
               * pm.gp.cov.Matern32(1, ls=2.0) + pm.gp.cov.WhiteNoise(1e-4))
        gp = pm.gp.Marginal(mean_func=pm.gp.mean.Linear(coeffs=slope), cov_func=cov)
        sigma = pm.HalfNormal("sigma", 0.5)
        gp.marginal_likelihood("y", X=X, y=y, sigma=sigma)
    mout = _values(marginal)
    out.update({f"{k}_marg" if k.startswith("det_") else k: v for k, v in mout.items()})
    mp = {"ls": 1.5, "amp": 1.0, "period": 3.0, "slope": 0.4, "sigma": 0.2}
    with marginal:
        mu, var = gp.predict(Xnew, point=mp, diag=True)
        _, cov_n = gp.predict(Xnew, point=mp, pred_noise=True)
        gp.conditional("f_pred", Xnew)
    out["det_predict_mu"] = np.asarray(mu).tolist()
    out["det_predict_var"] = np.asarray(var).tolist()
    out["det_predict_noisy_cov"] = np.asarray(cov_n).ravel().tolist()
    fp = pm.draw(marginal["f_pred"], draws=3, random_seed=4)
    out["near_f_pred"] = np.asarray(fp).ravel().tolist()
    return out


@program
def gp_sparse_hsgp(quick: bool) -> dict[str, Any]:
    """gp.MarginalApprox (FITC and VFE) with inducing points; gp.HSGP and gp.HSGPPeriodic
    priors (and HSGP's prior_linearized) in a regression."""
    rng = np.random.default_rng(26)
    X = np.sort(rng.uniform(0, 10, 40))[:, None]
    y = np.sin(X[:, 0]) + 0.2 * rng.normal(size=40)
    Xu = np.linspace(0, 10, 8)[:, None]
    out: dict[str, Any] = {}
    for approx in ("FITC", "VFE"):
        with pm.Model() as model:
            ls = pm.Gamma("ls", 2, 1)
            eta = pm.HalfNormal("eta", 1)
            gp = pm.gp.MarginalApprox(cov_func=eta**2 * pm.gp.cov.ExpQuad(1, ls), approx=approx)
            sigma = pm.HalfNormal("sigma", 1)
            gp.marginal_likelihood("y", X=X, Xu=Xu, y=y, sigma=sigma)
        vals = _values(model)
        out.update({f"{k}_{approx}" if k.startswith("det_") else k: v
                    for k, v in vals.items()})
        with model:
            mu, var = gp.predict(np.array([[2.5], [7.5]]), diag=True,
                                 point={"ls": 1.2, "eta": 0.8, "sigma": 0.3})
        out[f"det_predict_{approx}"] = np.concatenate([mu, var]).tolist()
    with pm.Model() as hsgp:
        ls = pm.Gamma("ls", 3, 2)
        eta = pm.HalfNormal("eta", 1)
        gp = pm.gp.HSGP(m=[15], c=1.5, cov_func=eta**2 * pm.gp.cov.Matern52(1, ls=ls))
        f = gp.prior("f", X=X)
        per = pm.gp.HSGPPeriodic(m=6, scale=0.5,
                                 cov_func=pm.gp.cov.Periodic(1, period=6.0, ls=1.5))
        g = per.prior("g", X=X)
        sigma = pm.HalfNormal("sigma", 1)
        pm.Normal("y", f + g, sigma, observed=y)
    # MAPs 1e-5 to 1e-2 apart on the two backends while logp/dlogp at two points agree;
    # a flat top is the likely cause (not shown here, as it is for the mixtures)
    vals = _values(hsgp, mapped="shown")
    out.update({f"{k}_hsgp" if k.startswith("det_") else k: v for k, v in vals.items()})
    out.update(prior_draws(hsgp, ["ls", "eta"], draws=10))
    out.update(prior_draws(hsgp, ["f", "g"], draws=5, kind="near"))
    with pm.Model() as lin:
        ls = pm.Gamma("ls", 3, 2)
        gp = pm.gp.HSGP(m=[12], L=[15.0], cov_func=pm.gp.cov.ExpQuad(1, ls=ls))
        phi, sqrt_psd = gp.prior_linearized(X=X - X.mean())
        beta = pm.Normal("beta", 0, 1, size=gp.n_basis_vectors)
        f = pm.Deterministic("f", phi @ (beta * sqrt_psd))
        pm.Normal("y", f, 0.3, observed=y)
    vals = _values(lin)
    out.update({f"{k}_lin" if k.startswith("det_") else k: v for k, v in vals.items()})
    return out


@program
def gp_tp_kron(quick: bool) -> dict[str, Any]:
    """gp.TP (Student-t process) prior; gp.MarginalKron on a 2-d grid; gp.LatentKron;
    kernel algebra with scaled, added and multiplied covariances over active dims."""
    rng = np.random.default_rng(27)
    X = np.linspace(0, 3, 10)[:, None]
    out: dict[str, Any] = {}
    with pm.Model() as tp_model:
        ls = pm.Gamma("ls", 2, 2)
        tp = pm.gp.TP(scale_func=pm.gp.cov.ExpQuad(1, ls), nu=5)
        f = tp.prior("f", X=X, jitter=1e-6)
        pm.Normal("y", f, 0.2, observed=np.cos(X[:, 0]))
    vals = point_values(tp_model, tp_model.initial_point())
    vals.update({f"{k}_rand": v for k, v in point_values(tp_model, _at(tp_model, 2, 0.1)).items()})
    out.update({f"{k}_tp": v for k, v in vals.items()})
    out.update(prior_draws(tp_model, ["ls"], draws=10))
    x1 = np.linspace(0, 1, 5)[:, None]
    x2 = np.linspace(0, 2, 4)[:, None]
    grid = pm.math.cartesian(x1[:, 0], x2[:, 0])
    yk = np.sin(3 * grid[:, 0]) * np.cos(grid[:, 1]) + 0.05 * rng.normal(size=len(grid))
    with pm.Model() as kron:
        ls1 = pm.Gamma("ls1", 2, 2)
        ls2 = pm.Gamma("ls2", 2, 2)
        gp = pm.gp.MarginalKron(cov_funcs=[pm.gp.cov.ExpQuad(1, ls1),
                                           pm.gp.cov.Matern32(1, ls2)])
        sigma = pm.HalfNormal("sigma", 1)
        gp.marginal_likelihood("y", Xs=[x1, x2], y=yk, sigma=sigma)
    vals = _values(kron)
    out.update({f"{k}_kron" if k.startswith("det_") else k: v for k, v in vals.items()})
    with pm.Model() as lkron:
        ls = pm.Gamma("ls", 2, 2)
        gp = pm.gp.LatentKron(cov_funcs=[pm.gp.cov.ExpQuad(1, ls),
                                         pm.gp.cov.Exponential(1, 1.0)])
        f = gp.prior("f", Xs=[x1, x2])
        pm.Normal("y", f, 0.3, observed=yk)
    vals = point_values(lkron, _at(lkron, 4, 0.2))
    out.update({f"{k}_lkron": v for k, v in vals.items()})
    X2 = rng.uniform(0, 2, size=(6, 3))
    ls = np.array([0.5, 1.5])
    kernels = {
        "expquad_ad": pm.gp.cov.ExpQuad(3, ls=ls, active_dims=[0, 2]),
        "ratquad": pm.gp.cov.RatQuad(3, alpha=2.0, ls=0.7),
        "exponential": pm.gp.cov.Exponential(3, ls=1.1),
        "cosine": pm.gp.cov.Cosine(3, ls=2.0),
        "linear": pm.gp.cov.Linear(3, c=0.5),
        "polynomial": pm.gp.cov.Polynomial(3, c=0.5, d=2, offset=1.0),
        "gibbs": pm.gp.cov.Gibbs(1, lambda x: 0.5 + 0.2 * x[:, 0] ** 2, active_dims=[1]),
        "scaled": pm.gp.cov.ScaledCov(1, pm.gp.cov.ExpQuad(1, 1.0), lambda x: x[:, 0] + 1.0,
                                      active_dims=[1]),
        "sum_prod": (pm.gp.cov.Matern12(3, 0.8) + 2.0) * pm.gp.cov.ExpQuad(3, 1.3) ** 2,
        "circular": pm.gp.cov.Circular(1, period=3.0, tau=4, active_dims=[0]),
    }
    for name, k in kernels.items():
        out[f"det_cov_{name}"] = np.asarray(k(X2).eval()).ravel().tolist()
        out[f"det_covdiag_{name}"] = np.asarray(k(X2, diag=True).eval()).tolist()
    return out


@program
def mixtures(quick: bool) -> dict[str, Any]:
    """pm.Mixture of different families, NormalMixture with dims, a Poisson mixture, and a
    mixture of MvNormal components; Dirichlet weights throughout."""
    rng = np.random.default_rng(28)
    data = np.concatenate([rng.normal(0, 1, 40), rng.standard_t(2, 20) * 2 + 5])
    counts = np.concatenate([rng.poisson(1.0, 30), rng.poisson(7.0, 30)])
    mv = np.concatenate([rng.normal([0, 0], 0.5, size=(20, 2)),
                         rng.normal([2, 2], 0.5, size=(20, 2))])
    with pm.Model(coords={"component": ["a", "b"]}) as model:
        w = pm.Dirichlet("w", np.ones(2), dims="component")
        mu = pm.Normal("mu", [0.0, 5.0], 2, dims="component")
        sd = pm.HalfNormal("sd", 2)
        comps = [pm.Normal.dist(mu[0], sd), pm.StudentT.dist(nu=3, mu=mu[1], sigma=2 * sd)]
        pm.Mixture("x", w=w, comp_dists=comps, observed=data)
        wn = pm.Dirichlet("wn", np.ones(3))
        mun = pm.Normal("mun", np.array([-1.0, 0.0, 1.0]), 3, shape=3,
                        transform=pm.distributions.transforms.ordered)
        pm.NormalMixture("xn", w=wn, mu=mun, sigma=np.array([1.0, 1.5, 2.0]), observed=data)
        wp = pm.Dirichlet("wp", np.ones(2))
        lam = pm.Gamma("lam", 2, 0.5, shape=2, transform=pm.distributions.transforms.ordered,
                       initval=np.array([1.0, 5.0]))
        pm.Mixture("k", w=wp, comp_dists=pm.Poisson.dist(lam), observed=counts)
        wm = pm.Dirichlet("wm", np.ones(2))
        mvc = [pm.MvNormal.dist(mu=pm.math.stack([m, m]), cov=np.eye(2) * 0.3)
               for m in (pm.Normal("m0", 0, 2), pm.Normal("m1", 2, 2))]
        pm.Mixture("mv", w=wm, comp_dists=mvc, observed=mv)
    # flat top: logp -538.2166 (opgraph's MAP) vs -538.2194 (PyTensor's), |dlogp| 2.79 at both
    out = _values(model, mapped="shown")
    out.update(prior_draws(model, ["w", "x", "xn", "k", "mv"], draws=10))
    return out


@program
def multivariate_families(quick: bool) -> dict[str, Any]:
    """MvNormal with LKJCholeskyCov (compute_corr), MvStudentT, Dirichlet/Multinomial,
    DirichletMultinomial, Wishart, MatrixNormal, KroneckerNormal, ZeroSumNormal."""
    rng = np.random.default_rng(29)
    data = rng.multivariate_normal([1.0, -1.0], [[1.0, 0.6], [0.6, 2.0]], size=30)
    coords = {"axis": ["x", "y"], "axis_bis": ["x", "y"], "n": np.arange(30)}
    with pm.Model(coords=coords) as model:
        chol, corr, stds = pm.LKJCholeskyCov("chol", n=2, eta=2.0,
                                             sd_dist=pm.Exponential.dist(1.0, shape=2),
                                             compute_corr=True)
        pm.Deterministic("corr", corr, dims=("axis", "axis_bis"))
        pm.Deterministic("stds", stds, dims="axis")
        mu = pm.Normal("mu", 0, 2, dims="axis")
        pm.MvNormal("obs", mu=mu, chol=chol, observed=data, dims=("n", "axis"))
        nu = pm.Gamma("nu", 2, 0.2)
        pm.MvStudentT("t", nu=nu, mu=mu, scale=np.array([[1.0, 0.2], [0.2, 0.5]]),
                      observed=data[:10])
        p = pm.Dirichlet("p", a=np.array([1.0, 2.0, 3.0]))
        pm.Multinomial("counts", n=20, p=p, observed=np.array([[3, 7, 10], [5, 5, 10]]))
        a = pm.HalfNormal("a", 2, shape=3)
        pm.DirichletMultinomial("dm", n=15, a=a, observed=np.array([[2, 5, 8], [6, 6, 3]]))
        pm.ZeroSumNormal("zsn", sigma=1.5, shape=4)
        pm.ZeroSumNormal("zsn2", sigma=1.0, n_zerosum_axes=2, shape=(3, 3))
        pm.MatrixNormal("mn", mu=np.zeros((2, 3)), rowchol=chol, colcov=np.eye(3) * 2.0,
                        observed=rng.normal(size=(2, 3)))
        pm.KroneckerNormal("kn", mu=np.zeros(4), covs=[np.array([[1.0, 0.3], [0.3, 1.0]]),
                                                      np.eye(2) * 0.5],
                           sigma=0.1, observed=rng.normal(size=4))
    out = _values(model)
    out.update(prior_draws(model, ["mu", "counts", "dm"], draws=10))
    # Dirichlet is gamma draws normalised (Numba rounds the gammas' scale otherwise)
    out.update(prior_draws(model, ["p", "chol", "obs", "t", "zsn", "zsn2"], draws=10,
                           kind="drawn"))
    scale = np.array([[2.0, 0.5], [0.5, 1.0]])
    wish = pm.Wishart.dist(nu=5, V=scale)
    value = np.array([[6.0, 1.0], [1.0, 4.0]])
    out["det_wishart_logp"] = float(pm.logp(wish, value).eval())
    out["drawn_wishart_draws"] = np.asarray(pm.draw(wish, draws=3, random_seed=2)).ravel().tolist()
    return out


@program
def timeseries_models(quick: bool) -> dict[str, Any]:
    """AR(2) with a constant and init_dist, GaussianRandomWalk with drift,
    MvGaussianRandomWalk, GARCH11 and an Ornstein-Uhlenbeck EulerMaruyama."""
    rng = np.random.default_rng(30)
    y = np.cumsum(rng.normal(0.1, 1, 40)) * 0.2
    returns = rng.standard_t(5, 50) * 0.02
    with pm.Model(coords={"time": np.arange(40)}) as model:
        coefs = pm.Normal("coefs", 0, 0.5, shape=3)
        sigma = pm.HalfNormal("sigma", 1)
        init = pm.Normal.dist(0, 2, shape=2)
        pm.AR("ar", coefs, sigma=sigma, constant=True, init_dist=init, ar_order=2,
              observed=y, dims="time")
        drift = pm.Normal("drift", 0, 0.5)
        pm.GaussianRandomWalk("grw", mu=drift, sigma=sigma, init_dist=pm.Normal.dist(0, 1),
                              observed=y)
        chol, _, _ = pm.LKJCholeskyCov("chol", n=2, eta=2.0,
                                       sd_dist=pm.HalfNormal.dist(1.0, shape=2))
        pm.MvGaussianRandomWalk("mvgrw", mu=np.zeros(2), chol=chol,
                                init_dist=pm.MvNormal.dist(np.zeros(2), np.eye(2)),
                                observed=np.stack([y, -y], axis=1)[:15])
        omega = pm.HalfNormal("omega", 0.01)
        a1 = pm.Uniform("alpha_1", 0, 0.5)
        b1 = pm.Uniform("beta_1", 0, 0.5)
        pm.GARCH11("garch", omega=omega, alpha_1=a1, beta_1=b1,
                   initial_vol=pm.math.constant(0.02), observed=returns)
        theta = pm.HalfNormal("theta", 1.0)
        pm.EulerMaruyama("ou", dt=0.1, sde_fn=lambda x, th: (-th * x, 0.3),
                         sde_pars=(theta,), init_dist=pm.Normal.dist(0, 1),
                         observed=y[:20] * 0.3)
    # no MAP: L-BFGS steps to scales where chol @ chol.T overflows (Cholesky gives NaN)
    out = _values(model, mapped=False)
    out.update(prior_draws(model, ["coefs", "drift", "sigma"], draws=10))
    out.update(prior_draws(model, ["ar", "grw", "garch", "ou"], draws=5, kind="drawn"))
    with pm.Model() as latent:
        pm.GaussianRandomWalk("walk", sigma=0.5, init_dist=pm.Normal.dist(0, 1), steps=10)
        pm.AR("ar_lat", [0.5, -0.2], sigma=1.0, constant=False,
              init_dist=pm.Normal.dist(0, 1, shape=2), steps=10)
        pm.GARCH11("g", omega=0.1, alpha_1=0.2, beta_1=0.5, initial_vol=0.5, steps=10)
    out.update({f"{k}_lat": v for k, v in point_values(latent, _at(latent, 5)).items()})
    out.update({f"{k}_lat": v for k, v in prior_draws(latent, ["walk", "ar_lat", "g"], draws=5,
                                                      kind="drawn").items()})
    return out


def _local_level_dist(sigma_level: Any, sigma_obs: Any, steps: int, size: Any) -> Any:
    """A local-level state-space model: a random-walk state, observed with noise."""
    rng = pytensor.shared(np.random.default_rng())

    def step(level: Any, rng: Any, sigma_level: Any) -> Any:
        next_rng, new = pm.Normal.dist(level, sigma_level, rng=rng, return_next_rng=True)
        return new, next_rng

    levels, _ = pytensor.scan(step, outputs_info=[pt.zeros(()), rng],
                              non_sequences=[sigma_level], n_steps=steps, strict=True,
                              return_updates=False)
    return levels


@program
def statespace_scan(quick: bool) -> dict[str, Any]:
    """A local-level model written with scan in a CustomDist (the level latent), and a
    Kalman-filter likelihood in scan added as a pm.Potential."""
    steps = 15
    y = np.cumsum(np.random.default_rng(31).normal(0, 0.3, steps)) + 1.0
    with pm.Model() as model:
        s_level = pm.HalfNormal("s_level", 0.5)
        s_obs = pm.HalfNormal("s_obs", 0.5)
        level = pm.CustomDist("level", s_level, s_obs, steps,
                              dist=_local_level_dist, shape=(steps,))
        pm.Normal("y", level, s_obs, observed=y)
    # a latent level per step: the density is unbounded as s_level -> 0, so the MAP is shown
    out = _values(model, mapped="shown")
    out.update(prior_draws(model, ["s_level"], draws=10))
    out.update(prior_draws(model, ["level"], draws=5, kind="drawn"))

    def kalman_step(obs: Any, m: Any, P: Any, ll: Any, q: Any, r: Any) -> Any:
        P_pred = P + q
        S = P_pred + r
        K = P_pred / S
        innov = obs - m
        ll_new = ll - 0.5 * (pt.log(2 * np.pi * S) + innov**2 / S)
        return m + K * innov, (1 - K) * P_pred, ll_new

    with pm.Model() as kalman:
        q = pm.HalfNormal("q", 0.5)
        r = pm.HalfNormal("r", 0.5)
        (_, _, ll), _ = pytensor.scan(kalman_step, sequences=[pt.as_tensor(y)],
                                      # float64 states: PyTensor makes a Python 1.0 a float32
                                      # constant, and its scan refuses a float32 initial state
                                      # for a float64 step result
                                      outputs_info=[pt.as_tensor(y[0]),
                                                    pt.constant(1.0, dtype="float64"),
                                                    pt.constant(0.0, dtype="float64")],
                                      non_sequences=[q**2, r**2])
        pm.Potential("loglik", ll[-1])
    kout = _values(kalman)
    out.update({f"{k}_kalman" if k.startswith("det_") else k: v for k, v in kout.items()})
    return out


@program
def censored_truncated_families(quick: bool) -> dict[str, Any]:
    """Censored Poisson, StudentT and Gamma (one bound or two, as tensors); Truncated
    Poisson, Gamma, Exponential and StudentT; seeded draws of each."""
    rng = np.random.default_rng(32)
    counts = np.minimum(rng.poisson(4, 30), 6)
    times = np.minimum(rng.gamma(2, 2, 30), 8.0)
    values = np.clip(rng.normal(0, 2, 30), -3, 3)
    with pm.Model() as model:
        lam = pm.Gamma("lam", 2, 0.5)
        pm.Censored("cp", pm.Poisson.dist(lam), lower=None, upper=6, observed=counts)
        alpha = pm.Gamma("alpha", 2, 1)
        beta = pm.Gamma("beta", 2, 1)
        pm.Censored("cg", pm.Gamma.dist(alpha, beta), lower=0, upper=8.0, observed=times)
        mu = pm.Normal("mu", 0, 2)
        lower = pm.Data("lower", -3.0)
        pm.Censored("ct", pm.StudentT.dist(nu=4, mu=mu, sigma=2), lower=lower, upper=3.0,
                    observed=values)
        pm.Truncated("tp", pm.Poisson.dist(lam), lower=1, observed=np.array([1, 2, 5, 3]))
        pm.Truncated("tg", pm.Gamma.dist(alpha, beta), upper=5.0,
                     observed=np.array([0.5, 2.0, 4.5]))
        rate = pm.HalfNormal("rate", 2)
        pm.Truncated("te", pm.Exponential.dist(rate), lower=0.5, upper=4.0,
                     observed=np.array([0.7, 1.5, 3.9]))
        pm.Truncated("tt", pm.StudentT.dist(nu=5, mu=mu, sigma=1), lower=-1.0,
                     observed=np.array([-0.5, 0.3, 2.5]))
    out = _values(model)
    out.update(prior_draws(model, ["lam", "cp", "tp"], draws=10))
    with pm.Model() as draws_model:
        pm.Truncated("tn", pm.Normal.dist(0, 1), lower=-1.0, upper=2.0, shape=5)
        pm.Truncated("tpois", pm.Poisson.dist(3.0), lower=2, upper=6, shape=5)
        pm.Censored("cn", pm.Normal.dist(0, 2), lower=-1.0, upper=1.0, shape=5)
    out.update(prior_draws(draws_model, ["tn", "tpois", "cn"], draws=5, kind="drawn"))
    return out


@program
def missing_and_measurement(quick: bool) -> dict[str, Any]:
    """Masked observed arrays that PyMC imputes (univariate and MvNormal rows), NaN
    observations, and a measurement-error (errors-in-variables) regression."""
    rng = np.random.default_rng(33)
    x_true = rng.normal(0, 1, 25)
    x_obs = x_true + rng.normal(0, 0.3, 25)
    y = 0.5 + 1.2 * x_true + rng.normal(0, 0.2, 25)
    y_missing = np.ma.masked_array(y, mask=np.zeros(25, bool))
    y_missing.mask[[2, 9, 17]] = True
    mv = rng.normal(size=(10, 2))
    mv[[1, 6], 0] = np.nan
    with pm.Model() as model:
        a = pm.Normal("a", 0, 2)
        b = pm.Normal("b", 0, 2)
        s = pm.HalfNormal("s", 1)
        x_lat = pm.Normal("x_lat", 0, 1, shape=25)
        pm.Normal("x_obs", x_lat, 0.3, observed=x_obs)
        pm.Normal("y", a + b * x_lat, s, observed=y_missing)
        z = np.array([1.0, np.nan, 0.5, -0.2, np.nan, 2.0])
        pm.Normal("z", a, 1.0, observed=z)
        pm.MvNormal("mv", mu=np.zeros(2), cov=np.array([[1.0, 0.5], [0.5, 1.0]]), observed=mv)
    # unbounded density: at both backends' MAP |dlogp| is 1e8 and logp 282.5 vs 284.8
    out = _values(model, mapped="shown")
    out["info_free"] = sorted(v.name for v in model.free_RVs)
    out.update(prior_draws(model, ["a", "y", "z"], draws=10))
    return out


@program
def math_functions(quick: bool) -> dict[str, Any]:
    """pm.math in likelihoods: logsumexp mixtures written by hand, invlogit/logit,
    log1pexp, matrix ops (dot, matrix_inverse, det, logdet, cholesky, kron, outer)."""
    rng = np.random.default_rng(34)
    data = np.concatenate([rng.normal(-1, 0.5, 20), rng.normal(2, 0.8, 20)])
    A = rng.normal(size=(3, 3))
    spd = A @ A.T + 3 * np.eye(3)
    with pm.Model() as model:
        w = pm.Dirichlet("w", np.ones(2))
        mu = pm.Normal("mu", [-1.0, 1.0], 1, shape=2)
        sd = pm.HalfNormal("sd", 1, shape=2)
        comp = pm.logp(pm.Normal.dist(mu, sd), data[:, None]) + pm.math.log(w)
        pm.Potential("mix", pm.math.logsumexp(comp, axis=1).sum())
        q = pm.Beta("q", 2, 2)
        lo = pm.Deterministic("lo", pm.math.logit(q))
        pm.Potential("back", -((pm.math.invlogit(lo) - 0.3) ** 2) + pm.math.log1pexp(lo) * 0.1)
        scale = pm.HalfNormal("scale", 1)
        M = scale * pt.as_tensor(spd)
        pm.Potential("lin", -pm.math.dot(mu[:1], mu[:1]) - pm.math.trace(
            pm.math.matrix_inverse(M)) - pt.log(pm.math.det(M)) + pm.math.logdet(M)
            - 0.1 * pt.sum(pt.linalg.cholesky(M)) - pt.sum(pm.math.kron(M, M)) * 1e-3)
        pm.Potential("misc", pm.math.sum(pm.math.sigmoid(mu)) + pm.math.prod(sd)
                     - pm.math.sqr(pm.math.abs(mu[0])) + pm.math.erf(mu[1])
                     + pm.math.log1mexp(-sd[0]) - pm.math.logaddexp(mu[0], mu[1])
                     + pm.math.softmax(mu)[0] + pm.math.clip(mu[0], -1, 1)
                     + pm.math.where(mu[1] > 0, mu[1], 0.0)
                     - pm.math.sum(pt.outer(sd, sd)) * 0.01)
    out = _values(model)
    det_fn = pytensor.function([], [pt.linalg.matrix_dot(spd, spd, spd), pm.math.flatten(spd)])
    out["det_matrix_dot"] = np.concatenate([np.ravel(v) for v in det_fn()]).tolist()
    return out
