"""Real PyMC programs, one per family, each returning the numbers another backend must match.

Run under opgraph (the ``opgraph-pytensor`` layer installed) and under PyTensor
3.0.7 in a second environment, the results are compared by ``compare.py``:

    python tests/pymc/programs.py --out results.json [--only NAME ...] [--quick]

Each program returns a dict of named values in one of four kinds (the key's
prefix says how it is compared): ``exact_`` (seeded forward draws: equal),
``drawn_`` (seeded draws passed through arithmetic: 1e-12 relative),
``det_`` (logp, dlogp, MAP: 1e-8 relative), ``near_`` (1e-6 relative), ``mc_`` (a posterior or
variational mean, with its Monte Carlo error in ``mcse_<name>``), ``info_``
(not compared).  The module imports only PyMC, NumPy and the standard
library, so it runs unchanged on either backend.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np
import pymc as pm
import pytensor
from program_kit import (
    PROGRAMS,
    map_values,
    nuts,
    point_values,
    posterior,
    prior_draws,
    program,
)

QUICK = ("eight_schools",)
"""The programs the quick guard (``nox -s pymc-quick``) runs."""


@program
def eight_schools(quick: bool) -> dict[str, Any]:
    y = np.array([28.0, 8, -3, 7, -1, 1, 18, 12])
    sigma = np.array([15.0, 10, 16, 11, 9, 11, 10, 18])
    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        theta = pm.Normal("theta", 0, 1, shape=8)
        pm.Normal("obs", mu + tau * theta, sigma, observed=y)
    out = point_values(model, model.initial_point())
    out.update(point_values(model, {"mu": 1.0, "tau_log__": 0.5, "theta": np.linspace(-1, 1, 8)}))
    out.update(map_values(model))
    out.update(prior_draws(model, ["mu", "tau", "obs"]))
    out.update(nuts(model, 150 if quick else 500, ["mu"], target_accept=0.9))
    return out


@program
def hierarchical_logistic(quick: bool) -> dict[str, Any]:
    rng = np.random.default_rng(3)
    groups = rng.integers(0, 4, 200)
    x = rng.normal(size=200)
    y = rng.random(200) < 1 / (1 + np.exp(-(0.5 * x + 0.3 * groups - 0.5)))
    with pm.Model(coords={"g": range(4)}) as model:
        mu_a = pm.Normal("mu_a", 0, 1)
        sd_a = pm.HalfNormal("sd_a", 1)
        a = pm.Normal("a", mu_a, sd_a, dims="g")
        b = pm.Normal("b", 0, 1)
        pm.Bernoulli("y", logit_p=a[groups] + b * x, observed=y)
    out = point_values(model, model.initial_point())
    # A centred hierarchy has no interior MAP (the density grows without bound as sd_a -> 0):
    # where L-BFGS stops depends on the last bits of every gradient, so it is shown, not compared.
    out.update({"info_" + k[len("det_"):]: v for k, v in map_values(model).items()})
    out.update(nuts(model, 300, ["b", "mu_a"]))
    return out


@program
def gaussian_process(quick: bool) -> dict[str, Any]:
    X = np.linspace(0, 5, 25)[:, None]
    y = np.sin(X[:, 0]) + 0.1 * np.cos(7 * X[:, 0])
    with pm.Model() as model:
        ell = pm.Gamma("ell", 2, 1)
        eta = pm.HalfNormal("eta", 1)
        gp = pm.gp.Marginal(cov_func=eta**2 * pm.gp.cov.ExpQuad(1, ell))
        gp.marginal_likelihood("y", X=X, y=y, sigma=0.1)
    out = point_values(model, model.initial_point())
    out.update(map_values(model))
    return out


@program
def normal_mixture(quick: bool) -> dict[str, Any]:
    rng = np.random.default_rng(5)
    data = np.concatenate([rng.normal(-2, 0.5, 60), rng.normal(2, 0.7, 40)])
    with pm.Model() as model:
        w = pm.Dirichlet("w", np.ones(2))
        mu = pm.Normal("mu", [-1.0, 1.0], 2, shape=2, transform=pm.distributions.transforms.ordered)
        sd = pm.HalfNormal("sd", 1, shape=2)
        pm.NormalMixture("x", w, mu, sd, observed=data)
    out = point_values(model, model.initial_point())
    out.update(map_values(model))
    return out


@program
def timeseries(quick: bool) -> dict[str, Any]:
    data = np.cumsum(np.random.default_rng(2).normal(size=30))
    with pm.Model() as model:
        rho = pm.Normal("rho", 0, 0.5, shape=2)
        sigma = pm.HalfNormal("sigma", 1)
        pm.AR("ar", rho, sigma=sigma, init_dist=pm.Normal.dist(0, 10), observed=data)
        pm.GaussianRandomWalk("grw", sigma=sigma, init_dist=pm.Normal.dist(0, 1), steps=10)
    out = point_values(model, model.initial_point())
    out.update(prior_draws(model, ["rho", "grw"]))
    return out


@program
def timeseries_sde_ordinal(quick: bool) -> dict[str, Any]:
    """AR(1) given one coefficient (a one-tap scan), an SDE whose seeded initial point
    depends on the order the function's generators are found in, an ordinal model."""
    data = np.cumsum(np.random.default_rng(4).normal(size=20)) * 0.3
    with pm.Model() as model:
        rho = pm.Normal("rho", 0, 0.5)
        sigma = pm.HalfNormal("sigma", 1)
        pm.AR("ar1", [rho], sigma=sigma, init_dist=pm.Normal.dist(0, 2), observed=data)
        pm.AR("ar1_latent", [0.6], sigma=1.0, init_dist=pm.Normal.dist(0, 1), steps=8)
        theta = pm.HalfNormal("theta", 1.0)
        pm.EulerMaruyama("em", dt=0.1, sde_fn=lambda x, th: (-th * x, 0.5), sde_pars=(theta,),
                         init_dist=pm.Normal.dist(0, 1), steps=6)
        cut = pm.Normal("cut", mu=np.array([-1.0, 0.0, 1.0]), sigma=1.0, shape=3,
                        transform=pm.distributions.transforms.ordered)
        pm.OrderedLogistic("ord", eta=rho, cutpoints=cut, observed=np.array([0, 1, 2, 3, 1]))
    point = model.initial_point(random_seed=3)
    # drawn: the SDE steps are arithmetic on draws (Numba rounds some last bits otherwise)
    out = {f"drawn_init_{k}": np.asarray(v).tolist() for k, v in sorted(point.items())}
    out.update(point_values(model, point))
    out.update(prior_draws(model, ["ar1_latent", "em"], kind="drawn"))
    return out


