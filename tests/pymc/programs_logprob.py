"""More PyMC programs: logp/logcdf/icdf of derived variables and model fgraphs.

Each ``@program`` (from ``program_kit``) registers itself when ``programs.py`` imports
this module; the values follow the key prefixes of ``programs.py``'s docstring.
The programs here are written as PyMC users write them (its docs and examples):
``pm.logp`` of transformed and combined random variables, ``CustomDist``,
``pymc.logprob``'s conditional logps, model logps by term, transforms and their
Jacobians, ``pymc.pytensorf`` helpers and model fgraphs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from program_kit import point_values, program
from pymc.distributions import transforms as tr
from pymc.logprob.basic import conditional_logp, transformed_conditional_logp
from pymc.logprob.utils import replace_rvs_by_values
from pymc.model.fgraph import fgraph_from_model, model_from_fgraph
from pymc.pytensorf import collect_default_updates, constant_fold


def _ev(x: Any) -> list[Any] | float:
    """The value of a graph without inputs, as JSON (floats, nested lists)."""
    value = np.asarray(x.eval() if hasattr(x, "eval") else x, dtype=float)
    return value.tolist()


def _near(out: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """Compare ``keys`` to 1e-6 (``near_``): PyTensor computes them through float32 constants.

    PyTensor turns small integer constants (``int8``) into ``float32`` in float
    expressions (``log(2)``, ``n + 1``...), so its logps are off by ~1e-8
    relative where opgraph's equal SciPy's (docs/pymc.md, "Known differences").
    """
    return {(f"near_{k[4:]}" if k in keys else k): v for k, v in out.items()}


def _split_nonfinite(out: dict[str, Any]) -> dict[str, Any]:
    """A ``det_`` value holding -inf/inf/nan: its finite entries stay ``det_`` (1e-8), the
    whole value is compared as ``near_<name>_all`` (infinities equal, NaN equal)."""
    done: dict[str, Any] = {}
    for key, value in out.items():
        arr = np.asarray(value, dtype=float) if key.startswith("det_") else None
        if arr is not None and not np.all(np.isfinite(arr)):
            done[key] = arr[np.isfinite(arr)].tolist()
            done[f"near_{key[4:]}_all"] = value
        else:
            done[key] = value
    return done


def lp_program(fn: Callable[[bool], dict[str, Any]]) -> Callable[[bool], dict[str, Any]]:
    """``@program``, with the non-finite ``det_`` values split (see ``_split_nonfinite``)."""

    @functools.wraps(fn)
    def run(quick: bool) -> dict[str, Any]:
        return _split_nonfinite(fn(quick))

    return program(run)


@lp_program
def lp_derived_transforms(quick: bool) -> dict[str, Any]:
    """pm.logp of exp/log/affine/abs/power transforms of random variables."""
    out: dict[str, Any] = {}
    x = pm.Normal.dist(0.5, 1.3)
    v = np.array([-2.0, -0.1, 0.0, 0.3, 1.7, 4.0])
    pos = np.array([0.05, 0.5, 1.0, 2.5, 7.0])
    out["det_exp"] = _ev(pm.logp(pt.exp(x), pos))
    out["det_lognormal_ref"] = _ev(pm.logp(pm.LogNormal.dist(0.5, 1.3), pos))
    out["det_affine"] = _ev(pm.logp(2.0 * x + 1.0, v))
    out["det_affine_neg"] = _ev(pm.logp(-3.0 * x - 0.5, v))
    out["det_abs"] = _ev(pm.logp(pt.abs(x), np.abs(v)))
    g = pm.Gamma.dist(2.0, 1.5)
    out["det_log_gamma"] = _ev(pm.logp(pt.log(g), v))
    out["det_sqr_halfnormal"] = _ev(pm.logp(pt.sqr(pm.HalfNormal.dist(1.0)), pos))
    out["det_reciprocal"] = _ev(pm.logp(1 / pm.Exponential.dist(2.0), pos))
    out["det_log_beta"] = _ev(pm.logp(pt.log(pm.Beta.dist(2.0, 3.0)), -pos))
    out["det_exp_logcdf"] = _ev(pm.logcdf(pt.exp(x), pos))
    out["det_affine_logcdf"] = _ev(pm.logcdf(2.0 * x + 1.0, v))
    out["det_affine_icdf"] = _ev(pm.icdf(2.0 * x + 1.0, np.array([0.01, 0.3, 0.5, 0.99])))
    out["det_exp_icdf"] = _ev(pm.icdf(pt.exp(x), np.array([0.1, 0.5, 0.9])))
    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 1)
        pm.CustomDist("y", mu, dist=lambda m, size: pt.exp(pm.Normal.dist(m, 0.5, size=size)),
                      observed=pos)
    out.update({f"{k}_model": val for k, val in point_values(model, {"mu": 0.3}).items()})
    return _near(out, ("det_affine_logcdf", "det_exp_logcdf", "det_log_beta", "det_log_gamma"))


@lp_program
def lp_logcdf_icdf(quick: bool) -> dict[str, Any]:
    """pm.logcdf and pm.icdf of many families, inside and at the edges of the support."""
    out: dict[str, Any] = {}
    xs = np.array([-np.inf, -3.0, -0.5, 0.0, 0.4, 1.0, 2.5, np.inf])
    ps = np.array([0.0, 1e-6, 0.1, 0.5, 0.9, 1 - 1e-6, 1.0])
    cont = {
        "normal": pm.Normal.dist(0.2, 1.5),
        "student": pm.StudentT.dist(4.0, 0.0, sigma=2.0),
        "laplace": pm.Laplace.dist(0.0, 0.7),
        "logistic": pm.Logistic.dist(0.5, 1.2),
        "cauchy": pm.Cauchy.dist(0.0, 1.0),
        "gumbel": pm.Gumbel.dist(0.0, 1.0),
        "uniform": pm.Uniform.dist(-1.0, 2.0),
        "exponential": pm.Exponential.dist(1.5),
        "halfnormal": pm.HalfNormal.dist(2.0),
        "gamma": pm.Gamma.dist(2.0, 3.0),
        "beta": pm.Beta.dist(2.0, 5.0),
        "lognormal": pm.LogNormal.dist(0.0, 0.5),
        "weibull": pm.Weibull.dist(1.5, 2.0),
        "triangular": pm.Triangular.dist(lower=-1.0, c=0.5, upper=2.0),
    }
    for name, rv in cont.items():
        out[f"det_logcdf_{name}"] = _ev(pm.logcdf(rv, xs))
    for name in ("normal", "laplace", "logistic", "cauchy", "uniform", "exponential",
                 "halfnormal", "gumbel", "weibull", "lognormal"):
        out[f"near_icdf_{name}"] = _ev(pm.icdf(cont[name], ps))
    ks = np.array([-1, 0, 1, 3, 10])
    disc = {
        "poisson": pm.Poisson.dist(2.5),
        "binomial": pm.Binomial.dist(10, 0.3),
        "geometric": pm.Geometric.dist(0.25),
        "negbinomial": pm.NegativeBinomial.dist(3.0, 0.4),
        "bernoulli": pm.Bernoulli.dist(0.3),
        "discrete_uniform": pm.DiscreteUniform.dist(0, 5),
    }
    for name, rv in disc.items():
        out[f"det_logcdf_{name}"] = _ev(pm.logcdf(rv, ks))
        out[f"det_logp_{name}"] = _ev(pm.logp(rv, ks))
    for name in ("geometric", "discrete_uniform"):
        out[f"near_icdf_{name}"] = _ev(pm.icdf(disc[name], ps[1:-1]))
    return _near(out, (
        "det_logcdf_discrete_uniform", "det_logcdf_geometric", "det_logcdf_halfnormal",
        "det_logcdf_lognormal", "det_logcdf_normal", "det_logcdf_student", "det_logcdf_uniform",
        "det_logp_discrete_uniform", "det_logp_geometric", "det_logp_poisson",
    ))


@lp_program
def lp_combined_rvs(quick: bool) -> dict[str, Any]:
    """Logp of cumsum, switch mixtures, concatenate/stack, and max of iid variables."""
    out: dict[str, Any] = {}
    steps = pm.Normal.dist(0.1, 0.8, size=5)
    walk = pt.cumsum(steps)
    value = np.array([0.2, -0.3, 0.5, 1.4, 1.1])
    out["det_cumsum"] = _ev(pm.logp(walk, value))
    idx = pm.Bernoulli.dist(0.3)
    a, b = pm.Normal.dist(-1.0, 0.5), pm.Normal.dist(2.0, 1.0)
    mix = pt.switch(idx, a, b)
    vals = np.array([-1.2, 0.0, 2.3])
    idx_v, mix_v = pt.lscalar("idx_v"), pt.scalar("mix_v")
    terms = conditional_logp({idx: idx_v, mix: mix_v})
    fn = pytensor.function([idx_v, mix_v], [terms[idx_v], terms[mix_v]])
    out["det_switch_conditional"] = [np.asarray(fn(k, v)).tolist() for k in (0, 1) for v in vals]
    z = pm.Normal.dist(0.0, 1.0, size=2)
    e = pm.Exponential.dist(1.0, size=3)
    cat = pt.concatenate([z, e])
    cat_v = np.array([0.3, -1.0, 0.5, 1.5, 3.0])
    out["det_concatenate"] = _ev(pm.logp(cat, cat_v))
    st = pt.stack([pm.Normal.dist(0.0, 1.0), pm.Gamma.dist(2.0, 1.0)])
    out["det_stack"] = _ev(pm.logp(st, np.array([0.4, 1.2])))
    iid = pm.Normal.dist(0.0, 1.0, size=(4,))
    out["det_max_iid"] = [_ev(pm.logp(pt.max(iid), v)) for v in (-0.5, 0.0, 1.3)]
    low = pt.min(pm.Exponential.dist(2.0, size=3))
    out["det_min_iid"] = [_ev(pm.logp(low, v)) for v in (0.1, 0.7)]
    with pm.Model() as model:
        sigma = pm.HalfNormal("sigma", 1.0)
        innov = pm.Normal.dist(0.0, sigma, size=6)
        pm.CustomDist("rw", sigma, dist=lambda s, size: pt.cumsum(pm.Normal.dist(0, s, size=6)),
                      observed=np.array([0.1, 0.4, 0.2, -0.3, -0.1, 0.5]))
        del innov
    out.update({f"{k}_rw": v for k, v in point_values(model, {"sigma_log__": -0.4}).items()})
    return _near(out, ("det_max_iid",))


@lp_program
def lp_censoring(quick: bool) -> dict[str, Any]:
    """Censoring by pt.clip and pm.Censored, truncation, at and beyond the bounds."""
    out: dict[str, Any] = {}
    x = pm.Normal.dist(0.5, 1.0)
    vals = np.array([-1.0, -0.5, 0.0, 1.0, 2.0, 2.5])
    out["det_clip"] = _ev(pm.logp(pt.clip(x, -1.0, 2.0), vals))
    cens = pm.Censored.dist(pm.Normal.dist(0.5, 1.0), lower=-1.0, upper=2.0)
    out["det_censored"] = _ev(pm.logp(cens, vals))
    out["det_censored_logcdf"] = _ev(pm.logcdf(cens, vals))
    lower_only = pm.Censored.dist(pm.Exponential.dist(1.0), lower=None, upper=3.0)
    out["det_censored_upper"] = _ev(pm.logp(lower_only, np.array([0.0, 1.0, 3.0, 4.0])))
    trunc = pm.Truncated.dist(pm.Normal.dist(0.0, 1.0), lower=-0.5, upper=1.5)
    tv = np.array([-1.0, -0.5, 0.0, 1.5, 2.0])
    out["det_truncated"] = _ev(pm.logp(trunc, tv))
    out["det_truncated_logcdf"] = _ev(pm.logcdf(trunc, np.array([-1.0, -0.2, 0.0, 1.0, 2.0])))
    # At the bounds opgraph gives -inf and 0 exactly; PyTensor's float32 constants leave
    # log(~1e-8) = -18.5 and 2.6e-8 there (docs/pymc.md, "Known differences")
    out["info_truncated_logcdf_bounds"] = _ev(pm.logcdf(trunc, np.array([-0.5, 1.5])))
    tpois = pm.Truncated.dist(pm.Poisson.dist(3.0), lower=1, upper=6)
    out["det_truncated_poisson"] = _ev(pm.logp(tpois, np.array([0, 1, 3, 6, 7])))
    dcens = pm.Censored.dist(pm.Poisson.dist(2.0), lower=1, upper=4)
    out["det_censored_poisson"] = _ev(pm.logp(dcens, np.array([0, 1, 2, 4, 5])))
    y = np.array([-1.0, -1.0, 0.3, 1.1, 2.0, 2.0, 0.7])
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 2.0)
        sd = pm.HalfNormal("sd", 1.0)
        pm.Censored("y", pm.Normal.dist(mu, sd), lower=-1.0, upper=2.0, observed=y)
        pm.Truncated("t", pm.Normal.dist(mu, 1.0), lower=0.0, observed=np.array([0.2, 1.5]))
    out.update(point_values(model, {"mu": 0.4, "sd_log__": 0.1}))
    out.update(point_values(model, model.initial_point()))
    return _near(out, (
        "det_censored_logcdf", "det_dlogp", "det_truncated", "det_truncated_logcdf",
        "det_truncated_poisson",
    ))


@lp_program
def lp_custom_dist(quick: bool) -> dict[str, Any]:
    """CustomDist with a logp function, with a dist function (incl. scan), DensityDist-style."""
    out: dict[str, Any] = {}

    def laplace_logp(value: Any, mu: Any, b: Any) -> Any:
        return -pt.log(2 * b) - pt.abs(value - mu) / b

    def laplace_logcdf(value: Any, mu: Any, b: Any) -> Any:
        z = (value - mu) / b
        return pt.switch(z < 0, z - pt.log(2.0), pt.log1mexp(-z) + 0.0 * z - 0.0)

    data = np.array([0.3, -0.7, 1.9, 0.1, -2.2])
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 1.0)
        b = pm.HalfNormal("b", 1.0)
        pm.CustomDist("y", mu, b, logp=laplace_logp, logcdf=laplace_logcdf, observed=data)
    out.update(point_values(model, {"mu": 0.2, "b_log__": -0.3}))
    ref = pm.logp(pm.Laplace.dist(0.2, np.exp(-0.3)), data).sum().eval()
    out["det_laplace_reference"] = float(ref)

    def expo_dist(lam: Any, size: Any) -> Any:
        return -pt.log(pm.Uniform.dist(0, 1, size=size)) / lam

    with pm.Model() as m2:
        lam = pm.Gamma("lam", 2.0, 1.0)
        pm.CustomDist("e", lam, dist=expo_dist, observed=np.array([0.5, 1.2, 0.1]))
    out.update({f"{k}_dist": v for k, v in point_values(m2, {"lam_log__": 0.2}).items()})

    def walk_dist(sigma: Any, size: Any) -> Any:
        def step(prev: Any, sigma: Any) -> Any:
            nxt = pm.Normal.dist(prev, sigma)
            return nxt, collect_default_updates([nxt])

        xs, _ = pytensor.scan(step, outputs_info=[pt.zeros(())], non_sequences=[sigma],
                              n_steps=6, strict=True)
        return xs

    with pm.Model() as m3:
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.CustomDist("w", sigma, dist=walk_dist,
                      observed=np.array([0.1, 0.3, -0.2, 0.0, 0.6, 0.4]))
    out.update({f"{k}_scan": v for k, v in point_values(m3, {"sigma_log__": -0.2}).items()})
    with pm.Model() as m4:  # the old DensityDist style: a logp only, a value variable
        a = pm.Normal("a", 0.0, 1.0)
        pm.CustomDist("dd", a, logp=lambda v, a: -0.5 * pt.sum((v - a) ** 2), observed=data)
        pm.CustomDist("free", a, logp=lambda v, a: pm.logp(pm.Normal.dist(a, 2.0), v),
                      signature="()->()")
    out.update({f"{k}_dd": v for k, v in point_values(m4, {"a": 0.4, "free": -0.3}).items()})
    return out


@lp_program
def lp_conditional(quick: bool) -> dict[str, Any]:
    """pymc.logprob's conditional_logp and transformed_conditional_logp."""
    out: dict[str, Any] = {}
    sigma2 = pt.random.invgamma(0.5, 0.5)
    y = pt.random.normal(0.0, pt.sqrt(sigma2))
    s_v, y_v = pt.scalar("s_v"), pt.scalar("y_v")
    terms = conditional_logp({sigma2: s_v, y: y_v})
    fn = pytensor.function([s_v, y_v], [terms[s_v], terms[y_v]])
    out["det_conditional"] = [np.asarray(fn(s, yy)).tolist()
                              for s, yy in [(0.5, 0.1), (2.0, -1.3), (0.1, 0.0)]]
    with pm.Model() as model:
        sd = pm.HalfNormal("sd", 1.0)
        p = pm.Beta("p", 2.0, 2.0)
        mu = pm.Normal("mu", 0.0, sd, shape=2)
        pm.Normal("obs", mu.sum() * p, 1.0, observed=np.array([0.5, 1.0]))
    rvs_to_values = model.rvs_to_values
    logps = transformed_conditional_logp(
        model.basic_RVs, rvs_to_values=rvs_to_values,
        rvs_to_transforms=model.rvs_to_transforms)
    f = pytensor.function(model.value_vars, logps, on_unused_input="ignore")
    pt_in = {"sd_log__": 0.3, "p_logodds__": -0.4, "mu": np.array([0.2, -0.5])}
    vals = f(*(pt_in[v.name] for v in model.value_vars))
    out["det_transformed"] = np.concatenate([np.ravel(t) for t in vals]).tolist()
    logps_nj = transformed_conditional_logp(
        model.basic_RVs, rvs_to_values=rvs_to_values,
        rvs_to_transforms=model.rvs_to_transforms, jacobian=False)
    g = pytensor.function(model.value_vars, logps_nj, on_unused_input="ignore")
    out["det_transformed_nojac"] = np.concatenate(
        [np.ravel(t) for t in g(*(pt_in[v.name] for v in model.value_vars))]).tolist()
    return _near(out, ("det_conditional", "det_transformed", "det_transformed_nojac"))


