"""Facts flow through the matrix inverse (rule registered next to MatrixInverse)."""

from __future__ import annotations

import pytest
from opgraph.tensor.linalg import inv

import opgraph.tensor as pt
from opgraph.assumptions import (
    BUILTIN_KEYS,
    DIAGONAL,
    ORTHOGONAL,
    SYMMETRIC,
    AssumptionFeature,
    FactState,
    assume,
)
from opgraph.graph.fg import FunctionGraph
from opgraph.printing import debugprint


@pytest.mark.parametrize("key", BUILTIN_KEYS, ids=lambda k: k.name)
def test_inverse_keeps_every_fact(key):
    x = pt.matrix("x")
    yes, no = inv(assume(x, **{key.name: True})), inv(assume(x, **{key.name: False}))
    fg = FunctionGraph(outputs=[yes, no], clone=False)
    af = AssumptionFeature()
    fg.attach_feature(af)
    assert af.get(yes, key) is FactState.TRUE
    assert af.get(no, key) is FactState.FALSE
    assert af.get(inv(x), key) is FactState.UNKNOWN


def test_debugprint_shows_facts_through_inverse():
    x = pt.matrix("x")
    text = debugprint(inv(assume(x, diagonal=True, orthogonal=True)), file="str",
                      print_assumptions=True)
    first, second, third = text.splitlines()
    assert first.endswith("[id A] a={diag, orth}")
    assert second == " └─ SpecifyAssumptions{diagonal, orthogonal} [id B] a={diag, orth}"
    assert third == "    └─ x [id C]"
    af = AssumptionFeature()
    out = inv(assume(x, diagonal=True))
    assert af.check(out, SYMMETRIC) and af.get(out, ORTHOGONAL) is FactState.UNKNOWN
    assert af.check(out, DIAGONAL)
