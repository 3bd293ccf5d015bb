"""Draining ``assume()`` markers: the graph loses the identity nodes, the graph's
AssumptionFeature keeps their facts, and the compiled values do not change."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair
from opgraph.tensor.rewriting.assumptions import DrainSpecifyAssumptions

import opgraph.tensor as pt
from opgraph.assumptions import (
    DIAGONAL,
    POSITIVE_DEFINITE,
    SYMMETRIC,
    AssumptionFeature,
    ConflictingAssumptionsError,
    FactState,
    SpecifyAssumptions,
    assume,
)
from opgraph.compile import optdb
from opgraph.graph.fg import FunctionGraph


def _drained(*outs):
    fgraph = FunctionGraph(outputs=list(outs), clone=False)
    DrainSpecifyAssumptions().rewrite(fgraph)
    return fgraph


def _markers(fgraph) -> int:
    return sum(isinstance(n.op, SpecifyAssumptions) for n in fgraph.apply_nodes)


def test_drain_keeps_stated_and_implied_facts_on_the_input():
    x = pt.matrix("x", shape=(3, 3))
    fgraph = _drained(pt.exp(assume(x, diagonal=True)) @ x)
    assert _markers(fgraph) == 0
    feature = fgraph.assumption_feature
    assert feature.get(x, DIAGONAL) is FactState.TRUE
    assert feature.get(x, SYMMETRIC) is FactState.TRUE  # implied by diagonal
    assert feature.get(x, POSITIVE_DEFINITE) is FactState.UNKNOWN


def test_nested_markers_and_a_false_fact_reach_the_root():
    z = pt.matrix("z")
    fgraph = _drained(assume(assume(z, diagonal=False), positive_definite=True))
    assert fgraph.outputs == [z]
    assert fgraph.assumption_feature.get(z, DIAGONAL) is FactState.FALSE
    assert fgraph.assumption_feature.get(z, POSITIVE_DEFINITE) is FactState.TRUE


def test_an_already_attached_feature_is_used():
    x = pt.matrix("x")
    fgraph = FunctionGraph(outputs=[assume(x, symmetric=True) + 1], clone=False)
    feature = AssumptionFeature()
    fgraph.attach_feature(feature)
    DrainSpecifyAssumptions().rewrite(fgraph)
    assert fgraph.assumption_feature is feature and feature.check(x, SYMMETRIC)


def test_a_stated_fact_against_the_graph_raises_while_draining():
    with pytest.raises(ConflictingAssumptionsError):
        _drained(assume(pt.eye(3), diagonal=False))
    # eye(3, 4) or an offset diagonal claims nothing, so nothing conflicts
    for out in (pt.eye(3, 4), pt.eye(3, 3, 1)):
        fgraph = _drained(assume(out, diagonal=False))
        assert fgraph.assumption_feature.get(fgraph.outputs[0], DIAGONAL) is FactState.FALSE


def test_declaring_both_ways_conflicts():
    x = pt.matrix("x")
    feature = AssumptionFeature()
    feature.declare(x, DIAGONAL, FactState.TRUE)
    with pytest.raises(ConflictingAssumptionsError):
        feature.declare(x, DIAGONAL, FactState.FALSE)


def test_compiled_graphs_drop_markers_and_keep_values():
    x = pt.matrix("x")
    out = pt.exp(assume(x, symmetric=True)).sum(axis=0) * assume(x.T, diagonal=False)
    fast, ref = compile_pair([x], out)
    assert _markers(fast.maker.fgraph) == 0
    rng = np.random.default_rng(7)
    for value in (rng.normal(size=(3, 3)), np.asfortranarray(rng.normal(size=(3, 3))),
                  rng.normal(size=(6, 3))[::2]):
        np.testing.assert_allclose(fast(value), ref(value))


def test_drain_is_registered_under_pytensors_name():
    assert "drain_specify_assumptions" in optdb.__position__
