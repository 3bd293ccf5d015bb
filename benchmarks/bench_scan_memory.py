"""Peak memory of a recurrence's gradient (issue 33, item 4): opgraph against JAX and PyTensor.

A tanh RNN ``h_t = tanh(W h + U x_t + b)`` at hidden 1024 over 1000 steps (float64),
loss on the last state, gradient with respect to W, U and b.  Each configuration runs in
a fresh process: build and compile (JAX ahead of time, ``jit(...).lower().compile()``),
then the peak resident memory of the first gradient call above the memory held just
before it (Linux's ``VmHWM`` reset through ``/proc/self/clear_refs``, so compiling
does not count; the first call, since a backend may keep its buffers for the next
one, which would then allocate nothing), and the time of a second call.

Configurations: opgraph's plain ``scan`` and ``scan_checkpoints`` (one state kept
every ``save_every_N`` steps, the backward pass recomputes the steps between, as
PyTensor's ``scan_checkpoints`` does); JAX's ``lax.scan`` plain and with the step
under ``jax.checkpoint`` (rematerialisation); PyTensor's C mode with plain ``scan``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))

import benchutil  # noqa: E402
import numpy as np  # noqa: E402

HIDDEN = benchutil.pick(1024, 64)
STEPS = benchutil.pick(1000, 100)
EVERY = benchutil.pick(25, 10)  # divides STEPS: no padded steps, the same last state
CONFIGS = ("opgraph scan", "opgraph scan_checkpoints", "JAX scan", "JAX scan + checkpoint",
           "PyTensor C scan")


def _status_mb(key: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) / 1024
    raise KeyError(key)


def _data() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    n = HIDDEN
    return [rng.normal(size=(STEPS, n)), rng.normal(size=(n, n)) / np.sqrt(n),
            rng.normal(size=(n, n)) / np.sqrt(n), rng.normal(size=n) * 0.1, np.zeros(n)]


def _symbolic_gradient(lib: Any, m: Any, checkpoints: bool) -> Any:
    x, w, u, b, h0 = m.matrix("x"), m.matrix("W"), m.matrix("U"), m.vector("b"), m.vector("h0")

    def step(xt: Any, h: Any, w: Any, u: Any, b: Any) -> Any:
        return m.tanh(w @ h + u @ xt + b)

    if checkpoints:
        hs = lib.scan_checkpoints(step, sequences=[x], outputs_info=[h0],
                                  non_sequences=[w, u, b], save_every_N=EVERY,
                                  return_updates=False)
    else:
        hs = lib.scan(step, sequences=[x], outputs_info=[h0], non_sequences=[w, u, b],
                      return_updates=False)
    loss = (hs[-1] ** 2).sum()  # the last state: the same value for both forms
    return [x, w, u, b, h0], lib.grad(loss, [w, u, b])


def _opgraph(checkpoints: bool) -> Any:
    import opgraph
    import opgraph.scan as scan_pkg
    import opgraph.tensor as m
    from opgraph.compile.mode import Mode, get_mode

    lib = type("lib", (), {"scan": staticmethod(opgraph.scan), "grad": staticmethod(opgraph.grad),
                           "scan_checkpoints": staticmethod(scan_pkg.scan_checkpoints)})
    ins, grads = _symbolic_gradient(lib, m, checkpoints)
    mode = Mode(linker="c", optimizer=get_mode("FAST_RUN").optimizer)
    return opgraph.function(ins, grads, mode=mode)


def _pytensor() -> Any:
    import pytensor
    import pytensor.tensor as m

    ins, grads = _symbolic_gradient(pytensor, m, False)
    return pytensor.function(ins, grads, mode=benchutil.pytensor_c_mode())


def _jax(remat: bool) -> Any:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def loss(x: Any, w: Any, u: Any, b: Any, h0: Any) -> Any:
        def step(h: Any, xt: Any) -> tuple[Any, Any]:
            h = jnp.tanh(w @ h + u @ xt + b)
            return h, h

        body = jax.checkpoint(step) if remat else step
        h_last, _ = jax.lax.scan(body, h0, x)
        return (h_last ** 2).sum()

    compiled = jax.jit(jax.grad(loss, argnums=(1, 2, 3))).lower(*_data()).compile()
    return lambda *a: jax.block_until_ready(compiled(*a))


def _build(config: str) -> Any:
    if config.startswith("opgraph"):
        return _opgraph("checkpoints" in config)
    if config.startswith("JAX"):
        return _jax("checkpoint" in config)
    return _pytensor()


def child(config: str) -> dict[str, float]:
    """Run in the fresh process: the call's peak memory above its start, and its time."""
    fn = _build(config)
    args = _data()
    np.dot(args[1], args[2])  # OpenBLAS allocates its work buffers at its first product
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status_mb("VmRSS")
    fn(*args)
    peak = _status_mb("VmHWM") - before
    t0 = time.perf_counter()
    out = fn(*args)
    seconds = time.perf_counter() - t0
    norm = float(sum(np.linalg.norm(np.asarray(g)) for g in out))
    return {"peak MB": peak, "seconds": seconds, "grad norm": norm}


def run(report: Any) -> None:
    report.section(f"scan gradient memory: tanh RNN, hidden {HIDDEN}, {STEPS} steps, float64, "
                   "peak resident memory of one gradient call above its start")
    rows = {}
    for config in CONFIGS:
        proc = subprocess.run([sys.executable, str(HERE), "--child", config],
                              capture_output=True, text=True,
                              timeout=benchutil.PEER_TIMEOUT_S * 5)
        if proc.returncode != 0:
            report.note(f"{config}: failed: {proc.stderr.strip().splitlines()[-1:]}")
            continue
        rows[config] = json.loads(proc.stdout.strip().splitlines()[-1])
    jax_peak = rows.get("JAX scan", {}).get("peak MB")
    for config, r in rows.items():
        report.row(config=config, **{"peak MB": round(r["peak MB"], 1),
                                     "call s": round(r["seconds"], 3),
                                     "peak / JAX scan": benchutil.ratio(r["peak MB"], jax_peak),
                                     "grad norm": round(r["grad norm"], 6)})
    report.note(f"scan_checkpoints keeps one state every {EVERY} steps (it divides the "
                "steps, so every configuration computes the same gradient: the norm column)")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        print(json.dumps(child(sys.argv[2])))
    else:
        from report import run_standalone

        run_standalone(run)
