"""First compile in a fresh process, disk cache warm (issue 33): what a new script meets.

Each sample is a new interpreter that imports the library, builds a graph,
compiles it and calls it once; the time from the first import to the first
result is reported, best of SAMPLES, after one unmeasured run that fills the
disk caches.  Graphs: W4 (a 2-layer MLP's loss and gradients, width 256) and a
sampler model (eight schools' logp and its gradient).  Peers: opgraph
FAST_RUN, PyTensor 3.0.7 C (cvm) and Numba, and JAX (import, trace, compile
under ``jit``).  ``import opgraph.tensor`` alone is timed the same way.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))

import benchutil  # noqa: E402

SAMPLES = benchutil.pick(5, 2)

W4 = """
x, t, w1, w2 = (m.matrix(n) for n in ("x", "t", "w1", "w2"))
b1, b2 = m.vector("b1"), m.vector("b2")
h = m.tanh(m.dot(x, w1) + b1)
loss = m.mean((m.dot(h, w2) + b2 - t) ** 2)
ins = [x, t, w1, b1, w2, b2]
outs = [loss, *lib.grad(loss, [w1, b1, w2, b2])]
rng = np.random.default_rng(0)
args = [rng.normal(size=s) for s in ((64, 256), (64, 10), (256, 256), (256,), (256, 10), (10,))]
"""

SCHOOLS = """
mu, log_tau, theta = m.dscalar("mu"), m.dscalar("log_tau"), m.dvector("theta")
y = np.array([28., 8., -3., 7., -1., 1., 18., 12.])
sigma = np.array([15., 10., 16., 11., 9., 11., 10., 18.])
tau = m.exp(log_tau)
logp = (-0.5 * ((theta - mu) / tau) ** 2 - m.log(tau)).sum() \\
    - 0.5 * (((y - theta) / sigma) ** 2).sum() - 0.5 * mu ** 2 / 25.0 + log_tau
ins = [mu, log_tau, theta]
outs = [logp, *lib.grad(logp, ins)]
args = [np.float64(1.0), np.float64(0.5), np.linspace(-1, 1, 8)]
"""

LIBS = {
    "opgraph FAST_RUN": ("import opgraph as lib, opgraph.tensor as m", "lib.function(ins, outs)"),
    "PyTensor C": ("import pytensor as lib, pytensor.tensor as m",
                   "lib.function(ins, outs, mode=lib.compile.mode.Mode(linker='cvm', "
                   "optimizer='fast_run'))"),
    "PyTensor Numba": ("import pytensor as lib, pytensor.tensor as m",
                       "lib.function(ins, outs, mode='NUMBA')"),
}

JAX_W4 = """
import jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
def loss(x, t, w1, b1, w2, b2):
    h = jnp.tanh(x @ w1 + b1)
    return jnp.mean((h @ w2 + b2 - t) ** 2)
f = jax.jit(jax.value_and_grad(loss, argnums=(2, 3, 4, 5)))
rng = np.random.default_rng(0)
args = [rng.normal(size=s) for s in ((64, 256), (64, 10), (256, 256), (256,), (256, 10), (10,))]
jax.block_until_ready(f(*args))
"""

JAX_SCHOOLS = """
import jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
y = jnp.array([28., 8., -3., 7., -1., 1., 18., 12.])
sigma = jnp.array([15., 10., 16., 11., 9., 11., 10., 18.])
def logp(mu, log_tau, theta):
    tau = jnp.exp(log_tau)
    return ((-0.5 * ((theta - mu) / tau) ** 2 - jnp.log(tau)).sum()
            - 0.5 * (((y - theta) / sigma) ** 2).sum() - 0.5 * mu ** 2 / 25.0 + log_tau)
f = jax.jit(jax.value_and_grad(logp, argnums=(0, 1, 2)))
jax.block_until_ready(f(1.0, 0.5, jnp.linspace(-1, 1, 8)))
"""


def script(lib: str, graph: str) -> str:
    """A program timing itself from its first import to its first result."""
    if lib == "JAX jit":
        body = JAX_W4 if graph == "W4" else JAX_SCHOOLS
        return f"import time; t0 = time.perf_counter()\nimport numpy as np\n{body}\n" \
               "print(time.perf_counter() - t0)"
    imports, compile_call = LIBS[lib]
    model = W4 if graph == "W4" else SCHOOLS
    return textwrap.dedent(f"""
        import time; t0 = time.perf_counter()
        import numpy as np
        {imports}
        """) + model + f"fn = {compile_call}\nfn(*args)\nprint(time.perf_counter() - t0)\n"


def fresh_process_seconds(code: str) -> float:
    """Best of SAMPLES fresh interpreters running ``code`` (one warm-up run first)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                   "intra_op_parallelism_threads=1")
    best = float("inf")
    for k in range(SAMPLES + 1):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=benchutil.PEER_TIMEOUT_S, env=env, check=True)
        if k:  # the first run fills the caches (bytecode, compile cache, XLA)
            best = min(best, float(out.stdout.strip().splitlines()[-1]))
    return best


def import_seconds() -> float:
    return fresh_process_seconds("import time; t0 = time.perf_counter()\n"
                                 "import opgraph.tensor\nprint(time.perf_counter() - t0)")


def run(report: Any) -> None:
    report.section("first compile in a fresh process, warm disk cache: import + build + "
                   "compile + first call (s)")
    errors = []
    for graph in ("W4", "eight schools"):
        row: dict[str, Any] = {"graph": graph}
        times: dict[str, float | None] = {}
        for lib in (*LIBS, "JAX jit"):
            try:
                times[lib] = fresh_process_seconds(script(lib, graph))
            except subprocess.CalledProcessError as exc:  # a missing or failing peer
                times[lib] = None
                last = (exc.stderr or "").strip().splitlines()[-1:] or ["no message"]
                errors.append(f"{lib}: {last[0][:160]}")
            except subprocess.TimeoutExpired:
                times[lib] = None
                errors.append(f"{lib}: over {benchutil.PEER_TIMEOUT_S:.0f} s")
            row[f"{lib} s"] = times[lib]
        ours = times["opgraph FAST_RUN"]
        best_pt = min((t for n, t in times.items() if n.startswith("PyTensor") and t),
                      default=None)
        row["/ JAX"] = benchutil.ratio(ours, times["JAX jit"])
        row["/ PyTensor best"] = benchutil.ratio(ours, best_pt)
        report.row(**row)
    report.note("targets (issue 33): <= 1.0x JAX's trace+compile and <= 0.5x PyTensor's "
                "best mode, same run")
    report.note(f"import opgraph.tensor alone: {import_seconds():.3f} s (fresh process, "
                "bytecode cached)")
    for err in dict.fromkeys(errors):
        report.note(err)


if __name__ == "__main__":
    from report import run_standalone

    run_standalone(run)
