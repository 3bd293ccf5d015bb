"""W11: a sampler's inner loop, ``(logp, dlogp)`` of a flat parameter vector, per call.

An MCMC sampler (NUTS) calls the model's log-density and its gradient hundreds
of thousands of times on small arrays, so per-call overhead and small-op
speed decide its run time.  Two models, written with the library's ops:

* eight schools, non-centred (10 parameters): normal and half-Cauchy priors,
  normal likelihood;
* a hierarchical logistic regression with 20 groups, 2 covariates and N
  observations (24 parameters): non-centred group intercepts, Bernoulli
  likelihood through ``log1pexp``; N = 1000 in the table, 10 to 1e5 in the plot.

Peers in the same run, same values: JAX ``jit(value_and_grad)``, PyTensor
3.0.7 in its NUMBA and C (cvm) modes, and hand-written NumPy with analytic
gradients.  opgraph: FAST_RUN, with and without ``trust_input``.  Targets
(issue 20): <= 0.5x the best peer on eight schools, <= 0.8x on the larger model.
"""

from __future__ import annotations

import os
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import benchutil  # noqa: E402

Y8 = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
S8 = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
GROUPS, COVARIATES = 20, 2
TABLE_N = 1000
#: the model-size sweep of the plot (quick mode: two sizes); OPGRAPH_BENCH_SWEEP=0 skips it
PLOT_NS = benchutil.pick((10, 100, 1000, 10_000, 100_000), (10, 1000))
PLOT_TITLE = "W11 hierarchical logistic: per-call time vs N"


