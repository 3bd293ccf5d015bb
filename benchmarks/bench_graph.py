"""Graph-layer benchmark: build, FunctionGraph, toposort, clone, replace_all.

Random DAGs of cheap elemwise-like toy ops at 10k and 100k Apply nodes; each
operation's 10k -> 100k growth ratio shows whether it stays linear (10x nodes
should cost at most ~12x time). PyTensor runs the same graph side by side when
it is importable.
"""

from __future__ import annotations

import gc
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "graph"))

SIZES = (10_000, 100_000)
N_INPUTS = 100
WINDOW = 1000
N_REPLACE = 1000
TARGETS_100K = {"fg+toposort": 1.0, "clone": 1.0, "replace_all(1k)": 0.1}


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        out = fn()
        return time.perf_counter() - t0, out
    finally:
        gc.enable()


def _plan(n: int, seed: int = 0) -> list[tuple[int, int, int]]:
    """(op kind, input a, input b) per node, over variable indices; shared by both sides."""
    rng = random.Random(seed)
    plan = []
    for k in range(n):
        nvars = N_INPUTS + k
        lo = max(0, nvars - WINDOW)
        plan.append((rng.randrange(3), rng.randrange(lo, nvars), rng.randrange(lo, nvars)))
    return plan


def _sinks(plan: list[tuple[int, int, int]]) -> list[int]:
    used = set()
    for kind, a, b in plan:
        used.add(a)
        if kind != 2:
            used.add(b)
    return [N_INPUTS + k for k in range(len(plan)) if N_INPUTS + k not in used]


def _build_opgraph(plan: list[tuple[int, int, int]]) -> tuple[list, list]:
    from toys import add, mul, neg, tfloat

    vs = [tfloat(f"x{i}") for i in range(N_INPUTS)]
    ops = (add, mul)
    for kind, a, b in plan:
        vs.append(neg(vs[a]) if kind == 2 else ops[kind](vs[a], vs[b]))
    return vs[:N_INPUTS], [vs[i] for i in _sinks(plan)]


def _bench_opgraph(report: Any, n: int) -> dict[str, float]:
    from toys import neg

    from opgraph.graph.fg import FunctionGraph

    plan = _plan(n)
    t_build, (ins, outs) = _timed(lambda: _build_opgraph(plan))
    t_fg, fg = _timed(lambda: FunctionGraph(ins, outs, clone=False))
    t_fg_clone, _ = _timed(lambda: FunctionGraph(ins, outs))
    t_topo, order = _timed(fg.toposort)
    fg._topo_cache = None  # measure a cold toposort too
    t_topo_cold, _ = _timed(fg.toposort)
    assert len(order) == n
    t_clone, _ = _timed(lambda: fg.clone_get_equiv(check_integrity=False))
    t_clone_chk, _ = _timed(fg.clone)
    t_check, _ = _timed(fg.check_integrity)
    rng = random.Random(1)
    outset = set(fg.outputs)
    cands = [v for v in fg.variables if v.owner is not None and v not in outset]
    cands.sort(key=lambda v: v._uid)
    victims = rng.sample(cands, N_REPLACE)
    pairs = [(v, neg(fg.inputs[rng.randrange(N_INPUTS)])) for v in victims]

    def do_replace() -> None:
        for v, nv in pairs:
            if v in fg.variables:
                fg.replace(v, nv, reason="bench")

    t_repl, _ = _timed(do_replace)
    fg.check_integrity()
    return {
        "build": t_build,
        "fg (clone=False)": t_fg,
        "fg (clone=True)": t_fg_clone,
        "toposort (cached)": t_topo,
        "toposort (cold)": t_topo_cold,
        "fg+toposort": t_fg + t_topo_cold,
        "clone": t_clone_chk,
        "clone (no check)": t_clone,
        "check_integrity": t_check,
        "replace_all(1k)": t_repl,
    }


def _bench_pytensor(n: int) -> dict[str, float] | None:
    try:
        import pytensor.scalar as ps
        from pytensor.graph.fg import FunctionGraph as PFG
    except Exception:
        return None
    plan = _plan(n)

    def build() -> tuple[list, list]:
        vs = [ps.float64(f"x{i}") for i in range(N_INPUTS)]
        for kind, a, b in plan:
            if kind == 2:
                vs.append(ps.neg(vs[a]))
            else:
                vs.append((ps.add, ps.mul)[kind](vs[a], vs[b]))
        return vs[:N_INPUTS], [vs[i] for i in _sinks(plan)]

    t_build, (ins, outs) = _timed(build)
    t_fg, fg = _timed(lambda: PFG(ins, outs, clone=False))
    t_topo, _ = _timed(fg.toposort)
    t_clone, _ = _timed(fg.clone)
    rng = random.Random(1)
    outset = set(fg.outputs)
    cands = sorted(
        (v for v in fg.variables if v.owner is not None and v not in outset), key=id
    )
    victims = rng.sample(cands, N_REPLACE)
    pairs = [(v, ps.neg(fg.inputs[rng.randrange(N_INPUTS)])) for v in victims]

    def do_replace() -> None:
        for v, nv in pairs:
            if v in fg.variables:
                fg.replace(v, nv, reason="bench")

    t_repl, _ = _timed(do_replace)
    return {
        "build": t_build,
        "fg (clone=False)": t_fg,
        "toposort (cold)": t_topo,
        "fg+toposort": t_fg + t_topo,
        "clone": t_clone,
        "replace_all(1k)": t_repl,
    }


def _import_time() -> float:
    code = "import time; t = time.perf_counter(); import opgraph; print(time.perf_counter() - t)"
    runs = [
        float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                             text=True).stdout)
        for _ in range(5)
    ]
    return min(runs)


def run(report: Any) -> None:
    report.section("graph: random elemwise DAGs (seconds)")
    results: dict[int, dict[str, float]] = {}
    peers: dict[int, dict[str, float] | None] = {}
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for n in SIZES:
        # best of a few runs per size: the machine is shared, single runs are noisy
        runs = [_bench_opgraph(report, n) for _ in range(3 if n < 50_000 else 2)]
        results[n] = {k: min(r[k] for r in runs) for k in runs[0]}
        peers[n] = _bench_pytensor(n)
    small, big = SIZES
    for op in results[big]:
        row: dict[str, Any] = {"operation": op}
        for n in SIZES:
            row[f"{n // 1000}k"] = results[n][op]
            report.series("graph operations", op, n, results[n][op])
        row["growth"] = results[big][op] / max(results[small][op], 1e-9)
        target = TARGETS_100K.get(op)
        row["target@100k"] = target
        row["ok"] = "" if target is None else ("yes" if results[big][op] < target else "NO")
        peer = peers[big]
        row["pytensor@100k"] = None if peer is None else peer.get(op)
        report.row(**row)
    if peers[big] is None:
        report.note("PyTensor not importable: peer column empty")
    report.note(
        "fg+toposort = FunctionGraph(clone=False) + a cold toposort; clone = "
        "fg.clone() with check_integrity; growth = time(100k) / time(10k), linear is ~10"
    )
    report.section("import time")
    report.row(what="import opgraph (in a fresh interpreter, best of 5)", seconds=_import_time())


if __name__ == "__main__":
    from report import run_standalone

    run_standalone(run)
