"""The C linker (opgraph-c) against NumPy, PyTensor's C VM (if importable) and the memory floor.

Targets (issue 8): exp(x)*y + tanh(z) on 1e7 float64 single-threaded <= 0.5x
NumPy, two threads <= 2.5x the memory floor (9.4 ms), 1e3 elements <= 1.0x
NumPy; x + 1 on a scalar <= 0.5x PyTensor (3.0 us) and < 0.5 us with
trust_input; a 100-node elemwise chain compiles cold <= 0.5x PyTensor
(0.55 s) and warm <= 0.2x (0.11 s); a graph differing only in a constant is a
cache hit.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

FLOOR_1E7_MS = 9.4  # issue 8: 4 arrays x 8 B x 1e7 at ~30 GB/s (measured by the author)
PYTENSOR_REF = {"x+1": 3.0e-6, "x+1 trust": 0.87e-6, "cold": 0.55, "warm": 0.11, "1e7": 0.196}


def _best(fn: Callable[[], Any], repeat: int = 7, number: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def _pytensor() -> Any:
    try:
        import pytensor  # noqa: F401
        import pytensor.tensor as ptt

        return ptt
    except Exception:
        return None


def _c_mode(openmp: bool) -> Any:
    from opgraph_c.linker import CLinker

    from opgraph.compile.mode import Mode, get_mode

    base = get_mode("FAST_RUN")
    return Mode(linker=CLinker(openmp=openmp), optimizer=base.optimizer, name="C")


def _elemwise(report: Any) -> None:
    import opgraph.tensor as pt
    from opgraph.compile.function import function

    report.section("exp(x)*y + tanh(z), float64")
    x, y, z = pt.dvector("x"), pt.dvector("y"), pt.dvector("z")
    expr = pt.exp(x) * y + pt.tanh(z)
    f1 = function([x, y, z], expr, mode=_c_mode(False))
    f2 = function([x, y, z], expr, mode=_c_mode(True))
    from opgraph.compile.io import Out

    fb = function([x, y, z], Out(expr, borrow=True), mode=_c_mode(False))
    ptt = _pytensor()
    pf = None
    if ptt is not None:
        import pytensor

        px, py_, pz = ptt.dvector(), ptt.dvector(), ptt.dvector()
        pf = pytensor.function([px, py_, pz], ptt.exp(px) * py_ + ptt.tanh(pz),
                               mode=pytensor.compile.mode.Mode(linker="cvm"))
    rng = np.random.default_rng(0)
    for n, number in ((10**7, 1), (10**3, 2000)):
        a, b, c = (rng.standard_normal(n) for _ in range(3))
        t_np = _best(lambda a=a, b=b, c=c: np.exp(a) * b + np.tanh(c), number=number)
        t1 = _best(lambda a=a, b=b, c=c: f1(a, b, c), number=number)
        t2 = _best(lambda a=a, b=b, c=c: f2(a, b, c), number=number)
        tb = _best(lambda a=a, b=b, c=c: fb(a, b, c), number=number)
        row = {"n": f"{n:.0e}", "numpy ms": t_np * 1e3, "c 1 thread ms": t1 * 1e3,
               "c 1t / numpy": t1 / t_np, "c borrow ms": tb * 1e3,
               "borrow / numpy": tb / t_np, "c 2 threads ms": t2 * 1e3}
        if n == 10**7:
            row["c 2t / floor"] = t2 * 1e3 / FLOOR_1E7_MS
            row["floor ms"] = FLOOR_1E7_MS
        if pf is not None:
            row["pytensor cvm ms"] = _best(lambda a=a, b=b, c=c: pf(a, b, c),
                                           number=number) * 1e3
        report.row(**row)
        assert np.allclose(f1(a, b, c), np.exp(a) * b + np.tanh(c))
    report.note("targets: 1e7 single thread <= 0.5x NumPy; 2 threads <= 2.5x floor; "
                "1e3 <= 1.0x NumPy. Threads (OpenMP) only start at >= 100k elements. "
                "'c borrow' returns Out(borrow=True): the output buffer is rewritten in "
                "place; otherwise large outputs come from the buffer pool (no page faults "
                "once the caller has dropped an earlier result).")


def _scalar_call(report: Any) -> None:
    import opgraph.tensor as pt
    from opgraph.compile.function import function

    report.section("x + 1 on a float64 scalar, per call")
    x = pt.dscalar("x")
    f = function([x], x + 1, mode=_c_mode(False))
    v = np.array(2.0)
    t = _best(lambda: f(v), number=20000)
    f.trust_input = True
    tt = _best(lambda: f(v), number=20000)
    report.row(case="checked", **{"us": t * 1e6, "vs pytensor 3.0 us": t / PYTENSOR_REF["x+1"]})
    report.row(case="trust_input", **{"us": tt * 1e6,
                                      "vs pytensor 3.0 us": tt / PYTENSOR_REF["x+1"]})
    report.note("targets: <= 0.5x PyTensor's 3.0 us; < 0.5 us with trust_input.")


_CHAIN = r"""
import sys, time
t0 = time.perf_counter()
import numpy as np
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph_c.linker import CLinker
x = pt.dvector("x")
out = x
for i in range(100):
    out = pt.tanh(out) * CONST + 0.5 if i % 2 else pt.exp(-out * out) + 1.0
