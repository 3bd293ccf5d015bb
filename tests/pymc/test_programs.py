"""Every program of ``programs.py`` runs on opgraph; with a reference, it matches PyTensor.

``OPGRAPH_PYMC_REFERENCE=results.json`` (``programs.py`` run under PyTensor 3.0.7;
``nox -s pymc`` makes it) turns on the comparison of every value.  Without it the
programs still have to run to completion and give finite numbers.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pymc")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # programs.py and compare.py

import compare
import programs

REFERENCE = os.environ.get("OPGRAPH_PYMC_REFERENCE")


@pytest.fixture(scope="module")
def reference() -> dict:
    if not REFERENCE:
        return {}
    with open(REFERENCE, encoding="utf-8") as fh:
        return json.load(fh)


#: Programs opgraph cannot run yet, with the reason (docs/pymc.md, "Known differences").
KNOWN_GAPS: dict[str, str] = {}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_GAPS[n], strict=True))
    if n in KNOWN_GAPS else n
    for n in sorted(programs.PROGRAMS)
])
def test_program(name: str, reference: dict) -> None:
    values = programs.run([name], quick=False)[name]
    assert "error" not in values, values.get("error")
    for key, value in values.items():
        if key.split("_")[0] in ("det", "mc", "exact"):
            assert np.all(np.isfinite(np.asarray(value, dtype=float))), key
    if name in reference:
        rows = compare.compare({name: values}, {name: reference[name]})
        bad = [r for r in rows if r[2].startswith("MISMATCH")]
        assert not bad, bad
