"""PyMC 6.0.0 on opgraph against PyMC on PyTensor 3.0.7, Numba (its default) and C (issue 27).

PyMC needs Python >= 3.12, so every case runs in a child process of the
interpreter named by ``OPGRAPH_BENCH_PYMC_PYTHON`` (``nox -s bench`` builds
that environment: PyMC 6.0.0, numba, opgraph with its plugins and the
opgraph-pytensor layer), or of this interpreter when it imports PyMC.  The
same environment is both sides: ``OPGRAPH_AS_PYTENSOR=1`` routes ``import
pytensor`` to opgraph, ``=0`` gives the real PyTensor 3.0.7 wheel.

Cases (models: eight schools, a hierarchical regression, a marginal GP):

* per call: ``model.logp_dlogp_function(ravel_inputs=True)``'s compiled
  function, best of many calls (the part a sampler repeats);
* compile, warm disk cache: a fresh process builds the model, compiles it and
  calls it once (Numba compiles at the first call, so the call is included);
* compile, empty cache: the same in a fresh process whose caches are empty on
  both sides (opgraph's ``compiledir``, PyTensor's ``base_compiledir``, which
  holds Numba's cache too);
* compile, new model: caches that hold the other two models only (Numba
  caches per-Op kernels, so a new model reuses most of them);
* ``import pymc`` in a fresh process (bytecode cached);
* ``pm.sample_prior_predictive(500)`` of an ``AR(2)`` model with 100 steps
  (a scan with a draw per step): first call in the process and repeated.

Ratios are opgraph / PyTensor measured in this run, on this machine.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# one BLAS thread on every side (as benchmarks/run.py sets): the children inherit it
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))

import benchutil  # noqa: E402

MODELS = ("eight_schools", "hier_regression", "gp")
BACKENDS = ("opgraph", "numba", "c")  # opgraph's default; PyTensor's default; PyTensor C
REPEATS = benchutil.pick(3, 1)  # fresh-process samples, warm-cache compile (best kept)
ROUND_SPLIT = 20  # per call: each round of calls is timed as this many short rounds
COLD_REPEATS = 1  # empty-cache compiles take minutes on PyTensor's side: one sample each
TIMEOUT_S = float(os.environ.get("OPGRAPH_BENCH_PYMC_TIMEOUT", "300"))


# -- the child side (runs under the PyMC interpreter) -----------------------------------------

def build(name: str) -> Any:
    """One of the benchmark models (fixed data, seeded)."""
    import numpy as np
    import pymc as pm

    rng = np.random.default_rng(1)
    with pm.Model() as model:
        if name == "eight_schools":
            y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
            sigma = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
            mu = pm.Normal("mu", 0, 5)
            tau = pm.HalfCauchy("tau", 5)
            theta_t = pm.Normal("theta_t", 0, 1, shape=8)
            pm.Normal("obs", mu + tau * theta_t, sigma, observed=y)
        elif name == "hier_regression":
            n, g = 200, 10
            group = rng.integers(0, g, n)
            x = rng.normal(size=n)
            y = 1.0 + 0.5 * x + rng.normal(size=g)[group] + rng.normal(size=n)
            mu_a = pm.Normal("mu_a", 0, 10)
            sigma_a = pm.HalfNormal("sigma_a", 5)
            a = pm.Normal("a", mu_a, sigma_a, shape=g)
            b = pm.Normal("b", 0, 10)
            s = pm.HalfNormal("s", 5)
            pm.Normal("y", a[group] + b * x, s, observed=y)
        elif name == "gp":
            X = np.linspace(0, 10, 30)[:, None]
            y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=30)
            ls = pm.Gamma("ls", 2, 1)
            eta = pm.HalfNormal("eta", 2)
            gp = pm.gp.Marginal(cov_func=eta**2 * pm.gp.cov.ExpQuad(1, ls))
            gp.marginal_likelihood("y", X=X, y=y, sigma=pm.HalfNormal("noise", 1))
        elif name == "ar":
            rho = pm.Normal("rho", 0, 0.2, shape=2)
            sigma = pm.HalfNormal("sigma", 1)
            pm.AR("ar", rho=rho, sigma=sigma, init_dist=pm.Normal.dist(0, 1, shape=2),
                  steps=100, constant=False)
        else:
            raise ValueError(f"unknown model {name!r}")
    return model


def _compile_kwargs(backend: str) -> dict[str, Any]:
    if backend == "c":
        from pytensor.compile.mode import Mode

        return {"mode": Mode(linker="cvm", optimizer="fast_run")}
    return {}  # each library's default: opgraph FAST_RUN (C), PyTensor NUMBA


def _logp_function(model: Any, backend: str) -> tuple[Any, Any]:
    """(the compiled logp+dlogp function, the raveled initial point)."""
    from pymc.blocking import DictToArrayBijection

    vgf = model.logp_dlogp_function(ravel_inputs=True, **_compile_kwargs(backend))
    vgf.set_extra_values({})
    return vgf._pytensor_function, DictToArrayBijection.map(model.initial_point()).data


def child_compile(backend: str, model_name: str) -> dict[str, Any]:
    """Seconds to compile a model's logp+dlogp and call it once (model built first)."""
    model = build(model_name)
    t0 = time.perf_counter()
    fn, x = _logp_function(model, backend)
    logp, _ = fn(x)
    return {"s": time.perf_counter() - t0, "logp": float(logp)}