@lp_program
def lp_model_terms(quick: bool) -> dict[str, Any]:
    """model.logp(sum=False, jacobian=False), compile_logp(vars=...), point_logps, d2logp."""
    out: dict[str, Any] = {}
    rng = np.random.default_rng(5)
    x = rng.normal(size=20)
    y = 1.5 * x - 0.3 + rng.normal(scale=0.4, size=20)
    with pm.Model() as model:
        a = pm.Normal("a", 0.0, 2.0)
        b = pm.Normal("b", 0.0, 2.0)
        sigma = pm.HalfNormal("sigma", 1.0)
        nu = pm.Gamma("nu", 2.0, 0.1)
        pm.StudentT("y", nu, a + b * x, sigma=sigma, observed=y)
        pm.Deterministic("mu", a + b * x)
        pm.Potential("pen", -0.5 * (b - 1.0) ** 2)
    point = {"a": -0.2, "b": 1.3, "sigma_log__": -0.9, "nu_log__": 2.0}
    terms = model.logp(sum=False, jacobian=False)
    fn = pytensor.function(model.value_vars, terms)
    vals = fn(*(point[v.name] for v in model.value_vars))
    out["det_terms_nojac"] = [float(np.sum(t)) for t in vals]
    terms_j = pytensor.function(model.value_vars, model.logp(sum=False))(
        *(point[v.name] for v in model.value_vars))
    out["det_terms_jac"] = [float(np.sum(t)) for t in terms_j]
    out["det_vars_ab"] = float(model.compile_logp(vars=[a, b])(point))
    out["det_vars_y"] = float(model.compile_logp(vars=[model["y"]], jacobian=False)(point))
    out["det_nojac"] = float(model.compile_logp(jacobian=False)(point))
    out["det_point_logps"] = [v for _, v in sorted(model.point_logps(point).items())]
    out["det_d2logp"] = np.asarray(model.compile_d2logp()(point)).tolist()
    out["det_dlogp_ab"] = np.asarray(model.compile_dlogp(vars=[a, b])(point)).tolist()
    (mu_values,) = model.replace_rvs_by_values([model["mu"]])
    out["det_deterministic"] = np.asarray(
        model.compile_fn(mu_values, inputs=[model.rvs_to_values[a],
                                            model.rvs_to_values[b]])({"a": -0.2, "b": 1.3})
    ).tolist()[:5]
    out["info_dtype"] = str(model.logp().dtype)
    return out


