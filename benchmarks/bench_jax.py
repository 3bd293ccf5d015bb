"""opgraph's JAX mode against the same models written by hand with ``jax.jit`` (issue 29).

Three workloads, same values, same run, timed in turns (best of REPEATS):

* W4: an MLP's loss and its four gradients (bench_gradient's model and JAX peer);
* the scan RNN of bench_scan: ``h[-1].sum()`` and its gradient wrt ``W`` (the peer is
  ``jit(value_and_grad)``: one forward scan, as opgraph's function has);
* eight schools (bench_sampler's model): ``logp`` and ``dlogp`` of the flat vector.

Per call: opgraph ``mode="JAX"`` through its Function (inputs checked), with
``trust_input=True``, and its raw jitted callable (``fn.vm.jit_fn``), against
``jax.jit`` by hand (``block_until_ready`` on every result).  Compile: opgraph's
``function()`` plus the first call (rewrites, translation, JAX's trace and XLA
compile) against JAX's own ``jit`` plus first call, each on a fresh function
(after one warm-up compile of each: imports and one-time setup are not counted).
Targets: per call <= 1.1x hand-written JAX; compile <= 1.5x JAX's trace+compile.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_gradient  # noqa: E402
import bench_sampler  # noqa: E402
import bench_scan  # noqa: E402
import benchutil  # noqa: E402

REPEATS = benchutil.pick(30, 5)


def _ready(values: Any) -> Any:
    import jax

    return jax.block_until_ready(values)


def _compile_s(make: Callable[[], Any], args: list[Any]) -> float:
    """Seconds to build a fresh function and make its first call: the better of two builds,
    timed in turns with the peer's, so that neither side pays the other's first-use costs
    (JAX caches the lowering of each primitive it meets for the first time)."""
    t0 = time.perf_counter()
    fn = make()
    _ready(fn(*args))
    return time.perf_counter() - t0


def _opgraph_variants(make: Callable[[], Any], args: list[Any]) -> dict[str, Any]:
    """Callables of opgraph's JAX mode: the Function, with trust_input, its raw jit_fn."""
    fn = make()
    _ready(fn(*args))
    trusted = make()
    trusted.trust_input = True
    raw = fn.vm.jit_fn
    return {
        "opgraph JAX": lambda *a: _ready(fn(*a)),
        "opgraph JAX trust_input": lambda *a: _ready(trusted(*a)),
        "opgraph raw jit_fn": lambda *a: _ready(raw(*a)),
    }


def _alternating(fns: dict[str, Callable[..., Any]], args: list[Any]) -> dict[str, float]:
    return benchutil.alternating(fns, args, REPEATS)


# -- the three workloads: (opgraph builder, JAX builder, arguments) ---------------------------
def _w4() -> tuple[Callable[[], Any], Callable[[], Any], list[Any]]:
    import opgraph
    import opgraph.tensor as pt

    def make() -> Any:
        ins, outs, _ = bench_gradient._build(pt, opgraph.grad)
        return opgraph.function(ins, outs, mode="JAX")

    return make, bench_gradient._jax_peer, bench_gradient._data()


def _rnn() -> tuple[Callable[[], Any], Callable[[], Any], list[Any]]:
    import opgraph
    import opgraph.tensor as pt

    hidden = bench_scan.HIDDEN[-1]

    def make() -> Any:
        ins, cost, g = bench_scan.rnn_graph(pt, opgraph.scan, opgraph.grad)
        return opgraph.function(ins, [cost, g], mode="JAX")

    return make, _rnn_value_and_grad, list(bench_scan.data(hidden))


def _rnn_value_and_grad() -> Any:
    """The RNN as one ``jax.jit(jax.value_and_grad(...))``: one forward scan, like opgraph's."""
    import jax
    import jax.numpy as jnp

    def cost(x: Any, W: Any, h0: Any) -> Any:
        def step(h: Any, xt: Any) -> tuple[Any, None]:
            return jnp.tanh(W @ h + xt), None

        h, _ = jax.lax.scan(step, h0, x)
        return h.sum()

    return jax.jit(jax.value_and_grad(cost, argnums=1))


def _eight_schools() -> tuple[Callable[[], Any], Callable[[], Any], list[Any]]:
    import opgraph
    import opgraph.tensor as pt

    def make() -> Any:
        theta = pt.dvector("theta")
        logp = bench_sampler.eight_schools(pt, theta)
        return opgraph.function([theta], [logp, opgraph.grad(logp, theta)], mode="JAX")

    theta = np.linspace(-1.0, 1.0, 10)
    return make, lambda: bench_sampler._jax("eight", None), [theta]


def _warm_up() -> None:
    """Imports and one-time setup (rewrite database, XLA client) out of the compile times."""
    import jax
    import jax.numpy as jnp

    import opgraph
    import opgraph.tensor as pt

    x = pt.dvector("x")
    _ready(opgraph.function([x], opgraph.grad(pt.exp(x).sum(), x), mode="JAX")(np.ones(2)))
    _ready(jax.jit(jax.grad(lambda v: jnp.exp(v).sum()))(np.ones(2)))


WORKLOADS = {"W4 MLP value+grad": _w4, "scan RNN value+grad": _rnn,
             "eight schools logp+dlogp": _eight_schools}


def run(report: Any) -> None:
    report.section("JAX mode vs hand-written jax.jit (per call and compile; targets 1.1x, 1.5x)")
    try:
        import jax  # noqa: F401
        import opgraph_jax  # noqa: F401
    except ImportError as exc:
        report.note(f"skipped: {exc} (install opgraph-jax)")
        return
    _warm_up()
    for name, build in WORKLOADS.items():
        make, make_jax, args = build()
        compiles = [(_compile_s(make, args), _compile_s(make_jax, args)) for _ in range(2)]
        ours_compile, jax_compile = (min(c[0] for c in compiles), min(c[1] for c in compiles))
        ours = _opgraph_variants(make, args)
        peer = make_jax()
        times = _alternating({**ours, "JAX jit": lambda *a, p=peer: _ready(p(*a))}, args)
        jax_s = times.pop("JAX jit")
        for label, seconds in times.items():
            report.row(workload=name, contender=label, call_us=seconds * 1e6,
                       jax_call_us=jax_s * 1e6, ratio=benchutil.ratio(seconds, jax_s))
        report.row(workload=name, contender="compile (function + first call)",
                   call_us=ours_compile * 1e6, jax_call_us=jax_compile * 1e6,
                   ratio=benchutil.ratio(ours_compile, jax_compile))


if __name__ == "__main__":
    from report import run_standalone

    run_standalone(run)
