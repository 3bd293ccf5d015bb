"""Graph edits that would make a graph cyclic, or give an input an owner, are refused
at once and leave the graph unchanged (issue: faults a trusted system survives)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toys import add, mul, neg, var

from opgraph.graph.cycles import cycle_through
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.traversal import ancestors
from opgraph.graph.utils import InconsistencyError


def _snapshot(fg):
    return (
        list(fg.inputs), list(fg.outputs), set(fg.apply_nodes),
        {n: list(n.inputs) for n in fg.apply_nodes},
        {v: list(c) for v, c in fg.clients.items()},
    )


def test_replace_that_closes_a_cycle_is_refused_and_the_graph_unchanged():
    x = var("x")
    y = neg(x)
    z = add(y, x)
    fg = FunctionGraph([x], [z], clone=False)
    before = _snapshot(fg)
    with pytest.raises(InconsistencyError, match="would create a cycle"):
        fg.replace(y, z)  # z's node uses y: y := z makes z depend on itself
    assert _snapshot(fg) == before
    fg.check_integrity()
    assert fg.toposort() == [y.owner, z.owner]


def test_replace_with_a_new_variable_built_from_a_client_is_refused():
    x = var("x")
    y = neg(x)
    z = mul(y, y)
    fg = FunctionGraph([x], [z], clone=False)
    before = _snapshot(fg)
    with pytest.raises(InconsistencyError, match="cycle"):
        fg.replace(y, add(neg(z), x))  # not in the graph yet, but computed from z
    assert _snapshot(fg) == before


def test_change_node_input_that_closes_a_cycle_is_refused():
    x = var("x")
    y = neg(x)
    z = neg(y)
    fg = FunctionGraph([x], [z], clone=False)
    before = _snapshot(fg)
    with pytest.raises(InconsistencyError, match="cycle"):
        fg.change_node_input(y.owner, 0, z)
    assert _snapshot(fg) == before


def test_replace_by_a_variable_computed_from_the_replaced_one_is_fine():
    x = var("x")
    y = neg(x)
    fg = FunctionGraph([x], [y], clone=False)
    fg.replace(y, add(y, x))  # y's only client is the output: no node of it feeds the new value
    fg.check_integrity()
    assert fg.outputs[0].owner.op == add
    assert fg.outputs[0].owner.inputs[0] is y


def test_add_input_refuses_a_variable_with_an_owner():
    x = var("x")
    y = neg(x)
    fg = FunctionGraph([x], [y], clone=False)
    with pytest.raises(ValueError, match="is the output of"):
        fg.add_input(y)
    assert fg.inputs == [x]


def _build(plan):
    ins = [var(f"x{i}") for i in range(3)]
    vs = list(ins)
    for kind, a, b in plan:
        xa, xb = vs[a % len(vs)], vs[b % len(vs)]
        vs.append(neg(xa) if kind == 2 else (add, mul)[kind](xa, xb))
    return ins, vs


plans = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 10**6), st.integers(0, 10**6)),
    min_size=2, max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(plans, st.integers(0, 10**6), st.integers(0, 10**6), st.booleans())
def test_cycle_check_agrees_with_brute_force(plan, p, q, fresh):
    ins, vs = _build(plan)
    fg = FunctionGraph(ins, vs[-3:], clone=False)
    live = sorted((v for v in fg.variables if fg.clients[v]), key=lambda v: v._uid)
    old = live[p % len(live)]
    pick = sorted(fg.variables, key=lambda v: v._uid)[q % len(fg.variables)]
    new = neg(pick) if fresh else pick
    if new is old or not old.type.is_super(new.type):
        return
    targets = [node for node, _ in fg.clients[old] if node != "output"]
    ancestor_nodes = {v.owner for v in ancestors([new]) if v.owner is not None}
    expected = any(t in ancestor_nodes for t in targets)
    found = cycle_through(targets, new, fg.clients, fg.apply_nodes)
    assert (found is not None) == expected
    if found is not None:
        assert found in targets and found in ancestor_nodes
    before = _snapshot(fg)
    if expected:
        with pytest.raises(InconsistencyError):
            fg.replace(old, new)
        assert _snapshot(fg) == before
    else:
        fg.replace(old, new)
        fg.check_integrity()
        assert set(fg.toposort()) == fg.apply_nodes