@program
def custom_dist_scan(quick: bool) -> dict[str, Any]:
    """AR processes written as CustomDists whose dist threads the generator through scan.

    PyMC derives their logp from the Scan (its measurable-scan rewrites): an AR(1)
    (a sit-sot output) and an AR(2) (a mit-sot output, taps -2 and -1).
    """
    steps = 12

    def ar1_dist(rho: Any, sigma: Any, size: Any) -> Any:
        rng = pytensor.shared(np.random.default_rng())

        def step(prev: Any, rng: Any, rho: Any, sigma: Any) -> Any:
            next_rng, x = pm.Normal.dist(rho * prev, sigma, rng=rng, return_next_rng=True)
            return x, next_rng

        xs, _ = pytensor.scan(step, outputs_info=[pytensor.tensor.zeros(()), rng],
                              non_sequences=[rho, sigma], n_steps=steps, strict=True,
                              return_updates=False)
        return xs

    def ar2_dist(rho: Any, sigma: Any, size: Any) -> Any:
        rng = pytensor.shared(np.random.default_rng())

        def step(x2: Any, x1: Any, rng: Any, rho: Any, sigma: Any) -> Any:
            next_rng, x = pm.Normal.dist(rho[0] * x2 + rho[1] * x1, sigma, rng=rng,
                                         return_next_rng=True)
            return x, next_rng

        init = {"initial": pytensor.tensor.as_tensor([0.5, -0.25]), "taps": [-2, -1]}
        xs, _ = pytensor.scan(step, outputs_info=[init, rng], non_sequences=[rho, sigma],
                              n_steps=steps, strict=True, return_updates=False)
        return xs

    data = np.sin(np.linspace(0, 3, steps))
    with pm.Model() as model:
        rho = pm.Uniform("rho", -1, 1)
        rho2 = pm.Normal("rho2", 0, 0.5, shape=2)
        sigma = pm.HalfNormal("sigma", 1)
        pm.CustomDist("ar1", rho, sigma, dist=ar1_dist, observed=data)
        pm.CustomDist("ar2", rho2, sigma, dist=ar2_dist, observed=data[::-1])
    out = point_values(model, model.initial_point())
    point = {"rho_interval__": 0.3, "rho2": [0.2, -0.4], "sigma_log__": -0.2}
    out.update({f"{k}_at_point": v for k, v in point_values(model, point).items()})
    out.update(map_values(model))
    out.update(prior_draws(model, ["rho", "rho2"], draws=10))
    # rho * prev + sigma * z: Numba (PyTensor's default) rounds it differently
    out.update(prior_draws(model, ["ar1", "ar2"], draws=10, kind="drawn"))
    with model:
        idata = pm.sample(draws=150, tune=150, chains=1, cores=1, random_seed=11,
                          progressbar=False, compute_convergence_checks=False)
        pp = pm.sample_posterior_predictive(idata, random_seed=5, progressbar=False)
    out.update(posterior(idata, ["rho", "sigma"]))
    for name in ("ar1", "ar2"):
        draws = np.asarray(pp.posterior_predictive[name]).reshape(-1, steps)
        out[f"mc_pp_{name}"] = draws.mean(axis=0).tolist()
        out[f"mcse_pp_{name}"] = (draws.std(axis=0) / np.sqrt(draws.shape[0] / 4)).tolist()
    return out