@lp_program
def lp_fgraph_roundtrip(quick: bool) -> dict[str, Any]:
    """fgraph_from_model / model_from_fgraph keep the logp; clone_model; do/observe."""
    out: dict[str, Any] = {}
    with pm.Model(coords={"g": ["a", "b", "c"]}) as model:
        mu = pm.Normal("mu", 0.0, 1.0)
        sd = pm.Exponential("sd", 1.0)
        theta = pm.Normal("theta", mu, sd, dims="g")
        pm.Deterministic("theta2", theta * 2, dims="g")
        pm.Poisson("k", pt.exp(theta), observed=np.array([1, 4, 2]), dims="g")
    point = {"mu": 0.1, "sd_log__": -0.5, "theta": np.array([0.2, 1.1, 0.6])}
    fg, _ = fgraph_from_model(model)
    out["info_fgraph_outputs"] = len(fg.outputs)
    rebuilt = model_from_fgraph(fg, mutate_fgraph=True)
    out.update(point_values(model, point))
    out.update({f"{k}_rebuilt": v for k, v in point_values(rebuilt, point).items()})
    cloned = pm.model.fgraph.clone_model(model)
    out.update({f"{k}_clone": v for k, v in point_values(cloned, point).items()})
    fixed = pm.do(model, {mu: 0.5})
    out.update({f"{k}_do": v for k, v in point_values(
        fixed, {"sd_log__": -0.5, "theta": point["theta"]}).items()})
    observed = pm.observe(model, {theta: np.array([0.0, 1.0, 0.5])})
    out.update({f"{k}_observe": v for k, v in point_values(
        observed, {"mu": 0.1, "sd_log__": -0.5}).items()})
    return out


