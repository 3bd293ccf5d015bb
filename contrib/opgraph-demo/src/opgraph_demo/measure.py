"""Compile and run every example in every mode; measure what the report shows.

Values: each mode's outputs are compared with the expected values where they
are known in closed form, else with the Python VM mode FAST_COMPILE; the
largest absolute difference is kept, so the report shows what was compared.
Times: a *warm* compile is the second compile of a graph in this process
(caches populated); a *cold* compile runs in a fresh process with an empty
compile cache (:mod:`opgraph_demo.cold`), once per mode.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.compile.function import function
from opgraph.compile.mode import get_mode, mode_table
from opgraph_demo.examples import Example, Skip

__all__ = ["Cell", "ModeRun", "cold_compile_times", "compare", "run_mode", "usable_modes"]

RTOL, ATOL = 1e-7, 1e-12
REFERENCE_MODE = "FAST_COMPILE"


@attrs.define
class Cell:
    """One example in one mode."""

    outputs: list[np.ndarray] | None = None
    warm_compile_s: float = math.nan
    call_s: float = math.nan
    error: str = ""
    diff: float = math.nan  # max |output - reference|
    compared: bool = False
    agrees: bool = False
    note: str = ""


@attrs.define
class ModeRun:
    """One mode: its linker, its cells by example name, its cold compile time."""

    name: str
    linker: str = "-"
    tags: frozenset[str] = frozenset()
    cells: dict[str, Cell] = attrs.field(factory=dict)
    cold_compile_s: float = math.nan
    cold_error: str = ""


def first_line(obj: Any) -> str:
    """The first line of an error or warning, for one-line reports."""
    text = str(obj).strip().splitlines()
    return text[0] if text else type(obj).__name__


def usable_modes(names: Sequence[str], skips: list[Skip]) -> list[str]:
    """The modes that resolve here; each one that does not, or falls back, is a skip."""
    usable = []
    for name in names:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                get_mode(name).linker  # noqa: B018 - resolving is what may fail or warn
            except Exception as exc:
                skips.append(Skip(f"mode {name}", first_line(exc)))
                continue
        for w in caught:
            skips.append(Skip(f"mode {name}: its preferred linker", first_line(w.message)))
        usable.append(name)
    return usable


def _mode_tags(name: str) -> frozenset[str]:
    """The rewrite tags a mode includes, from its declared record."""
    record = mode_table().get(name)  # a ModeRecord; other entries have no include
    return frozenset(getattr(record, "include", ()) or ())


def _time_calls(fn: Callable[..., Any], values: Sequence[Any], budget_s: float) -> float:
    """Seconds per call, from as many calls as fit in ``budget_s`` (at least 3)."""
    n, start = 0, time.perf_counter()
    while True:
        fn(*values)
        n += 1
        elapsed = time.perf_counter() - start
        if (n >= 3 and elapsed >= budget_s) or n >= 100_000:
            return elapsed / n


def _linker_name(fn: Any) -> str:
    linker = getattr(getattr(fn, "maker", None), "linker", None)
    return str(getattr(linker, "name", None) or type(linker).__name__)


def run_mode(name: str, examples: list[Example], budget_s: float) -> ModeRun:
    """Compile (twice: the second is the warm time), run and time each example in ``name``."""
    run = ModeRun(name, tags=_mode_tags(name))
    for ex in examples:
        cell = Cell()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                function(ex.inputs, ex.outputs, mode=name)
                start = time.perf_counter()
                fn = function(ex.inputs, ex.outputs, mode=name)
                cell.warm_compile_s = time.perf_counter() - start
                run.linker = _linker_name(fn)
                cell.outputs = [np.array(r) for r in fn(*ex.values)]
                cell.call_s = _time_calls(fn, ex.values, budget_s)
            except Exception as exc:
                cell.error = f"{type(exc).__name__}: {first_line(exc)}"
        run.cells[ex.name] = cell
    return run


def _max_abs_diff(got: list[np.ndarray], want: list[Any]) -> tuple[float, bool]:
    worst, ok = 0.0, len(got) == len(want)
    for g, w in zip(got, want):
        w = np.asarray(w)
        if g.shape != w.shape:
            return math.inf, False
        with np.errstate(invalid="ignore"):
            d = np.abs(g.astype(float) - w.astype(float))
        same_nonfinite = (g == w) | (np.isnan(g) & np.isnan(w))
        d = np.where(same_nonfinite, 0.0, d)
        worst = max(worst, float(np.max(d, initial=0.0)) if d.size else 0.0)
        ok = ok and bool(np.allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True))
    return worst, ok


def compare(examples: list[Example], runs: list[ModeRun], *, rewrites_on: bool) -> dict[str, str]:
    """Fill each cell's difference from the reference; returns example -> reference label.

    An example that needs a rewrite tag is compared only in modes that run it,
    and only when the rewrite database (opgraph-rewrites) is in use.
    """
    by_mode = {r.name: r for r in runs}
    references: dict[str, str] = {}
    for ex in examples:
        if ex.expected is not None:
            ref, label = ex.expected, "expected"
        else:
            ref_run = by_mode.get(REFERENCE_MODE) or next(iter(by_mode.values()), None)
            cell = ref_run.cells.get(ex.name) if ref_run is not None else None
            if cell is None or cell.outputs is None:
                continue
            ref, label = cell.outputs, f"mode {ref_run.name}"
        references[ex.name] = label
        for run in runs:
            cell = run.cells[ex.name]
            if cell.outputs is None:
                continue
            if ex.needs_tag is not None and ex.needs_tag not in run.tags:
                cell.note = f"needs the '{ex.needs_tag}' rewrites, which this mode does not run"
                continue
            if ex.needs_tag is not None and not rewrites_on:
                cell.note = "needs the rewrite database (plugin opgraph-rewrites), not in use"
                continue
            cell.diff, cell.agrees = _max_abs_diff(cell.outputs, ref)
            cell.compared = True
    return references


def cold_compile_times(run: ModeRun) -> None:
    """Time every example's compile in a fresh process with an empty compile cache."""
    with tempfile.TemporaryDirectory(prefix="opgraph-demo-cache-") as cache:
        env = dict(os.environ)
        flags = env.get("OPGRAPH_FLAGS", "")
        env["OPGRAPH_FLAGS"] = f"{flags},compiledir={cache}" if flags else f"compiledir={cache}"
        proc = subprocess.run(
            [sys.executable, "-m", "opgraph_demo.cold", run.name],
            capture_output=True, text=True, env=env, timeout=900,
        )
    if proc.returncode != 0:
        run.cold_error = first_line(proc.stderr.strip().splitlines()[-1] if proc.stderr else "?")
        return
    times = json.loads(proc.stdout.strip().splitlines()[-1])
    run.cold_compile_s = float(sum(times.values()))