@program
def lkj_mvnormal(quick: bool) -> dict[str, Any]:
    """LKJCholeskyCov (its forward draw is a strict scan) with an MvNormal likelihood."""
    data = np.random.default_rng(5).multivariate_normal(
        [0.5, -1.0, 0.0], [[1.0, 0.3, 0.1], [0.3, 2.0, -0.4], [0.1, -0.4, 0.5]], size=40)
    with pm.Model() as model:
        chol, _corr, _stds = pm.LKJCholeskyCov(
            "chol", n=3, eta=2.0, sd_dist=pm.Exponential.dist(1.0, shape=3), compute_corr=True)
        mu = pm.Normal("mu", 0, 2, shape=3)
        pm.MvNormal("x", mu=mu, chol=chol, observed=data)
    out = point_values(model, model.initial_point())
    out.update(map_values(model))
    out.update(prior_draws(model, ["mu"], draws=10))
    out.update(prior_draws(model, ["chol"], draws=10, kind="drawn"))
    return out


@program
def car_sparse(quick: bool) -> dict[str, Any]:
    """CAR with a scipy.sparse adjacency matrix W (a ring of 6 areas), Poisson counts."""
    import scipy.sparse as sps

    n = 6
    dense = np.zeros((n, n))
    for i in range(n):
        dense[i, (i + 1) % n] = dense[(i + 1) % n, i] = 1.0
    counts = np.array([3, 5, 2, 8, 4, 6])
    with pm.Model() as model:
        tau = pm.Gamma("tau", 2, 2)
        alpha = pm.Beta("alpha", 2, 2)
        phi = pm.CAR("phi", mu=np.zeros(n), W=sps.csr_matrix(dense), alpha=alpha, tau=tau)
        pm.Poisson("y", mu=pm.math.exp(1.0 + phi), observed=counts)
    out = point_values(model, model.initial_point())
    out.update(point_values(model, {"tau_log__": 0.2, "alpha_logodds__": -0.3,
                                     "phi": np.linspace(-0.5, 0.5, n)}))
    out.update(map_values(model))
    out.update(prior_draws(model, ["y"], draws=10))
    out.update(prior_draws(model, ["phi"], draws=10, kind="drawn"))
    return out


@program
def constrained_prior(quick: bool) -> dict[str, Any]:
    """find_constrained_prior at a bound where the logcdf is -inf (its gradient term 0*inf)."""
    out: dict[str, Any] = {}
    for dist, guess in ((pm.Exponential, {"lam": 1.0}), (pm.HalfNormal, {"sigma": 1.0})):
        (name,) = guess
        param = pytensor.tensor.dvector(name)
        rv = dist.dist(**{name: param[0]})
        # the term whose gradient is 0 * inf at the bound (PyTensor: 0); away from the
        # bound PyTensor's HalfNormal logcdf differs from SciPy's by 5e-8 (opgraph's agrees)
        target = pm.math.exp(pm.logcdf(rv, 0.0)) ** 2
        grad = pytensor.grad(target, param)
        values = pm.pytensorf.compile([param], [target, grad])(np.array([0.7]))
        out[f"det_{dist.__name__}_target_grad"] = np.concatenate(
            [np.ravel(v) for v in values]).tolist()
        # an optimiser's stopping point (SLSQP, ftol 1e-6): shown, not compared
        found = pm.find_constrained_prior(dist, lower=0.0, upper=1.0, mass=0.75,
                                          init_guess=guess)
        out[f"info_{dist.__name__}_{name}"] = float(found[name])
    return out