@lp_program
def lp_pytensorf_helpers(quick: bool) -> dict[str, Any]:
    """pymc.pytensorf: compile (seeded), replace_rvs_by_values, constant_fold, default updates."""
    out: dict[str, Any] = {}
    x = pm.Normal.dist(1.0, 2.0, size=3)
    y = pm.Gamma.dist(2.0, 1.0)
    f = pm.pytensorf.compile([], [x, y + x.sum()], random_seed=42)
    first, second = f(), f()
    out["exact_compile_draws"] = np.concatenate([first[0], second[0]]).tolist()
    out["drawn_compile_sum"] = [float(first[1]), float(second[1])]
    updates = collect_default_updates([x, y])
    out["info_updates"] = len(updates)
    with pm.Model() as model:
        a = pm.HalfNormal("a", 1.0)
        b = pm.Normal("b", a, 1.0)
        c = pm.Deterministic("c", a * b + 1)
    (c_val,) = replace_rvs_by_values(
        [c], rvs_to_values=model.rvs_to_values, rvs_to_transforms=model.rvs_to_transforms)
    g = pytensor.function(model.value_vars, c_val)
    out["det_replace_rvs"] = float(g(np.log(0.7), 0.4))
    (c_raw,) = model.replace_rvs_by_values([c])
    out["det_model_replace"] = float(pytensor.function(model.value_vars, c_raw)(
        np.log(0.7), 0.4))
    shape = pt.as_tensor(np.ones((2, 3))).shape
    (folded,) = constant_fold([shape.prod() + 1])
    out["det_constant_fold"] = float(folded)
    (kept,) = constant_fold([pt.scalar("s") + 1], raise_not_constant=False)
    out["info_not_folded"] = type(kept).__name__
    out["det_floatX"] = float(pm.floatX(np.float64(0.1)))
    out["info_floatX_dtype"] = str(pm.floatX(np.array([1, 2])).dtype)
    return out


