"""Scan benchmark (issue 16): an RNN recurrence and a scalar recurrence, per call.

``h[t] = tanh(W @ h[t-1] + x[t])`` for 1000 steps, hidden size 8 and 256, its
value and its gradient with respect to W; opgraph's C mode against PyTensor
3.0.7's C/cvm scan and JAX's ``lax.scan`` under ``jit``, all single-threaded
(run.py pins the BLAS threads to one; JAX gets one intra-op thread).  Then a
10,000-step scalar recurrence ``s[t] = s[t-1] * a + 1``: its per-step cost
(targets: the RNN at most 0.5x PyTensor and 1.0x JAX; the scalar step under
0.2 us in C).  The peers are timed in turns, best of REPEATS each, so that a
loaded machine slows them alike.  A peer that is not installed leaves its
columns empty.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))

import benchutil  # noqa: E402
import numpy as np  # noqa: E402

STEPS = benchutil.pick(1000, 100)
HIDDEN = benchutil.pick((8, 256), (8, 32))
SCALAR_STEPS = benchutil.pick(10_000, 1000)
REPEATS = benchutil.pick(7, 2)
# BENCH_SCAN_CLOCK=process times CPU seconds (time.process_time), which do not count
# the time a process waits for a core: steadier than wall time on a loaded machine.
CLOCK = time.process_time if os.environ.get("BENCH_SCAN_CLOCK") == "process" else time.perf_counter


def best_of(fn: Any, *args: Any) -> float:
    """The best of REPEATS timed calls (after one warm-up call), in seconds."""
    fn(*args)
    times = []
    for _ in range(REPEATS):
        t0 = CLOCK()
        fn(*args)
        times.append(CLOCK() - t0)
    return min(times)


def data(hidden: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return (rng.normal(size=(STEPS, hidden)), rng.normal(size=(hidden, hidden)) / hidden,
            np.zeros(hidden))


def rnn_graph(m: Any, scan: Any, grad: Any) -> tuple[list, Any, Any]:
    """(inputs, last hidden state's sum, its gradient wrt W) in library ``m``."""
    x, W, h0 = m.matrix("x"), m.matrix("W"), m.vector("h0")
    h = scan(lambda xt, h, W: m.tanh(m.dot(W, h) + xt), sequences=x, outputs_info=h0,
             non_sequences=W, return_updates=False)
    cost = h[-1].sum()
    return [x, W, h0], cost, grad(cost, W)


def opgraph_fns(hidden: int) -> tuple[Any, Any]:
    import opgraph
    import opgraph.tensor as m
    from opgraph.compile.mode import Mode, get_mode

    mode = Mode(linker="c", optimizer=get_mode("FAST_RUN").optimizer)
    ins, cost, g = rnn_graph(m, opgraph.scan, opgraph.grad)
    return opgraph.function(ins, cost, mode=mode), opgraph.function(ins, g, mode=mode)


def pytensor_fns(hidden: int) -> tuple[Any, Any]:
    import pytensor
    import pytensor.tensor as m

    mode = benchutil.pytensor_c_mode()
    ins, cost, g = rnn_graph(m, pytensor.scan, pytensor.grad)
    return pytensor.function(ins, cost, mode=mode), pytensor.function(ins, g, mode=mode)


def jax_fns(hidden: int) -> tuple[Any, Any]:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def cost(x: Any, W: Any, h0: Any) -> Any:
        def step(h: Any, xt: Any) -> tuple[Any, None]:
            return jnp.tanh(W @ h + xt), None
        h, _ = jax.lax.scan(step, h0, x)
        return h.sum()

    value = jax.jit(cost)
    gradient = jax.jit(jax.grad(cost, argnums=1))

    def run(f: Any) -> Any:
        return lambda *a: f(*a).block_until_ready()

    return run(value), run(gradient)


PEERS = {"opgraph C": opgraph_fns, "PyTensor cvm": pytensor_fns, "JAX jit": jax_fns}


def alternating(fns: dict[str, Any], *args: Any) -> dict[str, float]:
    """Best-of-REPEATS seconds of each callable, timed in turns (benchutil.alternating)."""
    return benchutil.alternating(fns, args, REPEATS, CLOCK)


def _time_peers(hidden: int) -> tuple[dict[str, list[float | None]], list[str]]:
    """{peer: [value s, gradient s]} (None for a peer that is missing or fails), errors."""
    built, errors = {}, []
    for name, make in PEERS.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                built[name] = make(hidden)
        except Exception as exc:  # a missing or failing peer: reported, not fatal
            errors.append(f"{name} (hidden {hidden}): {type(exc).__name__}: {str(exc)[:120]}")
    times: dict[str, list[float | None]] = {name: [None, None] for name in PEERS}
    args = data(hidden)
    for k in (0, 1):
        fns = {name: pair[k] for name, pair in built.items()}
        try:
            for name, t in alternating(fns, *args).items():
                times[name][k] = t
        except Exception as exc:  # a peer failing when called: time the others alone
            errors.append(f"hidden {hidden}: {type(exc).__name__}: {str(exc)[:120]}")
            for name, fn in fns.items():
                try:
                    times[name][k] = alternating({name: fn}, *args)[name]
                except Exception:  # that peer's column stays empty
                    pass
    return times, errors


def scalar_step_cost() -> tuple[dict[str, float | None], list[str]]:
    """Per-step seconds of a scalar recurrence (the loop's own overhead), and errors."""
    out: dict[str, float | None] = {}
    errors = []
    fns = {}
    for name, build in (("opgraph C", _opgraph_scalar), ("PyTensor cvm", _pytensor_scalar)):
        out[name] = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fns[name] = build()
        except Exception as exc:  # a missing or failing peer: reported, not fatal
            errors.append(f"{name}: {type(exc).__name__}: {str(exc)[:120]}")
    if fns:
        for name, t in alternating(fns, 0.999).items():
            out[name] = t / SCALAR_STEPS
    return out, errors


def _scalar_graph(lib: Any, m: Any, mode: Any) -> Any:
    a = m.dscalar("a")
    s = lib.scan(lambda s, a: s * a + 1.0, outputs_info=a * 0.0,
                 non_sequences=a, n_steps=SCALAR_STEPS, return_updates=False)
    return lib.function([a], s[-1], mode=mode)


def _opgraph_scalar() -> Any:
    import opgraph
    import opgraph.tensor as m
    from opgraph.compile.mode import Mode, get_mode

    return _scalar_graph(opgraph, m, Mode(linker="c", optimizer=get_mode("FAST_RUN").optimizer))


def _pytensor_scalar() -> Any:
    import pytensor
    import pytensor.tensor as m

    return _scalar_graph(pytensor, m, benchutil.pytensor_c_mode())


def run(report: Any) -> None:
    report.section(f"scan h[t] = tanh(W @ h[t-1] + x[t]), {STEPS} steps, per call (ms)")
    errors = []
    for hidden in HIDDEN:
        times, errs = _time_peers(hidden)
        errors += errs
        ours = times["opgraph C"]
        row: dict[str, Any] = {"hidden": hidden}
        for kind, k in (("value", 0), ("grad", 1)):
            for name, t in times.items():
                row[f"{kind} {name} ms"] = None if t[k] is None else t[k] * 1e3
            row[f"{kind} / PyTensor"] = benchutil.ratio(ours[k], times["PyTensor cvm"][k])
            row[f"{kind} / JAX"] = benchutil.ratio(ours[k], times["JAX jit"][k])
        report.row(**row)
    report.note("targets: opgraph C <= 0.5x PyTensor 3.0.7 cvm and <= 1.0x JAX lax.scan "
                "under jit, value and gradient, single thread")
    for err in dict.fromkeys(errors):
        report.note(err)

    report.section(f"scalar recurrence s[t] = s[t-1] * a + 1, {SCALAR_STEPS} steps, "
                   "per step (us)")
    cost, errors = scalar_step_cost()
    report.row(**{f"{k} us/step": (None if v is None else v * 1e6) for k, v in cost.items()},
               ratio=benchutil.ratio(cost.get("opgraph C"), cost.get("PyTensor cvm")))
    report.note("target: under 0.2 us per step in C")
    for err in errors:
        report.note(err)


if __name__ == "__main__":
    from report import run_standalone

    run_standalone(run)