def child_per_call(backend: str, calls: int) -> dict[str, Any]:
    """Best per-call microseconds of each model's compiled logp+dlogp.

    ``calls`` calls per round as 20 short rounds, 7 times over (140 rounds): a
    round of a few milliseconds is less often cut by another process on a loaded
    machine, and the best round is the function's own time.
    """
    out: dict[str, Any] = {}
    per_round = max(calls // ROUND_SPLIT, 1)
    for name in MODELS:
        fn, x = _logp_function(build(name), backend)
        logp, grad = fn(x)
        best = float("inf")
        for _ in range(7 * ROUND_SPLIT):
            t0 = time.perf_counter()
            for _ in range(per_round):
                fn(x)
            best = min(best, (time.perf_counter() - t0) / per_round)
        out[name] = {"us": best * 1e6, "logp": float(logp), "grad0": float(grad[0])}
    return out


def child_prior_predictive(backend: str) -> dict[str, Any]:
    """AR(2) prior predictive: the first call (compiles) and the best of three repeats."""
    import pymc as pm

    model = build("ar")
    kw = {"compile_kwargs": _compile_kwargs(backend)} if backend == "c" else {}
    times, mean = [], None
    for _ in range(4):
        t0 = time.perf_counter()
        idata = pm.sample_prior_predictive(draws=500, random_seed=1, model=model, **kw)
        times.append(time.perf_counter() - t0)
        mean = float(idata.prior["ar"].values[:, :, :5].mean())
    return {"first_s": times[0], "repeat_s": min(times[1:]), "mean": mean}


def child_main(argv: list[str]) -> None:
    import warnings

    warnings.simplefilter("ignore")
    kind, backend, *rest = argv
    if kind == "compile":
        result = child_compile(backend, rest[0])
    elif kind == "per_call":
        result = child_per_call(backend, int(rest[0]))
    elif kind == "prior_predictive":
        result = child_prior_predictive(backend)
    else:
        raise SystemExit(f"unknown child case {kind!r}")
    benchutil.emit(result)


# -- the parent side ---------------------------------------------------------------------------

def pymc_python() -> str | None:
    """The interpreter that has PyMC (see the module docstring), or None."""
    named = os.environ.get("OPGRAPH_BENCH_PYMC_PYTHON")
    if named:
        return named
    probe = subprocess.run([sys.executable, "-c", "import pymc"], capture_output=True,
                           check=False)
    return sys.executable if probe.returncode == 0 else None


def _env(backend: str, cache: str | None = None) -> dict[str, str]:
    """The child's environment: the layer on or off; caches under ``cache`` when given."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["OPGRAPH_AS_PYTENSOR"] = "1" if backend == "opgraph" else "0"
    if cache is not None:
        env = benchutil.with_flag(env, "OPGRAPH_FLAGS", f"compiledir={cache}/opgraph")
        env = benchutil.with_flag(env, "PYTENSOR_FLAGS", f"base_compiledir={cache}/pytensor")
    return env


def _child(python: str, env: dict[str, str], *args: str) -> dict[str, Any]:
    argv = [python, str(HERE), "--child", *args]
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=TIMEOUT_S,
                          check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode or not lines:
        tail = [ln for ln in proc.stderr.splitlines() if ln.strip()][-1:] or ["no output"]
        return {"error": f"exit {proc.returncode}: {tail[0][:160]}",
                "wall_s": time.perf_counter() - t0}
    return json.loads(lines[-1])


def _best(results: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in results if key in r]
    return min(values) if values else None


def _errors(results: list[dict[str, Any]]) -> list[str]:
    return [r["error"] for r in results if "error" in r]


def _with_ratios(row: dict[str, Any], values: dict[str, float | None]) -> dict[str, Any]:
    row.update({f"{b}": values[b] for b in BACKENDS})
    row["/ numba"] = benchutil.ratio(values["opgraph"], values["numba"])
    row["/ c"] = benchutil.ratio(values["opgraph"], values["c"])
    return row


def bench_per_call(report: Any, python: str) -> list[str]:
    report.section("PyMC logp+dlogp per call (us): model.logp_dlogp_function(ravel_inputs=True)")
    calls = benchutil.pick(2000, 50)
    runs: dict[str, list[dict[str, Any]]] = {b: [] for b in BACKENDS}
    for _ in range(2):  # two rounds, the backends in turn: the machine's load spreads
        for b in BACKENDS:
            runs[b].append(_child(python, _env(b), "per_call", b, str(calls)))
    errors = [e for b in BACKENDS for e in _errors(runs[b])]
    for name in MODELS:
        values = {b: _best([r[name] for r in runs[b] if name in r], "us") for b in BACKENDS}
        logps = {b: _best([r[name] for r in runs[b] if name in r], "logp") for b in BACKENDS}
        row = _with_ratios({"model": name}, values)
        known = [v for v in logps.values() if v is not None]
        row["logp spread"] = max(known) - min(known) if known else None
        report.row(**row)
    report.note("target (issue 27): opgraph <= 0.5x Numba per call. Best of "
                f"{7 * ROUND_SPLIT} rounds of {max(calls // ROUND_SPLIT, 1)} calls of the "
                "compiled function (vgf._pytensor_function(x)), each "
                "backend in its own process, two processes per backend taken in turn; "
                "'logp spread' is the largest difference of the three logp values")
    return errors


def _compile_case(python: str, backend: str, model: str, cache: str) -> dict[str, Any]:
    """One fresh process compiling ``model``; ``cache``: "warm", "empty" or "others"."""
    if cache == "warm":
        return _child(python, _env(backend), "compile", backend, model)
    with tempfile.TemporaryDirectory(prefix="opgraph-bench-pymc-") as tmp:
        if cache == "others":  # the caches hold the other models, not this one
            for other in MODELS:
                if other != model:
                    _child(python, _env(backend, tmp), "compile", backend, other)
        return _child(python, _env(backend, tmp), "compile", backend, model)


CACHE_CASES = {
    "warm": ("warm disk cache", "<= 0.3x",
             "; one unmeasured run fills the caches first"),
    "empty": ("empty caches", "<= 1.0x",
              "; every process gets new empty cache directories (opgraph compiledir, "
              "PyTensor base_compiledir: its C modules and Numba's cache)"),
    "others": ("new model, caches holding the other two models", "",
               "; new cache directories, filled by unmeasured runs of the other two models"),
}


def bench_compile(report: Any, python: str) -> list[str]:
    errors: list[str] = []
    for cache, (title, target, how) in CACHE_CASES.items():
        report.section(f"PyMC compile logp+dlogp + first call, fresh process, {title} (s)")
        repeats = REPEATS if cache == "warm" else COLD_REPEATS
        for model in MODELS:
            if cache == "warm":  # fill the caches once, unmeasured
                for b in BACKENDS:
                    _compile_case(python, b, model, "warm")
            runs = {b: [_compile_case(python, b, model, cache) for _ in range(repeats)]
                    for b in BACKENDS}
            errors += [e for b in BACKENDS for e in _errors(runs[b])]
            report.row(**_with_ratios({"model": model},
                                      {b: _best(runs[b], "s") for b in BACKENDS}))
        head = (f"target (issue 27): {target} Numba" if target else
                "no target (Numba reuses the kernels it cached for other models)")
        report.note(f"{head}. Timed inside the child from after "
                    "the model is built to the end of the first call (Numba compiles at the "
                    f"first call), best of {repeats} fresh process(es){how}")
    return errors


IMPORT_ROUNDS = benchutil.pick(15, 3)
"""Fresh processes per side and statement, after one unmeasured run that writes the bytecode."""

IMPORT_STATEMENTS = {
    "import pymc": ("import pymc", "import pymc"),
    "import pytensor alone": ("import pytensor", "import pytensor"),
    "import opgraph.tensor alone": ("import opgraph.tensor", "import pytensor.tensor"),
}
"""Row -> (statement timed on opgraph's side, on PyTensor's side)."""


def _time_import(python: str, side: str, statement: str) -> tuple[float | None, str | None]:
    """Seconds ``statement`` takes in a fresh process (bytecode cached), or an error."""
    code = (f"import time; t0 = time.perf_counter(); {statement}; "
            "print(time.perf_counter() - t0)")
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True,
                          env=_env(side), timeout=TIMEOUT_S, check=False)
    if proc.returncode:
        return None, f"{statement} ({side}): {proc.stderr.strip()[-160:]}"
    return float(proc.stdout.strip().splitlines()[-1]), None


def import_times(python: str, statements: tuple[str, str],
                 rounds: int = IMPORT_ROUNDS) -> tuple[dict[str, list[float]], list[str]]:
    """Per side, the seconds of ``rounds`` fresh processes, the sides alternating.

    The first process of each side is not kept (it writes the bytecode); the
    sides run in turn, and which goes first alternates every round, so a change
    of load on the machine falls on both.
    """
    sides = {"opgraph": statements[0], "numba": statements[1]}
    times: dict[str, list[float]] = {side: [] for side in sides}
    errors: list[str] = []
    for k in range(rounds + 1):
        order = list(sides) if k % 2 else list(reversed(sides))
        for side in order:
            seconds, error = _time_import(python, side, sides[side])
            if error is not None:
                errors.append(error)
            elif k:
                times[side].append(seconds)
    return times, errors


def bench_import(report: Any, python: str) -> list[str]:
    report.section("import in a fresh process, bytecode cached (s): opgraph vs PyTensor 3.0.7")
    errors: list[str] = []
    for label, statements in IMPORT_STATEMENTS.items():
        times, errs = import_times(python, statements)
        errors += errs
        best = {side: min(t) if t else None for side, t in times.items()}
        median = {side: statistics.median(t) if t else None for side, t in times.items()}
        report.row(statement=label, opgraph_best=best["opgraph"], pytensor_best=best["numba"],
                   ratio_best=benchutil.ratio(best["opgraph"], best["numba"]),
                   opgraph_median=median["opgraph"], pytensor_median=median["numba"],
                   ratio_median=benchutil.ratio(median["opgraph"], median["numba"]))
    report.note(f"target (issue 27): import pymc <= 1.1x. {IMPORT_ROUNDS} fresh processes per "
                "side and row after one that writes the bytecode, the sides alternating "
                "(OPGRAPH_AS_PYTENSOR=1 / 0, PYTHONDONTWRITEBYTECODE unset); timed inside the "
                "process around the statement (interpreter start-up excluded). 'import "
                "opgraph.tensor alone' is timed against 'import pytensor.tensor'. "
                "`python -X importtime -c 'import pymc'` shows where the time goes")
    return errors


def bench_prior_predictive(report: Any, python: str) -> list[str]:
    report.section("pm.sample_prior_predictive(500) of an AR(2), 100 steps (a scan) (s)")
    runs = {b: _child(python, _env(b), "prior_predictive", b) for b in BACKENDS}
    for key, label in (("repeat_s", "repeated call"), ("first_s", "first call (compiles)")):
        values = {b: runs[b].get(key) for b in BACKENDS}
        report.row(**_with_ratios({"case": label}, values))
    means = [r["mean"] for r in runs.values() if "mean" in r]
    report.note("target (issue 27): <= 0.5x Numba (repeated call). Same seed on every side; "
                f"mean of the first draws per side: {', '.join(f'{m:.6g}' for m in means)}")
    return _errors(list(runs.values()))


CASES = {"import": bench_import, "per_call": bench_per_call,
         "prior_predictive": bench_prior_predictive, "compile": bench_compile}
"""The cases, in the order a full run takes them (``--case`` picks some)."""


def run(report: Any, cases: tuple[str, ...] = tuple(CASES)) -> None:
    python = pymc_python()
    report.section("PyMC 6.0.0 on opgraph vs PyTensor 3.0.7 (Numba, C)")
    if python is None:
        report.note("PyMC is not importable here and OPGRAPH_BENCH_PYMC_PYTHON is not set "
                    "(nox -s bench sets it): skipped")
        return
    report.note(f"interpreter: {python}; columns: opgraph (FAST_RUN, its C linker), numba "
                "(PyTensor's default mode), c (PyTensor Mode(linker='cvm', "
                "optimizer='fast_run')); '/ numba' and '/ c' are opgraph's ratios")
    errors = []
    for case in cases:
        errors += CASES[case](report, python)
    for err in dict.fromkeys(errors):
        report.note(f"failed: {err}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child_main(sys.argv[2:])
    else:
        import argparse

        from report import run_standalone

        parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
        parser.add_argument("--case", nargs="+", choices=list(CASES), default=list(CASES),
                            help="the cases to run (default: all; compile takes minutes)")
        picked = tuple(parser.parse_args().case)
        run_standalone(lambda report: run(report, picked))