@program
def censored_truncated(quick: bool) -> dict[str, Any]:
    data = np.array([0.2, 1.5, 3.0, 3.0, 2.2, -1.0, 3.0])
    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 3)
        sd = pm.HalfNormal("sd", 2)
        pm.Censored("c", pm.Normal.dist(mu, sd), lower=-1.0, upper=3.0, observed=data)
        pm.Truncated("t", pm.Normal.dist(mu, sd), lower=0.0, observed=np.array([0.5, 1.0, 2.5]))
    out = point_values(model, model.initial_point())
    out.update(map_values(model))
    return out


def _family_models() -> dict[str, pm.Model]:
    """One model per family of PyMC's distributions not covered by the other programs."""
    rng = np.random.default_rng(12)
    models = {}
    with pm.Model() as models["continuous"]:
        pm.ExGaussian("exg", mu=0, sigma=1, nu=0.5, observed=rng.normal(size=5))
        pm.VonMises("vm", mu=0.3, kappa=2.0)
        pm.Kumaraswamy("ku", a=2, b=3)
        pm.Moyal("mo", mu=0, sigma=1)
        pm.LogitNormal("ln", mu=0, sigma=1)  # a CustomDist whose dist is a graph
        pm.Wald("wa", mu=1, lam=2)
        pm.Rice("ri", nu=1, sigma=1)
        pm.AsymmetricLaplace("al", b=1, kappa=2, mu=0)
        pm.Triangular("tr", lower=0, c=0.3, upper=1)
        pm.HalfStudentT("hst", nu=3, sigma=1)
        pm.Pareto("pa", alpha=3, m=1)
        pm.Weibull("we", alpha=2, beta=1)
        pm.ChiSquared("cs", nu=3)
    with pm.Model() as models["discrete"]:
        p = pm.Beta("p", 2, 2)
        pm.BetaBinomial("bb", alpha=2, beta=3, n=10, observed=[1, 4, 7])
        pm.HyperGeometric("hg", N=20, k=7, n=5, observed=[1, 2, 3])
        pm.NegativeBinomial("nb", mu=3, alpha=p * 5, observed=[0, 2, 8])
        pm.DiscreteWeibull("dw", q=0.6, beta=1.3, observed=[0, 1, 3])
        pm.ZeroInflatedNegativeBinomial("zinb", psi=p, mu=2, alpha=2, observed=[0, 1, 3])
        pm.HurdleGamma("hgam", psi=p, alpha=2, beta=1, observed=[0.0, 1.2, 3.0])
        pm.OrderedProbit("op", eta=p, cutpoints=np.array([-1.0, 0.0, 1.0]), sigma=1.0,
                         observed=[0, 3, 2])
    with pm.Model() as models["multivariate"]:
        chol, _, _ = pm.LKJCholeskyCov("chol", n=3, eta=2, compute_corr=True,
                                       sd_dist=pm.Exponential.dist(1, shape=3))
        pm.MatrixNormal("mn", mu=np.zeros((2, 3)), rowcov=np.eye(2), colchol=chol,
                        observed=rng.normal(size=(2, 3)))
        pm.KroneckerNormal("kn", mu=np.zeros(6), covs=[np.eye(2) * 2, np.eye(3) + 0.1],
                           observed=rng.normal(size=6))
        pm.LKJCorr("lkjc", n=3, eta=2)
        pm.StickBreakingWeights("sbw", alpha=2.0, K=4)
        pm.DirichletMultinomial("dm", n=10, a=np.ones(3), observed=[2, 3, 5])
    return models


@program
def distribution_families(quick: bool) -> dict[str, Any]:
    """logp terms and gradients of one model per family at a jittered point, and seeded draws.

    Compared to 1e-6 (``near_``): PyTensor computes several of these logps through
    float32 constants (`pt.log(2)` of an int8), about 3e-8 from SciPy's value, which
    opgraph gives; its Numba draws of Wald and AsymmetricLaplace round differently.
    """
    out: dict[str, Any] = {}
    for name, model in _family_models().items():
        # the initial point rounded: it differs by ~1e-8 between the two (PyTensor makes
        # `pt.log(2)` float32, opgraph float64; docs/migrating.md, "Numbers and types")
        jitter = np.random.default_rng(2)
        point = {k: np.round(v, 4) + 0.05 * jitter.normal(size=np.shape(v))
                 for k, v in model.initial_point(random_seed=1).items()}
        terms = model.compile_logp(sum=False)(point)
        out[f"near_{name}_logp"] = [float(np.sum(t)) for t in terms]
        out[f"near_{name}_dlogp"] = np.asarray(
            model.compile_dlogp()(point)).tolist()
        draws = pm.draw(model.free_RVs, draws=3, random_seed=5)
        kind = {"continuous": "near", "multivariate": "drawn"}.get(name, "exact")
        out[f"{kind}_{name}_draws"] = np.concatenate(
            [np.asarray(d, dtype=float).ravel() for d in draws]).tolist()
    return out


