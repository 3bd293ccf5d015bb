"""Gradient benchmark: a 2-layer MLP loss, beside PyTensor and hand-written NumPy.

tanh hidden layer, 256x256 weights, batch 256, squared loss.  Measures the
time to build the gradient graph, to compile it (warm: an equal graph was
compiled once before) and per call; BLAS is pinned to one thread on every
side (threaded BLAS swings 4-17x between runs on 2 shared cores).

W4 (issue 20): the per-call comparison with every peer (JAX
``jit(value_and_grad)``, PyTensor NUMBA and C, hand-written NumPy and the
floor, the five matrix products alone) runs in a child process pinned to one
CPU, because XLA overlaps independent ops on a second core whatever its
thread flags say; the peers alternate round by round so load drifts hit
them alike.

Run standalone: ``python benchmarks/bench_gradient.py``.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")

import math  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchutil  # noqa: E402

N = benchutil.pick(256, 64)
#: PyTensor 3.0.7 figures from the issue (used when PyTensor is not importable).
PYTENSOR_REFERENCE = {"grad_build_s": 0.006, "compile_warm_s": 0.24, "compile_cold_s": 8.8,
                      "call_ms": 5.8}
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


def _gemm_floor(args: list[np.ndarray]) -> Callable[..., Any]:
    """The five matrix products of the forward and backward pass alone, same layouts."""
    x, _t, w1, _b1, w2, _b2 = args
    h, g = np.tanh(x @ w1), np.tanh(x @ w2)
    outs = [np.empty((N, N)) for _ in range(5)]

    def products(*_: Any) -> None:
        np.matmul(x, w1, out=outs[0])
        np.matmul(h, w2, out=outs[1])
        np.matmul(h.T, g, out=outs[2])
        np.matmul(g, w2.T, out=outs[3])
        np.matmul(x.T, g, out=outs[4])

    return products


def _jax_peer() -> Callable[..., Any] | None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def loss(params: Any, x: Any, t: Any) -> Any:
        w1, b1, w2, b2 = params
        h = jnp.tanh(x @ w1 + b1)
        return jnp.mean((h @ w2 + b2 - t) ** 2)

    value_and_grad = jax.jit(jax.value_and_grad(loss))

    def call(x: Any, t: Any, w1: Any, b1: Any, w2: Any, b2: Any) -> list[Any]:
        value, grads = value_and_grad((w1, b1, w2, b2), x, t)
        jax.block_until_ready(grads)
        return [value, grads[0], grads[1], grads[2], grads[3]]

    return call


def _gflops(fn: Callable[[], Any], flop: float) -> float:
    fn()
    best = min(_timed(fn) for _ in range(benchutil.pick(200, 10)))
    return flop / best / 1e9


def _timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _gemm_rates() -> dict[str, float]:
    """Single-thread GFLOP/s of one N x N x N product per library and dtype."""
    rates = {}
    rng = np.random.default_rng(1)
    flop = 2.0 * N**3
    for dt in ("float64", "float32"):
        a, b = rng.normal(size=(N, N)).astype(dt), rng.normal(size=(N, N)).astype(dt)
        c = np.empty((N, N), dt)
        rates[f"numpy {dt}"] = _gflops(lambda a=a, b=b, c=c: np.matmul(a, b, out=c), flop)
        try:
            import jax
        except ImportError:
            continue
        mm = jax.jit(lambda p, q: p @ q)
        ja, jb = jax.device_put(a), jax.device_put(b)
        rates[f"jax {dt}"] = _gflops(lambda mm=mm, ja=ja, jb=jb: mm(ja, jb).block_until_ready(),
                                     flop)
    return rates


def _w4_child() -> None:
    """Per-call times of every W4 peer, pinned to one CPU, alternating (run by _w4_calls)."""
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[-1]})
    args = _data()
    want = numpy_backprop(*args)
    peers: dict[str, Callable[..., Any]] = {"numpy backprop (hand-written)": numpy_backprop,
                                            "GEMM floor: the 5 products alone (NumPy's BLAS)":
                                            _gemm_floor(args)}
    ours = _ours("FAST_RUN")
    if ours is not None:
        inputs, outputs, _ = _build(ours[0], ours[1])
        peers["opgraph FAST_RUN"] = ours[2](inputs, outputs)
    jax_call = _jax_peer()
    if jax_call is not None:
        peers["JAX jit(value_and_grad)"] = jax_call
    for mode_name, label in (("NUMBA", "pytensor NUMBA"), ("FAST_RUN", "pytensor C (cvm)")):
        peer = _peer(mode_name)
        if peer is None:
            break
        try:
            inputs, outputs, _ = _build(peer[0], peer[1])
            peers[label] = peer[2](inputs, outputs)
        except Exception as exc:  # a peer that cannot compile is reported, not fatal
            print(f"{label}: {type(exc).__name__}: {exc}", file=sys.stderr)
    errors = {}
    for name, fn in peers.items():
        got = fn(*args)
        if got is not None:
            errors[name] = max(float(np.max(np.abs(np.asarray(g) - w)))
                               for g, w in zip(got, want, strict=True))
    rounds: dict[str, list[float]] = {name: [] for name in peers}
    for _ in range(benchutil.pick(15, 2)):
        for name, fn in peers.items():
            rounds[name].append(min(_timed(lambda fn=fn: fn(*args))
                                    for _ in range(benchutil.pick(20, 3))))
    benchutil.emit({"cpu": cpus[-1], "rounds": rounds, "errors": errors,
                    "gemm_gflops": _gemm_rates()})


def _w4_calls(report: Any) -> None:
    res = benchutil.run_json([os.path.abspath(__file__), "--w4"])
    report.section(f"W4: MLP value and gradient per call ({N}x{N}, batch {N}, float64), one "
                   "CPU, every peer in one process (ms)")
    if "error" in res:
        report.note(f"W4 child failed: {res['error']}")
        return
    best = {name: min(v) for name, v in res["rounds"].items()}
    jax_ms = best.get("JAX jit(value_and_grad)")
    floor_ms = best.get("GEMM floor: the 5 products alone (NumPy's BLAS)")
    for name, times in res["rounds"].items():
        report.row(impl=name, best_ms=1e3 * best[name],
                   median_round_ms=1e3 * float(np.median(times)),
                   vs_jax=benchutil.ratio(best[name], jax_ms),
                   vs_gemm_floor=benchutil.ratio(best[name], floor_ms),
                   max_abs_err=res["errors"].get(name))
    rates = ", ".join(f"{k} {v:.1f}" for k, v in res["gemm_gflops"].items())
    report.note(f"one {N}x{N}x{N} product, single thread, GFLOP/s: {rates}; the floor row is "
                f"5 such products ({5 * 2 * N**3 / 1e6:.0f} MFLOP) with the operands "
                "transposed as the backward pass has them")
    report.note("best_ms: best over rounds of the best of 20 calls; each round runs every peer "
                f"once, in the order listed; pinned to CPU {res['cpu']} "
                "(os.sched_setaffinity), BLAS and XLA single-threaded. Target (issue 20): "
                "opgraph FAST_RUN vs_jax <= 0.8")


def _per_call(fn: Callable[..., Any], args: list[np.ndarray], repeats: int = 30) -> float:
    repeats = benchutil.pick(repeats, 5)
    fn(*args)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _measure(lib: Any, grad: Any, compile_fn: Any, args: list[np.ndarray]) -> dict[str, Any]:
    builds = []
    for _ in range(benchutil.pick(5, 2)):
        inputs, outputs, build = _build(lib, grad)
        builds.append(build)
    compile_fn(inputs, outputs)  # warm caches
    compiles = []
    fn = None
    for _ in range(benchutil.pick(3, 1)):
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


def _our_mode(label: str) -> Any:
    if label == "FAST_RUN rewrites, vm linker":
        from opgraph.compile.mode import Mode

        return Mode(linker="vm", optimizer="fast_run", name="FAST_RUN+vm")
    return label


def _peer(mode_name: str = "FAST_RUN") -> tuple[Any, Any, Any] | None:
    try:
        import pytensor
        import pytensor.tensor as ptt
    except ImportError:
        return None

    def compile_fn(i: Any, o: Any) -> Any:
        if mode_name == "FAST_RUN":
            mode = pytensor.compile.mode.Mode(linker="cvm", optimizer="fast_run")
        else:
            mode = pytensor.compile.mode.get_mode(mode_name)
        return pytensor.function(list(i), o, mode=mode)

    return ptt, pytensor.grad, compile_fn


def _cold_child(which: str, mode_label: str) -> None:
    """First compile in a fresh process with an empty compile cache (run by _cold)."""
    lib = _ours(_our_mode(mode_label)) if which == "opgraph" else _peer(mode_label)
    assert lib is not None, which
    inputs, outputs, _ = _build(lib[0], lib[1])
    t0 = time.perf_counter()
    lib[2](inputs, outputs)
    benchutil.emit({"compile_cold_s": time.perf_counter() - t0})


def _cold(which: str, mode_label: str) -> float | str:
    with tempfile.TemporaryDirectory(prefix="bench_grad_cold_") as tmp:
        res = benchutil.run_json([os.path.abspath(__file__), "--cold", which, mode_label],
                                 env=benchutil.fresh_cache_env(tmp),
                                 timeout=benchutil.PEER_TIMEOUT_S if which == "pytensor"
                                 else None)
    return res.get("compile_cold_s", res.get("error", "failed"))


#: (our mode label, the peer's like-for-like mode) in the order reported
OUR_MODES = (("FAST_RUN", "FAST_RUN"), ("FAST_RUN rewrites, vm linker", None),
             ("FAST_COMPILE", "FAST_COMPILE"))


def run(report: Any) -> None:
    _w4_calls(report)
    args = _data()
    report.section(f"2-layer MLP gradient ({N}x{N} weights, batch {N}, tanh, squared loss), "
                   "1 BLAS thread")
    numpy_ms = 1e3 * _per_call(numpy_backprop, args)
    report.row(impl="numpy backprop (hand-written)", call_ms=numpy_ms)
    peers: dict[str, dict[str, Any]] = {}
    have_peer = benchutil.pytensor_version() is not None
    if have_peer:
        for mode_name in report.progress(("FAST_RUN", "FAST_COMPILE"), desc="pytensor modes"):
            peer = _peer(mode_name)
            try:
                row = _measure(*peer, args)
            except Exception as exc:
                report.note(f"PyTensor {mode_name} failed: {type(exc).__name__}: {exc}")
                continue
            row["compile_cold_s"] = _cold("pytensor", mode_name)
            row["call_vs_numpy"] = row["call_ms"] / numpy_ms
            peers[mode_name] = row
            label = "cvm (C-backed FAST_RUN)" if mode_name == "FAST_RUN" else mode_name
            report.row(impl=f"pytensor {label}", **row)
    for label, peer_mode in report.progress(OUR_MODES, desc="opgraph modes"):
        ours = _ours(_our_mode(label))
        if ours is None:
            report.note("opgraph.tensor, function() or opgraph.gradient not importable")
            return
        try:
            row = _measure(*ours, args)
        except Exception as exc:
            first = str(exc).splitlines()[0] if str(exc) else ""
            report.note(f"opgraph {label} failed: {type(exc).__name__}: {first}")
            continue
        row["compile_cold_s"] = _cold("opgraph", label)
        row["call_vs_numpy"] = row["call_ms"] / numpy_ms
        ref = peers.get(peer_mode or "FAST_RUN")
        if ref is not None:
            row["vs"] = "pytensor cvm" if (peer_mode or "FAST_RUN") == "FAST_RUN" \
                else f"pytensor {peer_mode}"
            row["build_ratio"] = benchutil.ratio(row["grad_build_s"], ref["grad_build_s"])
            row["build+compile_warm_ratio"] = benchutil.ratio(
                row["grad_build_s"] + row["compile_warm_s"],
                ref["grad_build_s"] + ref["compile_warm_s"])
            row["compile_cold_ratio"] = benchutil.ratio(row["compile_cold_s"],
                                                        ref["compile_cold_s"])
            row["call_ratio"] = benchutil.ratio(row["call_ms"], ref["call_ms"])
        report.row(impl=f"opgraph {label}", **row)
    report.row(impl="issue ref: pytensor 3.0.7 cvm", **PYTENSOR_REFERENCE)
    report.row(impl="issue ref: numpy backprop", call_ms=NUMPY_REFERENCE_MS)
    report.note("ratios are opgraph / PyTensor measured in this run, like for like: FAST_RUN vs "
                "PyTensor's C-backed Mode(linker='cvm', optimizer='fast_run'), FAST_COMPILE vs "
                "its FAST_COMPILE; the 'FAST_RUN rewrites, vm linker' row is compared with "
                "cvm. Targets (FAST_RUN): build+compile_warm_ratio <= 0.3, call_ratio <= 0.6 "
                "(i.e. faster than hand-written NumPy)")
    report.note("compile_warm_s: best of 3 after an equal graph was compiled in the same "
                "process; compile_cold_s: the first compile in a fresh process with an empty "
                "compile cache (OPGRAPH_FLAGS / PYTENSOR_FLAGS compiledir=<new temp dir>). "
                "'issue ref' rows are the figures quoted in issue 5 (context only)")
    if have_peer:
        import pytensor

        flags = pytensor.config.blas__ldflags
        report.note(f"PyTensor blas__ldflags = {flags!r}" + (
            " (no BLAS linked: its C Dot/Gemm go through NumPy's C-API, as in a plain pip "
            "install; the issue's figures come from such an install too)" if not flags else ""))
    else:
        report.note(benchutil.peer_missing_note())


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--cold":
        _cold_child(sys.argv[2], sys.argv[3])
    elif len(sys.argv) > 1 and sys.argv[1] == "--w4":
        _w4_child()
    else:
        from report import run_standalone

        run_standalone(run)