@lp_program
def lp_transforms(quick: bool) -> dict[str, Any]:
    """The transforms of pm.distributions.transforms: forward, backward, log|J|, in models."""
    out: dict[str, Any] = {}
    vec = pt.as_tensor(np.array([0.3, 0.9, 1.7, 2.2]))
    cases = {
        "log": (tr.log, pt.as_tensor(np.array([0.2, 1.0, 3.0]))),
        "logodds": (tr.logodds, pt.as_tensor(np.array([0.1, 0.5, 0.95]))),
        "ordered": (tr.ordered, vec),
        "sum_to_1": (tr.sum_to_1, pt.as_tensor(np.array([0.2, 0.3, 0.5]))),
        "interval": (tr.Interval(-1.0, 3.0), pt.as_tensor(np.array([-0.5, 0.0, 2.9]))),
        "chain": (tr.Chain([tr.log, tr.ordered]), vec),
        "zerosum": (tr.ZeroSumTransform(zerosum_axes=[-1]),
                    pt.as_tensor(np.array([0.5, -0.2, -0.3]))),
        "log_exp_m1": (tr.log_exp_m1, pt.as_tensor(np.array([0.5, 2.0]))),
    }
    for name, (t, value) in cases.items():
        fwd = t.forward(value)
        out[f"det_{name}_forward"] = _ev(fwd)
        out[f"det_{name}_backward"] = _ev(t.backward(fwd))
        out[f"det_{name}_logjac"] = _ev(t.log_jac_det(fwd))
    with pm.Model() as model:
        pm.Normal("cut", 0.0, 3.0, shape=3, transform=tr.ordered,
                  initval=np.array([-1.0, 0.0, 1.0]))
        pm.Dirichlet("w", np.ones(3))
        pm.Uniform("u", -2.0, 5.0)
        pm.Beta("p", 2.0, 2.0, default_transform=None, transform=tr.logodds)
        pm.ZeroSumNormal("z", sigma=1.0, shape=4)
        pm.HalfNormal("h", 1.0, transform=tr.Chain([tr.log_exp_m1]), default_transform=None)
    out.update(point_values(model, model.initial_point()))
    pt2 = {"cut_ordered__": np.array([-0.5, 0.1, 0.4]),
           "w_simplex__": np.array([0.2, -0.3]), "u_interval__": 0.7,
           "p_logodds__": 0.25, "z_zerosum__": np.array([0.3, -0.1, 0.2]),
           "h_chain__": -0.2}
    out.update({f"{k}_b": v for k, v in point_values(model, pt2).items()})
    out["info_value_vars"] = sorted(v.name for v in model.value_vars)
    return _near(out, ("det_interval_logjac",))


