"""Compare the results of ``programs.py`` on opgraph with those on PyTensor 3.0.7.

    python tests/pymc/compare.py opgraph.json pytensor.json

Per value kind (the key's prefix, see ``programs.py``): ``exact_`` equal,
``drawn_`` within 1e-12 relative (seeded draws passed through arithmetic such
as a Cholesky product: PyTensor's default backend, Numba, rounds it otherwise;
against PyTensor's Python mode they are equal bit for bit),
``det_`` within 1e-8 relative (1e-10 absolute near zero; MAP within 1e-6, an
optimiser's stopping point), ``near_`` within 1e-6 relative (values PyTensor
computes through a float32 constant), ``mc_`` within 5 combined Monte Carlo errors.  A
program that failed on opgraph but ran on PyTensor is a mismatch; one that
failed on both is reported.  Exit status 1 on any mismatch.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np

DET_RTOL = 1e-8
DRAWN_RTOL = 1e-12
MAP_RTOL = 1e-6
NEAR_RTOL = 1e-6
MC_SIGMAS = 5.0
COMPARED_KINDS = ("exact", "drawn", "det", "near", "mc")


def compare_value(key: str, mine: Any, ref: Any, mcse: tuple[Any, Any] | None) -> str | None:
    """None when ``mine`` matches ``ref`` for the kind of ``key``, else why not."""
    a, b = np.asarray(mine, dtype=float), np.asarray(ref, dtype=float)
    if a.shape != b.shape:
        return f"shape {a.shape} != {b.shape}"
    if key.startswith("exact_"):
        ok = np.array_equal(a, b)
        return None if ok else f"draws differ (max |diff| {np.max(np.abs(a - b)):.3g})"
    if key.startswith("drawn_"):
        ok = np.allclose(a, b, rtol=DRAWN_RTOL, atol=1e-14)
        return None if ok else f"draws differ (max |diff| {np.max(np.abs(a - b)):.3g})"
    if key.startswith("det_"):
        rtol = MAP_RTOL if key.startswith("det_map_") else DET_RTOL
        ok = np.allclose(a, b, rtol=rtol, atol=1e-10)
        return None if ok else f"max rel diff {np.max(np.abs(a - b) / (np.abs(b) + 1e-300)):.3g}"
    if key.startswith("near_"):
        ok = np.allclose(a, b, rtol=NEAR_RTOL, atol=1e-10, equal_nan=True)
        return None if ok else f"max rel diff {np.max(np.abs(a - b) / (np.abs(b) + 1e-300)):.3g}"
    if key.startswith("mc_"):
        se = np.hypot(np.asarray(mcse[0], float), np.asarray(mcse[1], float)) if mcse else 0
        ok = np.all(np.abs(a - b) <= MC_SIGMAS * se + 1e-12)
        return None if ok else f"|diff| {np.abs(a - b).max():.3g} > {MC_SIGMAS} MC errors"
    return None


def compare(mine: dict[str, Any], ref: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Rows ``(program, key, status)``; status "ok" or the mismatch."""
    rows = []
    for name in sorted(n for n in ref if not n.startswith("_")):
        m, r = mine.get(name, {"error": "not run"}), ref[name]
        if "error" in r:
            rows.append((name, "-", f"reference failed too: {r['error']}"))
            continue
        if "error" in m:
            rows.append((name, "-", f"MISMATCH: failed on opgraph: {m['error']}"))
            continue
        for key in sorted(k for k in r if k.split("_")[0] in COMPARED_KINDS):
            name_part = key[3:] if key.startswith("mc_") else None
            mcse = ((m.get(f"mcse_{name_part}"), r.get(f"mcse_{name_part}"))
                    if name_part else None)
            why = compare_value(key, m.get(key), r[key], mcse) if key in m else "missing"
            rows.append((name, key, "ok" if why is None else f"MISMATCH: {why}"))
    return rows


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    with open(argv[0], encoding="utf-8") as fh:
        mine = json.load(fh)
    with open(argv[1], encoding="utf-8") as fh:
        ref = json.load(fh)
    rows = compare(mine, ref)
    for name, key, status in rows:
        print(f"{name:24} {key:28} {status}")
    bad = [r for r in rows if r[2].startswith("MISMATCH")]
    print(f"{len(rows) - len(bad)} of {len(rows)} values match PyTensor 3.0.7")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