mode = Mode(linker=CLinker(openmp=False), optimizer=get_mode("FAST_RUN").optimizer)
t1 = time.perf_counter()
f = function([x], out, mode=mode)
t2 = time.perf_counter()
f(np.ones(3))
from opgraph_c.cache import default_cache
c = default_cache()
builds, hits = c.stats["builds"], c.stats["disk_hits"]
c.forget_loaded()
t3 = time.perf_counter()
function([x], out, mode=mode)  # again in this process: plugins and rewrite database loaded
t4 = time.perf_counter()
print(t2 - t1, builds, hits, t4 - t3)
"""


def _compile(report: Any) -> None:
    report.section("compile a 100-node elemwise chain (fresh process each)")
    with tempfile.TemporaryDirectory(prefix="opgraph-bench-cache-") as tmp:
        env = dict(os.environ, OPGRAPH_FLAGS=f"compiledir={tmp}")

        def once(const: str) -> tuple[float, int, int, float]:
            code = _CHAIN.replace("CONST", const)
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, check=True)
            t, builds, hits, again = out.stdout.split()
            return float(t), int(builds), int(hits), float(again)

        cold = once("0.25")
        warm = min((once("0.25") for _ in range(3)), key=lambda r: r[0])
        other = once("0.75")
    report.row(case="cold (empty cache)", seconds=cold[0], builds=cold[1],
               **{"vs pytensor 0.55 s": cold[0] / PYTENSOR_REF["cold"]})
    report.row(case="warm (cached), first function() of the process", seconds=warm[0],
               builds=warm[1], **{"vs pytensor 0.11 s": warm[0] / PYTENSOR_REF["warm"]})
    report.row(case="warm, plugins already loaded (module from disk)", seconds=warm[3],
               builds=0, **{"vs pytensor 0.11 s": warm[3] / PYTENSOR_REF["warm"]})
    report.row(case="other constant value", seconds=other[0], builds=other[1],
               **{"cache hit": other[1] == 0})
    report.note("times are function() only (graph rewriting + C generation + compile or "
                "cache load); the first function() of a process also loads the plugins and "
                "builds the rewrite database (opgraph-special imports scipy.special there). "
                "Warm time is ~90% graph rewriting; the C linker's part (codegen, key hash, "
                "module load) is 2-6 ms. Targets cold <= 0.5x, warm <= 0.2x.")


def run(report: Any) -> None:
    try:
        from opgraph_c.compiler import probe
    except ImportError:
        report.section("C linker")
        report.note("opgraph-c is not installed: skipped")
        return
    reason = probe()
    if reason is not None:
        report.section("C linker")
        report.note(f"no working C compiler: {reason}")
        return
    _elemwise(report)
    _scalar_call(report)
    _compile(report)


if __name__ == "__main__":
    from report import run_standalone

    run_standalone(run)
