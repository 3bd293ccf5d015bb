"""The assumption system: fact states, implications, rules, assume() and debugprint tags."""

from __future__ import annotations

import pytest

import opgraph.tensor as pt
from opgraph.assumptions import (
    ASSUMPTION_INFER_REGISTRY,
    DIAGONAL,
    LOWER_TRIANGULAR,
    ORTHOGONAL,
    POSITIVE_DEFINITE,
    SYMMETRIC,
    AssumptionFeature,
    AssumptionKey,
    ConflictingAssumptionsError,
    FactState,
    SpecifyAssumptions,
    assume,
    register_assumption,
    same_as_input,
)
from opgraph.graph.basic import Apply
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.op import Op
from opgraph.printing import debugprint
from opgraph.tensor.type import TensorType


class Twin(Op):
    """An op that keeps every fact of its input (registered below)."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [TensorType(x.dtype, (None, None))()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0].copy()


@pytest.fixture(autouse=True)
def _restore_registry():
    saved = dict(ASSUMPTION_INFER_REGISTRY)
    yield
    ASSUMPTION_INFER_REGISTRY.clear()
    ASSUMPTION_INFER_REGISTRY.update(saved)


def _feature(*outs):
    fg = FunctionGraph(outputs=list(outs), clone=False)
    af = AssumptionFeature()
    fg.attach_feature(af)
    return fg, af


def test_fact_state_join_and_no_truth_value():
    assert FactState.join(FactState.UNKNOWN, FactState.TRUE) is FactState.TRUE
    assert FactState.join(FactState.FALSE, FactState.UNKNOWN) is FactState.FALSE
    assert FactState.join(FactState.TRUE, FactState.FALSE) is FactState.CONFLICT
    with pytest.raises(TypeError, match="no boolean value"):
        bool(FactState.TRUE)


def test_assume_asserts_and_implies_both_ways():
    x = pt.matrix("x")
    d = assume(x, diagonal=True)
    ns = assume(x, symmetric=False)
    _, af = _feature(d, ns)
    assert af.check(d, DIAGONAL) and af.check(d, SYMMETRIC) and af.check(d, LOWER_TRIANGULAR)
    assert af.get(d, ORTHOGONAL) is FactState.UNKNOWN
    assert af.get(x, DIAGONAL) is FactState.UNKNOWN
    # symmetric FALSE makes the stronger facts FALSE too
    assert af.get(ns, POSITIVE_DEFINITE) is FactState.FALSE
    assert af.get(ns, DIAGONAL) is FactState.FALSE
    assert not af.check(assume(x, symmetric=True), DIAGONAL)


def test_assume_without_facts_and_bad_facts():
    x = pt.matrix("x")
    assert assume(x) is x
    assert assume(x, diagonal=None) is x
    with pytest.raises(TypeError, match="unknown fact 'diagnoal'"):
        assume(x, diagnoal=True)
    with pytest.raises(TypeError, match="must be True, False or None"):
        assume(x, diagonal=1)
    with pytest.raises(ValueError, match="about matrices"):
        assume(pt.vector("v"), diagonal=True)


def test_specify_assumptions_equal_whatever_the_order():
    a = SpecifyAssumptions({"diagonal": FactState.TRUE, "symmetric": FactState.FALSE})
    b = SpecifyAssumptions({"symmetric": FactState.FALSE, "diagonal": FactState.TRUE})
    assert a == b and hash(a) == hash(b)
    assert str(a) == "SpecifyAssumptions{diagonal, !symmetric}"
    with pytest.raises(TypeError, match=r"FactState\.TRUE or FactState\.FALSE"):
        SpecifyAssumptions({"diagonal": True})


def test_rules_carry_facts_through_ops_and_conflicts_raise():
    register_assumption(DIAGONAL, Twin)(same_as_input)
    x = pt.matrix("x")
    y = Twin()(assume(x, diagonal=True))
    _, af = _feature(y)
    assert af.check(y, DIAGONAL)
    # no rule for ORTHOGONAL on Twin: nothing known
    assert af.get(y, ORTHOGONAL) is FactState.UNKNOWN
    z = assume(Twin()(assume(x, diagonal=True)), diagonal=False)
    _, af2 = _feature(z)
    with pytest.raises(ConflictingAssumptionsError):
        af2.get(z, DIAGONAL)


def test_custom_key_and_deep_graph():
    invertible = AssumptionKey("invertible")

    @register_assumption(invertible, Twin)
    def _twin_invertible(key, op, feature, fgraph, node, input_states):
        return [FactState.TRUE]

    register_assumption(DIAGONAL, Twin)(same_as_input)
    y = assume(pt.matrix("x"), diagonal=True)
    for _ in range(3000):  # no recursion limit on long chains
        y = Twin()(y)
    _, af = _feature(y)
    assert af.check(y, invertible)
    assert af.check(y, DIAGONAL)


def test_feature_forgets_answers_when_the_graph_changes():
    register_assumption(DIAGONAL, Twin)(same_as_input)
    x = pt.matrix("x")
    y = Twin()(x)
    fg, af = _feature(y)
    assert af.get(fg.outputs[0], DIAGONAL) is FactState.UNKNOWN
    fg.replace(x, assume(x, diagonal=True), import_missing=True)
    assert af.check(fg.outputs[0], DIAGONAL)
    with pytest.raises(TypeError, match="must be an AssumptionKey"):
        af.get(y, "diagonal")


def test_debugprint_tags_show_the_strongest_facts():
    x = pt.matrix("x")
    text = debugprint(assume(x, positive_definite=True), file="str", print_assumptions=True)
    assert text == "SpecifyAssumptions{positive_definite} [id A] a={pd}\n └─ x [id B]\n"
    text = debugprint(assume(x, symmetric=False), file="str", print_assumptions=True)
    assert "a={!sym}" in text and "!pd" not in text
    assert "a={" not in debugprint(assume(x, diagonal=True), file="str")