@lp_program
def lp_extremes(quick: bool) -> dict[str, Any]:
    """Logp at -inf/inf and at the support edges; logp of invalid parameters is -inf."""
    out: dict[str, Any] = {}
    edge = {
        "halfnormal": (pm.HalfNormal.dist(1.0), [-1.0, 0.0, 1e-300, np.inf]),
        "exponential": (pm.Exponential.dist(2.0), [-1e-12, 0.0, 50.0, np.inf]),
        "beta": (pm.Beta.dist(2.0, 3.0), [-0.1, 0.0, 1e-12, 1.0, 1.1]),
        "beta_half": (pm.Beta.dist(0.5, 0.5), [0.0, 1e-10, 0.5, 1.0]),
        "uniform": (pm.Uniform.dist(0.0, 1.0), [-1e-9, 0.0, 1.0, 1.0 + 1e-9]),
        "normal": (pm.Normal.dist(0.0, 1.0), [-np.inf, -40.0, 40.0, np.inf]),
        "gamma": (pm.Gamma.dist(1.0, 1.0), [0.0, 1e-300, 700.0]),
        "lognormal": (pm.LogNormal.dist(0.0, 1.0), [0.0, 1e-200, 1e200]),
        "poisson": (pm.Poisson.dist(3.0), [-1, 0, 200]),
        "binomial": (pm.Binomial.dist(5, 0.0), [0, 1, 5, 6]),
        "bernoulli_edge": (pm.Bernoulli.dist(1.0), [0, 1]),
        "studentt": (pm.StudentT.dist(1.0, 0.0, sigma=1.0), [-1e150, 0.0, 1e150]),
    }
    for name, (rv, values) in edge.items():
        out[f"det_logp_{name}"] = _ev(pm.logp(rv, np.array(values)))
    vals = np.array([-np.inf, -1.0, 0.0, 2.0, np.inf])
    out["det_logcdf_exponential"] = _ev(pm.logcdf(pm.Exponential.dist(1.0), vals))
    out["det_logcdf_normal_far"] = _ev(pm.logcdf(pm.Normal.dist(0.0, 1.0),
                                                 np.array([-40.0, -10.0, 10.0])))
    with pm.Model() as model:
        s = pm.HalfNormal("s", 1.0)
        pm.Normal("x", 0.0, s, observed=np.array([0.0, 1.0]))
    logp = model.compile_logp()
    out["det_model_far"] = [float(logp({"s_log__": v})) for v in (-30.0, -5.0, 5.0, 30.0)]
    out["det_model_inf"] = float(logp({"s_log__": -np.inf}))
    dlogp = model.compile_dlogp()
    out["det_dlogp_far"] = [float(dlogp({"s_log__": v})[0]) for v in (-10.0, 10.0)]
    return _near(out, ("det_logp_beta_half", "det_logp_studentt"))


