"""How the demo prints: compact tables by default, the graphs with ``--verbose``."""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Sequence
from typing import TextIO

from opgraph.compile.function import function
from opgraph.plugins import plugin_report
from opgraph.printing import dprint
from opgraph_demo.examples import Example, Skip
from opgraph_demo.measure import ModeRun, first_line

__all__ = [
    "fmt_time",
    "print_graphs",
    "print_plugins",
    "print_skips",
    "print_times",
    "print_values",
    "table",
]


def table(rows: list[Sequence[str]], out: TextIO) -> None:
    """Left-aligned columns with a rule under the header."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for k, row in enumerate(rows):
        print("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip(), file=out)
        if k == 0:
            print("  " + "  ".join("-" * w for w in widths), file=out)


def fmt_time(seconds: float) -> str:
    """``1.23 s``, ``4.56 ms`` or ``7.8 us``; ``-`` when not measured."""
    if math.isnan(seconds):
        return "-"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def _fmt_diff(value: float) -> str:
    return "0" if value == 0 else f"{value:.1e}"


def print_plugins(out: TextIO) -> None:
    """One line per plugin: distribution, version, status, what it provides."""
    rows: list[Sequence[str]] = [("plugin", "version", "status", "provides")]
    for info in plugin_report():
        provides = ", ".join([*info.linkers, *info.modes, *info.commands, *info.modules])
        rows.append((info.distribution or info.name, info.version, info.status, provides or "-"))
    table(rows, out)


def print_values(examples: list[Example], runs: list[ModeRun], refs: dict[str, str],
                 out: TextIO) -> None:
    """Per example and mode: the largest |difference| from the reference, or why none."""
    rows: list[Sequence[str]] = [("#", "example", "reference", *(r.name for r in runs))]
    for k, ex in enumerate(examples, 1):
        cells = []
        for run in runs:
            cell = run.cells[ex.name]
            if cell.error:
                cells.append("FAILED")
            elif not cell.compared:
                cells.append("n/c")
            else:
                cells.append(_fmt_diff(cell.diff) + ("" if cell.agrees else " !"))
        rows.append((str(k), ex.name, refs.get(ex.name, "-"), *cells))
    table(rows, out)


def print_times(runs: list[ModeRun], out: TextIO, *, cold: bool = True) -> None:
    """Per mode: linker, cold compile (fresh process and cache; only when ``cold``), warm
    compile and time per call."""
    head = ["mode", "linker", "cold compile, all", "warm compile, median", "per call, median"]
    rows: list[Sequence[str]] = [head if cold else head[:2] + head[3:]]
    for run in runs:
        warm = [c.warm_compile_s for c in run.cells.values() if not c.error]
        calls = [c.call_s for c in run.cells.values() if not c.error]
        row = [run.name, run.linker,
               fmt_time(run.cold_compile_s) if not run.cold_error else "failed",
               fmt_time(statistics.median(warm)) if warm else "-",
               fmt_time(statistics.median(calls)) if calls else "-"]
        rows.append(row if cold else row[:2] + row[3:])
    table(rows, out)


def print_example_times(examples: list[Example], runs: list[ModeRun], out: TextIO) -> None:
    """Verbose: warm compile and per-call time of every example in every mode."""
    rows: list[Sequence[str]] = [("example", "mode", "warm compile", "per call", "note")]
    for ex in examples:
        for run in runs:
            cell = run.cells[ex.name]
            rows.append((ex.name, run.name, fmt_time(cell.warm_compile_s),
                         fmt_time(cell.call_s), cell.error or cell.note))
    table(rows, out)


def print_graphs(examples: list[Example], mode: str, out: TextIO) -> None:
    """Verbose: each example's graph as written, then as compiled by ``mode``."""
    for ex in examples:
        print(f"\n--- {ex.name}: before rewriting", file=out)
        print(dprint(ex.outputs, file="str").rstrip(), file=out)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fn = function(ex.inputs, ex.outputs, mode=mode)
            except Exception as exc:
                print(f"--- {ex.name}: {mode} could not compile it ({first_line(exc)})", file=out)
                continue
        print(f"--- {ex.name}: after rewriting ({mode})", file=out)
        print(dprint(fn, file="str").rstrip(), file=out)


def print_skips(skips: list[Skip], out: TextIO) -> None:
    """What the demo did not do, each reason once."""
    print("\n== Skipped", file=out)
    if not skips:
        print("  nothing: every plugin the demo uses is installed and works here", file=out)
    for s in dict.fromkeys(skips):
        print(f"  {s.what}: {s.why}", file=out)
