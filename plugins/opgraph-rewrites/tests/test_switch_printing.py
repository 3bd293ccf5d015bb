"""Switches merged and fused print as PyTensor prints them: the scalar op as ``Switch``
in inner graphs, ``switch(...)`` in the Composite's name."""

from __future__ import annotations

import numpy as np
from helpers_rw import compile_pair

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.printing import debugprint


def test_merged_switch_prints_once_by_class_name():
    c, a, b, x, y = (pt.matrix(n) for n in "cabxy")
    out = pt.switch(c, a, b) + pt.switch(c, x, y)
    fast, ref = compile_pair([c, a, b, x, y], out, get_mode("FAST_RUN").excluding("inplace"))
    text = debugprint(fast, file="str")
    assert text.count("Switch") == 1
    assert "Composite{switch(" in text
    rng = np.random.default_rng(5)
    vals = [rng.integers(0, 2, size=(3, 4)).astype(float),
            *(rng.normal(size=(3, 4)) for _ in range(4))]
    vals[1] = np.asfortranarray(vals[1])
    np.testing.assert_allclose(fast(*vals), ref(*vals))


def test_switch_str_and_name():
    assert str(ps.switch) == "Switch"
    assert ps.switch.name == "switch"