@lp_program
def lp_model_parts(quick: bool) -> dict[str, Any]:
    """varlogp / observedlogp / potentiallogp / datalogp, logccdf, mixtures' logp and logcdf."""
    out: dict[str, Any] = {}
    y = np.array([-1.3, 0.2, 0.4, 2.9, 3.3, 3.1])
    with pm.Model() as model:
        w = pm.Dirichlet("w", np.array([2.0, 2.0]))
        mus = pm.Normal("mus", np.array([-1.0, 3.0]), 1.0, shape=2,
                        transform=pm.distributions.transforms.ordered)
        sd = pm.HalfNormal("sd", 1.0)
        pm.NormalMixture("y", w=w, mu=mus, sigma=sd, observed=y)
        pm.Potential("keep_apart", pt.switch(mus[1] - mus[0] > 1.0, 0.0, -10.0))
    point = {"w_simplex__": np.array([0.3]), "mus_ordered__": np.array([-0.8, 1.2]),
             "sd_log__": -0.1}
    inputs = model.value_vars
    for part in ("varlogp", "varlogp_nojac", "observedlogp", "potentiallogp", "datalogp"):
        fn = pytensor.function(inputs, getattr(model, part), on_unused_input="ignore")
        out[f"det_{part}"] = float(fn(*(point[v.name] for v in inputs)))
    out.update(point_values(model, point))
    mix = pm.Mixture.dist(w=np.array([0.3, 0.7]),
                          comp_dists=[pm.Normal.dist(-1.0, 0.5), pm.Exponential.dist(1.0)])
    vals = np.array([-2.0, -0.5, 0.0, 0.5, 3.0])
    out["det_mixture_logp"] = _ev(pm.logp(mix, vals))
    out["det_mixture_logcdf"] = _ev(pm.logcdf(mix, vals))
    zip_rv = pm.ZeroInflatedPoisson.dist(psi=0.7, mu=2.5)
    out["det_zip_logp"] = _ev(pm.logp(zip_rv, np.array([0, 1, 4])))
    out["det_zip_logcdf"] = _ev(pm.logcdf(zip_rv, np.array([0, 1, 4])))
    out["det_logccdf_normal"] = _ev(pm.logccdf(pm.Normal.dist(0.0, 1.0),
                                               np.array([-3.0, 0.0, 5.0, 30.0])))
    out["det_logccdf_exp"] = _ev(pm.logccdf(pm.Exponential.dist(2.0), np.array([0.0, 1.0, 9.0])))
    return out


