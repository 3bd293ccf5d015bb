"""Cold compile times measured by ``opgraph demo --cold``, remembered per version.

Measuring a cold compile takes a fresh process and an empty compile cache per
mode (minutes in all), so the plain ``opgraph demo`` does not measure it: it
shows the figures ``--cold`` last recorded for the same versions (opgraph,
every plugin, Python, NumPy, the machine) and the same examples, or says how
to measure them.  The record is one JSON file in the compile directory,
``<compiledir>/opgraph-demo/cold-times.json``; a record that cannot be read or
written only means the times are not shown.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph import __version__
from opgraph.config import config
from opgraph.plugins import plugin_report
from opgraph_demo.measure import ModeRun

__all__ = ["Recorded", "apply_recorded", "load_cold_times", "record_path", "save_cold_times",
           "version_key"]

Recorded = dict[str, Any]
"""``{"date": "YYYY-MM-DD HH:MM", "modes": {mode: seconds or None}}``."""


def record_path() -> str:
    """Where ``--cold`` keeps its figures: under the configured compile directory."""
    return os.path.join(os.fspath(config.compiledir), "opgraph-demo", "cold-times.json")


def version_key(modes: Sequence[str], examples: Sequence[str]) -> str:
    """What the figures depend on: versions of everything loaded, the machine, the scenario."""
    plugins = sorted(f"{p.distribution or p.name}={p.version}:{p.status}" for p in plugin_report())
    parts = [f"opgraph={__version__}", f"python={sys.version.split()[0]}",
             f"numpy={np.__version__}", f"machine={platform.machine()}", *plugins,
             "modes=" + ",".join(modes), "examples=" + "|".join(examples)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def _read(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def load_cold_times(key: str, path: str | None = None) -> Recorded | None:
    """The figures recorded for ``key``, or None when there are none (or unreadable)."""
    entry = _read(path or record_path()).get(key)
    if not isinstance(entry, dict) or not isinstance(entry.get("modes"), dict):
        return None
    return entry


def save_cold_times(key: str, runs: Sequence[ModeRun], path: str | None = None) -> bool:
    """Record each run's cold compile time under ``key`` (failed ones as None); True if
    written.  Other keys' records are kept, so switching versions back and forth works."""
    path = path or record_path()
    data = _read(path)
    data[key] = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "modes": {r.name: (None if r.cold_error else r.cold_compile_s) for r in runs},
    }
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        return False
    return True


def apply_recorded(runs: Sequence[ModeRun], recorded: Recorded) -> None:
    """Put recorded figures into ``runs`` (a mode recorded as failed shows as failed)."""
    for run in runs:
        if run.name not in recorded["modes"]:
            continue
        seconds = recorded["modes"][run.name]
        if seconds is None:
            run.cold_error = "failed when recorded"
        else:
            run.cold_compile_s = float(seconds)
