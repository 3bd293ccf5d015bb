"""PyTensor's assumption API: check_assumption, implications, constant inference, the
rule helpers and the summaries."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.assumptions as A
import opgraph.tensor as pt
from opgraph.assumptions.core import (
    CONSTANT_INFER_REGISTRY,
    IMPLIES,
    FactState,
    all_inputs_have_key,
    infer_assumption_for_node,
    propagate_first,
    true_if,
)
from opgraph.graph.fg import FunctionGraph


def test_check_assumption_attaches_a_feature():
    x = A.assume(pt.matrix("x"), diagonal=True)
    fg = FunctionGraph(outputs=[x], clone=False)
    assert A.check_assumption(fg, x, A.SYMMETRIC)
    assert hasattr(fg, "assumption_feature")
    assert not A.check_assumption(fg, x, A.ORTHOGONAL)
    assert not A.check_assumption(None, x, A.SYMMETRIC)


def test_permutation_implies_orthogonal_and_selection():
    p = A.assume(pt.matrix("p"), permutation=True)
    fg = FunctionGraph(outputs=[p], clone=False)
    assert A.check_assumption(fg, p, A.ORTHOGONAL) and A.check_assumption(fg, p, A.SELECTION)
    assert A.PERMUTATION in A.ALL_KEYS


def test_register_implies_and_constant_inference(monkeypatch):
    monkeypatch.setitem(IMPLIES, A.ORTHOGONAL, set(IMPLIES.get(A.ORTHOGONAL, ())))
    A.register_implies(A.ORTHOGONAL, A.SELECTION)
    q = A.assume(pt.matrix("q"), orthogonal=True)
    fg = FunctionGraph(outputs=[q], clone=False)
    assert A.check_assumption(fg, q, A.SELECTION)
    with pytest.raises(TypeError):
        A.register_implies(A.ORTHOGONAL, "selection")

    monkeypatch.setitem(CONSTANT_INFER_REGISTRY, A.DIAGONAL, None)
    A.register_constant_inference(
        A.DIAGONAL, lambda c: true_if(bool(np.all(c.data == np.diag(np.diag(c.data)))),
                                      else_false=True)[0])
    eye = pt.constant(np.eye(3))
    full = pt.constant(np.ones((3, 3)))
    fg = FunctionGraph(outputs=[eye, full], clone=False)
    assert A.check_assumption(fg, eye, A.DIAGONAL) and A.check_assumption(fg, eye, A.SYMMETRIC)
    assert fg.assumption_feature.get(full, A.DIAGONAL) is FactState.FALSE


def test_rule_helpers():
    assert true_if(True) == [FactState.TRUE] and true_if(False) == [FactState.UNKNOWN]
    assert true_if(False, else_false=True) == [FactState.FALSE]
    t, u = FactState.TRUE, FactState.UNKNOWN
    assert propagate_first(None, None, None, None, None, [t, u]) == [t]
    assert all_inputs_have_key(None, None, None, None, None, [t, u]) == [u]
    x = pt.matrix("x")
    node = pt.exp(x).owner
    assert infer_assumption_for_node(A.ORTHOGONAL, node.op, None, None, node, [t]) == [u]


def test_summaries():
    d = A.assume(pt.matrix("d"), diagonal=True, orthogonal=False)
    fg = FunctionGraph(outputs=[d], clone=False)
    feature = A.AssumptionFeature()
    fg.attach_feature(feature)
    assert A.summarize_assumptions(feature, d) == "{diag, !orth}"
    assert A.summarize_assumptions(feature, pt.matrix("m")) == ""
    tags = A.assumption_tags([d])
    assert tags == {d: "{diag, !orth}"}
    assert A.specify_assumption_rule is not None and A.FunctionGraph is FunctionGraph