@lp_program
def lp_multivariate(quick: bool) -> dict[str, Any]:
    """Logp of multivariate families and of a stacked/reshaped multivariate variable."""
    out: dict[str, Any] = {}
    cov = np.array([[1.0, 0.3, 0.1], [0.3, 2.0, -0.4], [0.1, -0.4, 1.5]])
    chol = np.linalg.cholesky(cov)
    x = np.array([[0.1, -0.5, 1.2], [1.0, 0.0, -0.3]])
    out["det_mvnormal_cov"] = _ev(pm.logp(pm.MvNormal.dist(np.zeros(3), cov=cov), x))
    out["det_mvnormal_chol"] = _ev(pm.logp(pm.MvNormal.dist(np.ones(3), chol=chol), x))
    out["det_mvnormal_tau"] = _ev(pm.logp(pm.MvNormal.dist(np.zeros(3),
                                                           tau=np.linalg.inv(cov)), x))
    out["det_mvt"] = _ev(pm.logp(pm.MvStudentT.dist(nu=5.0, mu=np.zeros(3), scale=cov), x))
    out["det_dirichlet"] = _ev(pm.logp(pm.Dirichlet.dist(np.array([1.5, 2.0, 3.0])),
                                       np.array([0.2, 0.3, 0.5])))
    out["det_multinomial"] = _ev(pm.logp(pm.Multinomial.dist(10, np.array([0.2, 0.3, 0.5])),
                                         np.array([2, 3, 5])))
    out["det_dirmult"] = _ev(pm.logp(pm.DirichletMultinomial.dist(
        10, np.array([1.0, 2.0, 3.0])), np.array([2, 3, 5])))
    out["det_categorical"] = _ev(pm.logp(pm.Categorical.dist(p=np.array([0.2, 0.3, 0.5])),
                                         np.array([0, 1, 2, 3])))
    out["det_zerosumnormal"] = _ev(pm.logp(pm.ZeroSumNormal.dist(sigma=1.5, shape=3),
                                              np.array([0.5, -0.2, -0.3])))
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 1.0, shape=3)
        chol_f, _, _ = pm.LKJCholeskyCov("chol", n=3, eta=2.0,
                                         sd_dist=pm.Exponential.dist(1.0, shape=3))
        pm.MvNormal("obs", mu, chol=chol_f, observed=x)
    out.update(point_values(model, model.initial_point()))
    return out
