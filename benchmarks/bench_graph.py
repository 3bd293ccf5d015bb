"""Graph-layer benchmark (issue 2): build, FunctionGraph, toposort, clone, replace x1k.

Random DAGs of cheap scalar ops (add, mul, neg on float64 scalars: the same plan
on both sides, built from ``opgraph.scalar`` and ``pytensor.scalar``) at 10k and
100k Apply nodes.  Each library runs in its own fresh interpreter (the peer under
a time and memory guard); ratios are opgraph / PyTensor measured in this run, and
each operation's 10k -> 100k growth is computed from the measured times (linear
is 10x; the issue allows about 12x).  Also the time of ``python -c "import
opgraph"`` with every plugin installed (target < 150 ms).
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

import benchutil  # noqa: E402

N_INPUTS = 100
WINDOW = 1000
N_REPLACE = 1000
TARGETS_100K = {"fg+toposort": 1.0, "clone": 1.0, "replace x1k": 0.1}
#: PyTensor 3.0.7 at 100k nodes as quoted in issue 2 (its build used its own graph)
ISSUE_REF_100K = {"build": 9.8, "fg (clone=False)": 23.7, "clone": 22.9, "replace x1k": 1.4}
IMPORT_TARGET_MS = 150.0
PEER_TIMEOUT_S = 300.0


def sizes() -> tuple[int, int]:
    return benchutil.pick((10_000, 100_000), (1_000, 10_000))


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


def _one_run(which: str, n: int) -> dict[str, float]:
    """Every operation once on a fresh graph of ``n`` nodes, in this process."""
    if which == "opgraph":
        import opgraph.scalar as ps
        from opgraph.graph.fg import FunctionGraph
    else:
        import pytensor.scalar as ps
        from pytensor.graph.fg import FunctionGraph

    plan = _plan(n)

    def build() -> tuple[list, list]:
        vs = [ps.float64(f"x{i}") for i in range(N_INPUTS)]
        binary = (ps.add, ps.mul)
        for kind, a, b in plan:
            vs.append(ps.neg(vs[a]) if kind == 2 else binary[kind](vs[a], vs[b]))
        return vs[:N_INPUTS], [vs[i] for i in _sinks(plan)]

    t_build, (ins, outs) = _timed(build)
    t_fg, fg = _timed(lambda: FunctionGraph(ins, outs, clone=False))
    t_fg_clone, _ = _timed(lambda: FunctionGraph(ins, outs))
    if hasattr(fg, "_topo_cache"):
        fg._topo_cache = None  # opgraph caches the order: time a cold one
    t_topo, order = _timed(fg.toposort)
    assert len(order) == n, (len(order), n)
    t_equiv, _ = _timed(lambda: fg.clone_get_equiv(check_integrity=False))
    t_clone, _ = _timed(fg.clone)
    t_check, _ = _timed(fg.check_integrity)
    rng = random.Random(1)
    outset = set(fg.outputs)
    cands = [out for node in order for out in node.outputs if out not in outset]
    victims = rng.sample(cands, min(N_REPLACE, len(cands)))
    pairs = [(v, ps.neg(fg.inputs[rng.randrange(N_INPUTS)])) for v in victims]

    def replace_each() -> None:
        # a victim may already be pruned by an earlier replacement: both sides skip it
        for v, nv in pairs:
            if v in fg.variables:
                fg.replace(v, nv, reason="bench")

    t_repl, _ = _timed(replace_each)
    fg.check_integrity()
    return {
        "build": t_build,
        "fg (clone=False)": t_fg,
        "fg (clone=True)": t_fg_clone,
        "toposort (cold)": t_topo,
        "fg+toposort": t_fg + t_topo,
        "clone_get_equiv (no check)": t_equiv,
        "clone": t_clone,
        "check_integrity": t_check,
        "replace x1k": t_repl,
    }


def _child(which: str, n: int, repeats: int) -> None:
    runs = [_one_run(which, n) for _ in range(repeats)]
    benchutil.emit({k: min(r[k] for r in runs) for k in runs[0]} | {"repeats": repeats})


def _measure(which: str, n: int, repeats: int, timeout: float | None) -> dict[str, Any]:
    return benchutil.run_json([str(Path(__file__).resolve()), "--child", which, str(n),
                               str(repeats)], timeout=timeout)


def _command_ms(code: str, runs: int = 7) -> float:
    """Best wall time of ``python -c code`` in a fresh interpreter, in ms."""
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
        best = min(best, time.perf_counter() - t0)
    return 1e3 * best


def _import_times(report: Any) -> None:
    report.section("graph: import time (fresh interpreter, best of 7, ms)")
    from importlib.metadata import entry_points

    plugins = sorted(ep.name for ep in entry_points(group="opgraph.plugins"))
    bare = _command_ms("pass")
    ours = _command_ms("import opgraph")
    loaded = _command_ms("import opgraph.plugins.manager as m; m.get_plugin_manager()")
    report.row(command='python -c "import opgraph"', wall_ms=ours,
               minus_bare_python_ms=ours - bare, target_ms=IMPORT_TARGET_MS,
               ok="yes" if ours < IMPORT_TARGET_MS else "NO")
    report.row(command="... + get_plugin_manager() (every plugin's entry point loaded)",
               wall_ms=loaded, minus_bare_python_ms=loaded - bare)
    report.row(command='python -c "import opgraph.tensor"',
               wall_ms=_command_ms("import opgraph.tensor"))
    report.row(command='python -c "pass" (bare interpreter)', wall_ms=bare)
    if benchutil.pytensor_version() is not None:
        report.row(command='python -c "import pytensor" (peer)',
                   wall_ms=_command_ms("import pytensor", runs=3))
    report.note(f"plugins installed: {', '.join(plugins) or 'none'}; target: the whole "
                f"`import opgraph` command under {IMPORT_TARGET_MS:.0f} ms")


def run(report: Any) -> None:
    small, big = sizes()
    have_peer = benchutil.pytensor_version() is not None
    jobs = [("opgraph", small, 3), ("opgraph", big, 2)]
    if have_peer:
        jobs += [("pytensor", small, 3), ("pytensor", big, 1)]
    results: dict[tuple[str, int], dict[str, Any]] = {}
    for which, n, repeats in report.progress(jobs, desc="graph: build/fg/clone/replace"):
        timeout = PEER_TIMEOUT_S if which == "pytensor" else None
        results[(which, n)] = _measure(which, n, repeats, timeout)

    report.section(f"graph: random scalar DAGs, {small // 1000}k and {big // 1000}k Apply "
                   "nodes (seconds)")
    ours_big, ours_small = results[("opgraph", big)], results[("opgraph", small)]
    peer_big = results.get(("pytensor", big), {})
    peer_small = results.get(("pytensor", small), {})
    for key, res in results.items():
        if "error" in res:
            report.note(f"{key[0]} at {key[1]} nodes: {res['error']}")
    ops = [k for k in ours_big if k not in ("repeats", "wall_s", "peak_rss_mb", "error")]
    for op in ops:
        row: dict[str, Any] = {"operation": op}
        row[f"ours {small // 1000}k"] = ours_small.get(op)
        row[f"ours {big // 1000}k"] = ours_big.get(op)
        row["ours growth"] = benchutil.ratio(ours_big.get(op), ours_small.get(op))
        if have_peer:
            row[f"pytensor {small // 1000}k"] = peer_small.get(op)
            row[f"pytensor {big // 1000}k"] = peer_big.get(op)
            row["pytensor growth"] = benchutil.ratio(peer_big.get(op), peer_small.get(op))
            row[f"ratio@{big // 1000}k"] = benchutil.ratio(ours_big.get(op), peer_big.get(op))
        growth = row["ours growth"]
        row["linear (<=12x)"] = "" if growth is None else ("yes" if growth <= 12 else "NO")
        target = TARGETS_100K.get(op)
        if target is not None and not benchutil.quick():
            row["target@100k"] = target
            row["ok"] = "yes" if (ours_big.get(op) or 1e9) < target else "NO"
        row["issue ref pytensor@100k"] = ISSUE_REF_100K.get(op)
        report.row(**row)
        for which, res_s, res_b in (("opgraph", ours_small, ours_big),
                                    ("pytensor", peer_small, peer_big)):
            for n, res in ((small, res_s), (big, res_b)):
                if isinstance(res.get(op), float) and op in ("fg+toposort", "clone"):
                    report.series("graph operations vs size", f"{which} {op}", n, res[op],
                                  xlabel="Apply nodes", ylabel="seconds")
    report.note("growth = time(big) / time(small), measured; 10x nodes -> ~10x time is linear. "
                "fg+toposort = FunctionGraph(clone=False) + a cold toposort; clone = "
                "fg.clone() (with check_integrity); replace x1k = 1000 fg.replace calls "
                "(victims already pruned by earlier replacements skipped, same on both sides)")
    report.note(f"best of {ours_big.get('repeats', '?')} runs for opgraph at {big} nodes, "
                f"{peer_big.get('repeats', '?')} for PyTensor (each library in a fresh "
                f"interpreter; PyTensor capped at {PEER_TIMEOUT_S:.0f} s). The issue's "
                "reference column is PyTensor 3.0.7 as quoted (its graph-building code may "
                "differ from this plan); ratios use only this run's measurements")
    if not have_peer:
        report.note(benchutil.peer_missing_note())
    _import_times(report)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        from report import run_standalone

        run_standalone(run)