@program
def advi_minibatch(quick: bool) -> dict[str, Any]:
    rng = np.random.default_rng(9)
    x = rng.normal(size=500)
    y = 1.5 * x + 0.3 + rng.normal(0, 0.5, 500)
    with pm.Model():
        w = pm.Normal("w", 0, 5)
        c = pm.Normal("c", 0, 5)
        pm.Normal("y", w * x + c, 0.5, observed=y)
        approx = pm.fit(n=3000, random_seed=3, progressbar=False)
    mean = approx.mean.eval()
    out: dict[str, Any] = {"mc_advi_mean": mean.tolist(), "mcse_advi_mean": [0.05, 0.05]}
    xb, yb = pm.Minibatch(x, y, batch_size=100)
    with pm.Model():
        w = pm.Normal("w", 0, 5)
        c = pm.Normal("c", 0, 5)
        pm.Normal("y", w * xb + c, 0.5, observed=yb, total_size=500)
        mb = pm.fit(n=3000, random_seed=3, progressbar=False)
    out["mc_minibatch_mean"] = mb.mean.eval().tolist()
    out["mcse_minibatch_mean"] = [0.05, 0.05]
    return out


@program
def data_and_predictive(quick: bool) -> dict[str, Any]:
    x = np.linspace(-1, 1, 20)
    y = 2 * x + 0.1 * np.sin(9 * x)
    with pm.Model():
        xd = pm.Data("x", x)
        slope = pm.Normal("slope", 0, 3)
        pm.Normal("y", slope * xd, 0.2, observed=y, shape=xd.shape)
        idata = pm.sample(draws=300, tune=300, chains=1, cores=1, random_seed=4,
                          progressbar=False, compute_convergence_checks=False)
        pm.set_data({"x": np.array([0.0, 0.5, 1.0])})
        pp = pm.sample_posterior_predictive(idata, random_seed=5, progressbar=False)
    out = posterior(idata, ["slope"])
    draws = np.asarray(pp.posterior_predictive["y"]).reshape(-1, 3)
    out["mc_pp_y"] = draws.mean(axis=0).tolist()
    out["mcse_pp_y"] = (draws.std(axis=0) / np.sqrt(draws.shape[0] / 4)).tolist()
    return out


@program
def steppers(quick: bool) -> dict[str, Any]:
    with pm.Model() as model:
        p = pm.Beta("p", 2, 2)
        k = pm.Poisson("k", 3.0)
        pm.Binomial("obs", n=20, p=p, observed=13)
        pm.Normal("z", k, 1, observed=2.5)
    out = point_values(model, model.initial_point())
    with model:
        idata = pm.sample(draws=1000, tune=500, chains=1, cores=1, random_seed=8,
                          progressbar=False, compute_convergence_checks=False,
                          step=[pm.NUTS([p]), pm.Metropolis([k])])
    out.update(posterior(idata, ["p", "k"]))
    with pm.Model():
        q = pm.Beta("q", 2, 2)
        pm.Binomial("obs", n=20, p=q, observed=13)
        smc = pm.sample_smc(draws=300, chains=1, cores=1, random_seed=6, progressbar=False,
                            compute_convergence_checks=False)
    out.update(posterior(smc, ["q"]))
    return out


# more programs, one module per area; importing them registers their programs
import programs_inference  # noqa: E402, F401
import programs_logprob  # noqa: E402, F401
import programs_models  # noqa: E402, F401


def run(names: list[str], quick: bool) -> dict[str, Any]:
    """Each program's values, or its error (a program that raises is reported, not fatal)."""
    results: dict[str, Any] = {}
    for name in names:
        start = time.perf_counter()
        try:
            values = PROGRAMS[name](quick)
            values["info_seconds"] = round(time.perf_counter() - start, 2)
            results[name] = values
        except Exception as exc:  # reported per program, so one failure hides no other
            results[name] = {"error": f"{type(exc).__name__}: {exc}"}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    names = args.only or (list(QUICK) if args.quick else list(PROGRAMS))
    unknown = sorted(set(names) - set(PROGRAMS))
    if unknown:
        parser.error(f"unknown programs {unknown}; known: {sorted(PROGRAMS)}")
    results = run(names, args.quick)
    results["_backend"] = {"pytensor": pytensor.__name__, "file": pytensor.__file__}
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=1)
    failed = [n for n in names if "error" in results[n]]
    for n in failed:
        print(f"{n}: {results[n]['error']}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
