"""The tiny report object every benchmark module writes into.

A benchmark module exposes ``run(report)`` and calls ``report.section``,
``report.row`` and ``report.note``; ``report.series`` records points for plots.
The same object renders Markdown for ``nox -s bench`` and a plain table when a
module is run on its own.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any


class Section:
    def __init__(self, title: str) -> None:
        self.title = title
        self.rows: list[dict[str, Any]] = []
        self.notes: list[str] = []

    def columns(self) -> list[str]:
        cols: list[str] = []
        for row in self.rows:
            for key in row:
                if key not in cols:
                    cols.append(key)
        return cols


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 100:
            return f"{value:.0f}"
        if abs(value) >= 1:
            return f"{value:.2f}"
        return f"{value:.3g}"
    return "" if value is None else str(value)


class Report:
    """Collects sections, rows, notes and plot series; renders Markdown or text."""

    def __init__(self, stream: Any = None) -> None:
        self.sections: list[Section] = []
        self.series_data: dict[str, dict[str, list[tuple[float, float]]]] = {}
        self.plot_axes: dict[str, tuple[str, str]] = {}
        self.stream = stream if stream is not None else sys.stderr

    # -- the interface benchmarks use ---------------------------------------------------
    def section(self, title: str) -> None:
        self.sections.append(Section(title))
        print(f"\n== {title}", file=self.stream, flush=True)

    def _current(self) -> Section:
        if not self.sections:
            self.section("(untitled)")
        return self.sections[-1]

    def row(self, **columns: Any) -> None:
        self._current().rows.append(columns)
        text = "  ".join(f"{k}={_fmt(v)}" for k, v in columns.items())
        print(f"   {text}", file=self.stream, flush=True)

    def note(self, text: str) -> None:
        self._current().notes.append(text)
        print(f"   note: {text}", file=self.stream, flush=True)

    def series(self, plot: str, label: str, x: float, y: float, *,
               xlabel: str | None = None, ylabel: str | None = None) -> None:
        """Add a point (x, y) to line ``label`` of plot ``plot`` (axis labels optional)."""
        self.series_data.setdefault(plot, {}).setdefault(label, []).append((x, y))
        if xlabel or ylabel or plot not in self.plot_axes:
            old = self.plot_axes.get(plot, ("graph size (nodes)", "seconds"))
            self.plot_axes[plot] = (xlabel or old[0], ylabel or old[1])

    def progress(self, items: Iterable[Any], desc: str = "") -> Iterator[Any]:
        """Yield ``items`` while drawing a progress bar on the stream."""
        items = list(items)
        n = len(items)
        start = time.perf_counter()
        for i, item in enumerate(items):
            self._bar(desc, i, n, start)
            yield item
        self._bar(desc, n, n, start)
        print(file=self.stream, flush=True)

    def _bar(self, desc: str, i: int, n: int, start: float) -> None:
        width = 30
        filled = int(width * i / n) if n else width
        elapsed = time.perf_counter() - start
        bar = "#" * filled + "-" * (width - filled)
        print(f"\r   {desc} [{bar}] {i}/{n} {elapsed:6.1f}s", end="", file=self.stream, flush=True)

    # -- rendering ------------------------------------------------------------------------
    def markdown(self) -> str:
        out: list[str] = []
        for sec in self.sections:
            out.append(f"## {sec.title}\n")
            cols = sec.columns()
            if cols:
                out.append("| " + " | ".join(cols) + " |")
                out.append("|" + "---|" * len(cols))
                for row in sec.rows:
                    out.append("| " + " | ".join(_fmt(row.get(c)) for c in cols) + " |")
                out.append("")
            for note in sec.notes:
                out.append(f"- {note}")
            if sec.notes:
                out.append("")
        return "\n".join(out)

    def text(self) -> str:
        out: list[str] = []
        for sec in self.sections:
            out.append(sec.title)
            cols = sec.columns()
            table = [cols] + [[_fmt(r.get(c)) for c in cols] for r in sec.rows]
            widths = [max(len(r[i]) for r in table) for i in range(len(cols))]
            for r in table:
                out.append("  " + "  ".join(v.rjust(w) for v, w in zip(r, widths)))
            out.extend(f"  * {n}" for n in sec.notes)
            out.append("")
        return "\n".join(out)


def run_standalone(run: Any) -> None:
    """Entry point for ``python benchmarks/bench_x.py``: run and print a text table."""
    report = Report()
    run(report)
    print(report.text())