def hier_data(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    group = rng.integers(0, GROUPS, size=n)
    X = rng.normal(size=(n, COVARIATES))
    a = rng.normal(0.3, 0.8, size=GROUPS)
    y = (rng.random(n) < 1 / (1 + np.exp(-(a[group] + X @ np.array([0.7, -0.4]))))) * 1.0
    return group, X, y


# -- the models with a tensor library (opgraph.tensor or pytensor.tensor) --------------------
def eight_schools(m: Any, theta: Any) -> Any:
    mu, log_tau, eta = theta[0], theta[1], theta[2:]
    tau = m.exp(log_tau)
    y, sigma = m.as_tensor_variable(Y8), m.as_tensor_variable(S8)
    return (-0.5 * (mu / 5.0) ** 2 - m.log1p((tau / 5.0) ** 2) + log_tau
            - 0.5 * m.sum(eta ** 2) - 0.5 * m.sum(((y - mu - tau * eta) / sigma) ** 2))


def hier_logistic(m: Any, theta: Any, data: tuple) -> Any:
    group, X, y = data
    mu_a, log_sigma_a = theta[0], theta[1]
    a_tilde, b = theta[2:2 + GROUPS], theta[2 + GROUPS:]
    sigma_a = m.exp(log_sigma_a)
    a = mu_a + sigma_a * a_tilde
    logit = a[m.as_tensor_variable(group)] + m.dot(m.as_tensor_variable(X), b)
    log1pexp = getattr(m, "log1pexp", None) or m.softplus
    return (-0.5 * (mu_a / 2.0) ** 2 - 0.5 * sigma_a ** 2 + log_sigma_a
            - 0.5 * m.sum(a_tilde ** 2) - 0.5 * m.sum((b / 2.0) ** 2)
            + m.sum(m.as_tensor_variable(y) * logit - log1pexp(logit)))


# -- hand-written NumPy (value and analytic gradient) ----------------------------------------
def numpy_eight_schools(theta: np.ndarray) -> tuple[float, np.ndarray]:
    mu, log_tau, eta = theta[0], theta[1], theta[2:]
    tau = np.exp(log_tau)
    resid = (Y8 - mu - tau * eta) / S8 ** 2
    u = (tau / 5.0) ** 2
    logp = (-0.5 * (mu / 5.0) ** 2 - np.log1p(u) + log_tau - 0.5 * eta @ eta
            - 0.5 * np.sum((Y8 - mu - tau * eta) ** 2 / S8 ** 2))
    grad = np.empty_like(theta)
    grad[0] = -mu / 25.0 + resid.sum()
    grad[1] = tau * (-2 * tau / 25.0 / (1 + u) + resid @ eta) + 1.0
    grad[2:] = -eta + tau * resid
    return float(logp), grad


def numpy_hier(data: tuple) -> Callable[[np.ndarray], tuple[float, np.ndarray]]:
    group, X, y = data

    def f(theta: np.ndarray) -> tuple[float, np.ndarray]:
        mu_a, log_sigma_a = theta[0], theta[1]
        a_tilde, b = theta[2:2 + GROUPS], theta[2 + GROUPS:]
        sigma_a = np.exp(log_sigma_a)
        logit = (mu_a + sigma_a * a_tilde)[group] + X @ b
        logp = (-0.5 * (mu_a / 2.0) ** 2 - 0.5 * sigma_a ** 2 + log_sigma_a
                - 0.5 * a_tilde @ a_tilde - 0.5 * (b / 2.0) @ (b / 2.0)
                + np.sum(y * logit - np.logaddexp(0, logit)))
        r = y - 1 / (1 + np.exp(-logit))
        ga = np.bincount(group, r, minlength=GROUPS)
        grad = np.empty_like(theta)
        grad[0] = -mu_a / 4.0 + ga.sum()
        grad[1] = sigma_a * (-sigma_a + ga @ a_tilde) + 1.0
        grad[2:2 + GROUPS] = -a_tilde + sigma_a * ga
        grad[2 + GROUPS:] = -b / 4.0 + X.T @ r
        return float(logp), grad

    return f


# -- compiled versions -----------------------------------------------------------------------
def _compile_tensor(lib: str, model: Callable[..., Any], n_params: int, mode: Any,
                    trust: bool) -> Callable[[np.ndarray], Any]:
    if lib == "opgraph":
        import opgraph as L
        import opgraph.tensor as m
    else:
        import pytensor as L
        import pytensor.tensor as m
    theta = m.dvector("theta")
    logp = model(m, theta)
    f = L.function([theta], [logp, L.grad(logp, theta)], mode=mode)
    f.trust_input = trust
    return f


def _jax(model_np: str, data: tuple | None) -> Callable[[np.ndarray], Any] | None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    if model_np == "eight":
        def logp(theta):
            mu, log_tau, eta = theta[0], theta[1], theta[2:]
            tau = jnp.exp(log_tau)
            return (-0.5 * (mu / 5.0) ** 2 - jnp.log1p((tau / 5.0) ** 2) + log_tau
                    - 0.5 * jnp.sum(eta ** 2) - 0.5 * jnp.sum(((Y8 - mu - tau * eta) / S8) ** 2))
    else:
        group, X, y = data

        def logp(theta):
            mu_a, log_sigma_a = theta[0], theta[1]
            a_tilde, b = theta[2:2 + GROUPS], theta[2 + GROUPS:]
            sigma_a = jnp.exp(log_sigma_a)
            logit = (mu_a + sigma_a * a_tilde)[group] + X @ b
            return (-0.5 * (mu_a / 2.0) ** 2 - 0.5 * sigma_a ** 2 + log_sigma_a
                    - 0.5 * jnp.sum(a_tilde ** 2) - 0.5 * jnp.sum((b / 2.0) ** 2)
                    + jnp.sum(y * logit - jnp.logaddexp(0.0, logit)))
    vg = jax.jit(jax.value_and_grad(logp))

    def call(theta: np.ndarray) -> Any:
        value, grad = vg(theta)
        return float(value), grad.block_until_ready()

    return call


def _per_call_us(fn: Callable[[np.ndarray], Any], theta: np.ndarray) -> float:
    fn(theta)
    timer = timeit.Timer(lambda: fn(theta))
    number, _ = timer.autorange()
    return 1e6 * min(timer.repeat(repeat=benchutil.pick(5, 2), number=number)) / number


def _contenders(name: str, n_params: int, data: tuple | None) -> dict[str, Any]:
    """label -> callable theta -> (logp, grad); missing peers are left out."""
    if name == "eight":
        def model(m: Any, t: Any) -> Any:
            return eight_schools(m, t)
        ref = numpy_eight_schools
    else:
        def model(m: Any, t: Any) -> Any:
            return hier_logistic(m, t, data)
        ref = numpy_hier(data)
    out: dict[str, Any] = {
        "opgraph FAST_RUN": _compile_tensor("opgraph", model, n_params, "FAST_RUN", False),
        "opgraph FAST_RUN trust_input": _compile_tensor("opgraph", model, n_params,
                                                         "FAST_RUN", True),
        "NumPy (hand-written)": ref,
    }
    jx = _jax(name, data)
    if jx is not None:
        out["JAX jit(value_and_grad)"] = jx
    if benchutil.pytensor_version() is not None:
        peer_modes = (("PyTensor NUMBA", "NUMBA"), ("PyTensor C", benchutil.pytensor_c_mode()))
        for label, mode in peer_modes:
            for trust in (False, True):
                try:
                    out[label + (" trust_input" if trust else "")] = _compile_tensor(
                        "pytensor", model, n_params, mode, trust)
                except Exception as exc:  # a peer that cannot compile is reported, not fatal
                    out[label] = exc
    return out


def _measure(name: str, n_params: int, data: tuple | None) -> dict[str, float | str]:
    rng = np.random.default_rng(5)
    theta = rng.normal(scale=0.3, size=n_params)
    contenders = _contenders(name, n_params, data)
    ref_value, ref_grad = contenders["NumPy (hand-written)"](theta)
    times: dict[str, float | str] = {}
    for label, fn in contenders.items():
        if isinstance(fn, Exception):
            times[label] = f"failed: {type(fn).__name__}"
            continue
        value, grad = fn(theta)
        if not (np.isclose(float(value), ref_value, rtol=1e-9)
                and np.allclose(np.asarray(grad), ref_grad, rtol=1e-7, atol=1e-9)):
            times[label] = "wrong result"
            continue
        times[label] = _per_call_us(fn, theta)
    return times


def _best_peer(times: dict[str, Any]) -> tuple[str, float] | None:
    peers = {k: v for k, v in times.items() if not k.startswith("opgraph")
             and isinstance(v, float)}
    if not peers:
        return None
    label = min(peers, key=peers.get)
    return label, peers[label]


def run(report: Any) -> None:
    report.section("W11: a sampler's logp + dlogp per call (flat parameter vector), "
                   "microseconds; opgraph FAST_RUN vs JAX, PyTensor NUMBA/C, NumPy")
    cases = [("eight schools (10 params)", "eight", 10, None, 0.5),
             (f"hierarchical logistic, {GROUPS} groups, N={TABLE_N} (24 params)", "hier",
              2 + GROUPS + COVARIATES, hier_data(TABLE_N), 0.8)]
    for title, name, n_params, data, target in cases:
        times = _measure(name, n_params, data)
        best = _best_peer(times)
        mine = [v for k, v in times.items() if k.startswith("opgraph") and isinstance(v, float)]
        ours = min(mine) if mine else None
        for label, value in times.items():
            report.row(model=title, contender=label,
                       us_per_call=value if isinstance(value, float) else None,
                       note="" if isinstance(value, float) else value)
        if best is not None and isinstance(ours, float):
            r = ours / best[1]
            report.row(model=title, contender="ratio: best opgraph / best peer",
                       us_per_call=None, note=f"{r:.2f}x {best[0]} (target <= {target}x): "
                       + ("met" if r <= target else "not met"))
    sweep(report)
    report.note("every contender's (logp, grad) is checked against the hand-written NumPy "
                "version at the same point; one BLAS/XLA thread; best of 5 timeit repeats")


def sweep(report: Any) -> None:
    """Per-call time of every contender against the number of observations (the plot).

    The time of a sampler's step is this per-call time times the gradient evaluations per
    step, so the plot shows where the per-call overhead stops mattering.
    """
    if os.environ.get("OPGRAPH_BENCH_SWEEP", "1") == "0":
        report.note("model-size sweep skipped (OPGRAPH_BENCH_SWEEP=0)")
        return
    for n in PLOT_NS:
        times = _measure("hier", 2 + GROUPS + COVARIATES, hier_data(n))
        for label, value in times.items():
            if isinstance(value, float) and "trust_input" not in label:
                report.series(PLOT_TITLE, label, n, value * 1e-6,
                              xlabel="observations N (20 groups, 2 covariates)",
                              ylabel="seconds per (logp, dlogp) call")
    report.note(f"plot: per-call time against N = {', '.join(map(str, PLOT_NS))} "
                "(without trust_input; every contender checked against NumPy at each N)")


def cpu_time_table(rounds: int = 7) -> None:
    """Every contender of both models, alternated round by round and timed in process CPU
    time (best of ``rounds``): ratios that hold on a loaded machine, where wall-clock
    figures do not.  ``python benchmarks/bench_sampler.py --cpu-time [ROUNDS]``."""
    import time

    cases = [("eight schools", "eight", 10, None),
             (f"hierarchical logistic N={TABLE_N}", "hier", 2 + GROUPS + COVARIATES,
              hier_data(TABLE_N))]
    for title, name, n_params, data in cases:
        theta = np.random.default_rng(5).normal(scale=0.3, size=n_params)
        contenders = {k: v for k, v in _contenders(name, n_params, data).items()
                      if not isinstance(v, Exception)}
        for fn in contenders.values():
            fn(theta)
        best = dict.fromkeys(contenders, float("inf"))
        for _ in range(rounds):
            for label, fn in contenders.items():
                number = max(1, int(20_000 / (1 + 10 * (name == "hier"))))
                t = min(timeit.repeat(lambda fn=fn, th=theta: fn(th), number=number, repeat=3,
                                      timer=time.process_time))
                best[label] = min(best[label], 1e6 * t / number)
        peer = _best_peer(best)
        print(f"\n{title}: us per call (process CPU time, best of {rounds} alternated rounds)")
        for label, us in best.items():
            ratio = f"  {us / peer[1]:.2f}x best peer" if peer else ""
            print(f"  {label:32s} {us:9.2f}{ratio}")
        if peer:
            print(f"  best peer: {peer[0]}")


if __name__ == "__main__":
    if "--cpu-time" in sys.argv:
        rest = [a for a in sys.argv[1:] if a != "--cpu-time"]
        cpu_time_table(int(rest[0]) if rest else 7)
    else:
        from report import run_standalone

        run_standalone(run)
