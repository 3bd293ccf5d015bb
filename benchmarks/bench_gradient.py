"""Gradient benchmark: a 2-layer MLP loss, beside PyTensor and hand-written NumPy.

tanh hidden layer, 256x256 weights, batch 256, squared loss.  Measures the
time to build the gradient graph, to compile it (warm: an equal graph was
compiled once before) and per call; BLAS is pinned to one thread on every
side (threaded BLAS swings 4-17x between runs on 2 shared cores).

Run standalone: ``python benchmarks/bench_gradient.py``.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import math  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

N = 256
#: PyTensor 3.0.7 figures from the issue (used when PyTensor is not importable).
PYTENSOR_REFERENCE = {"grad_build_s": 0.006, "compile_warm_s": 0.24, "call_ms": 5.8}
NUMPY_REFERENCE_MS = 4.8


def _data(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, N))
    t = rng.normal(size=(N, N))
    w1 = rng.normal(size=(N, N)) / math.sqrt(N)
    w2 = rng.normal(size=(N, N)) / math.sqrt(N)
    b1 = rng.normal(size=N) * 0.1
    b2 = rng.normal(size=N) * 0.1
    return [x, t, w1, b1, w2, b2]


def _build(lib: Any, grad: Callable[..., Any]) -> tuple[list[Any], list[Any], float]:
    """(inputs, [loss, *grads], seconds spent in grad)."""
    x, t = lib.matrix("x"), lib.matrix("t")
    w1, w2 = lib.matrix("w1"), lib.matrix("w2")
    b1, b2 = lib.vector("b1"), lib.vector("b2")
    h = lib.tanh(lib.dot(x, w1) + b1)
    out = lib.dot(h, w2) + b2
    loss = lib.mean((out - t) ** 2)
    params = [w1, b1, w2, b2]
    t0 = time.perf_counter()
    grads = grad(loss, params)
    build = time.perf_counter() - t0
    return [x, t, *params], [loss, *grads], build


def numpy_backprop(x: np.ndarray, t: np.ndarray, w1: np.ndarray, b1: np.ndarray,
                   w2: np.ndarray, b2: np.ndarray) -> list[Any]:
    """The hand-written reference: loss and gradients of the same MLP."""
    h = np.tanh(x @ w1 + b1)
    diff = h @ w2 + b2 - t
    loss = np.mean(diff**2)
    g_out = diff * (2.0 / diff.size)
    g_w2 = h.T @ g_out
    g_b2 = g_out.sum(axis=0)
    g_pre = (g_out @ w2.T) * (1.0 - h * h)
    g_w1 = x.T @ g_pre
    g_b1 = g_pre.sum(axis=0)
    return [loss, g_w1, g_b1, g_w2, g_b2]


def _per_call(fn: Callable[..., Any], args: list[np.ndarray], repeats: int = 30) -> float:
    fn(*args)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _measure(lib: Any, grad: Any, compile_fn: Any, args: list[np.ndarray]) -> dict[str, Any]:
    builds = []
    for _ in range(5):
        inputs, outputs, build = _build(lib, grad)
        builds.append(build)
    compile_fn(inputs, outputs)  # warm caches
    compiles = []
    fn = None
    for _ in range(3):
        inputs, outputs, _ = _build(lib, grad)
        t0 = time.perf_counter()
        fn = compile_fn(inputs, outputs)
        compiles.append(time.perf_counter() - t0)
    got = fn(*args)
    want = numpy_backprop(*args)
    err = max(float(np.max(np.abs(np.asarray(g) - w))) for g, w in zip(got, want))
    return {"grad_build_s": min(builds), "compile_warm_s": min(compiles),
            "call_ms": 1e3 * _per_call(fn, args), "max_abs_err": err}


def _ours(mode: Any) -> tuple[Any, Any, Any] | None:
    try:
        import opgraph.tensor as pt
        from opgraph.compile.function import function
        from opgraph.gradient import grad
    except ImportError:
        return None
    return pt, grad, lambda i, o: function(list(i), o, mode=mode)


def _peer() -> tuple[Any, Any, Any] | None:
    try:
        import pytensor
        import pytensor.tensor as ptt
    except ImportError:
        return None

    def compile_fn(i: Any, o: Any) -> Any:
        mode = pytensor.compile.mode.get_mode("FAST_RUN").clone(linker="cvm")
        return pytensor.function(list(i), o, mode=mode)

    return ptt, pytensor.grad, compile_fn


def run(report: Any) -> None:
    args = _data()
    report.section("2-layer MLP gradient (256x256, batch 256, tanh, squared loss), 1 BLAS thread")
    numpy_ms = 1e3 * _per_call(numpy_backprop, args)
    report.row(impl="numpy backprop (hand-written)", call_ms=round(numpy_ms, 3))
    peer = _peer()
    peer_row: dict[str, Any] | None = None
    if peer is not None:
        try:
            peer_row = _measure(*peer, args)
            report.row(impl="pytensor FAST_RUN (cvm)", **_rounded(peer_row))
        except Exception as exc:
            report.note(f"PyTensor failed: {type(exc).__name__}: {exc}")
    ref = peer_row or PYTENSOR_REFERENCE
    try:
        from opgraph.compile.mode import Mode

        vm_fast_run = Mode(linker="vm", optimizer="fast_run", name="FAST_RUN+vm")
    except ImportError:
        vm_fast_run = None
    for label, mode in (("FAST_RUN", "FAST_RUN"), ("FAST_RUN rewrites, vm linker", vm_fast_run),
                        ("FAST_COMPILE", "FAST_COMPILE")):
        if mode is None:
            continue
        ours = _ours(mode)
        if ours is None:
            report.note("opgraph.tensor, function() or opgraph.gradient not importable")
            return
        try:
            row = _measure(*ours, args)
        except Exception as exc:
            first = str(exc).splitlines()[0] if str(exc) else ""
            report.note(f"opgraph {label} failed: {type(exc).__name__}: {first}")
            continue
        ratios = {
            "build_ratio": row["grad_build_s"] / ref["grad_build_s"],
            "build+compile_ratio": (row["grad_build_s"] + row["compile_warm_s"])
            / (ref["grad_build_s"] + ref["compile_warm_s"]),
            "call_ratio": row["call_ms"] / ref["call_ms"],
            "call_vs_numpy": row["call_ms"] / numpy_ms,
        }
        report.row(impl=f"opgraph {label}", **_rounded(row), **_rounded(ratios))
    src = "measured in this run" if peer_row else "PyTensor 3.0.7 reference figures from the issue"
    report.note(f"ratios are opgraph / PyTensor ({src}); targets: build+compile <= 0.3, "
                "call <= 0.6 in FAST_RUN")


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (round(v, 5) if isinstance(v, float) else v) for k, v in row.items()}


if __name__ == "__main__":
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from report import run_standalone

    run_standalone(run)
