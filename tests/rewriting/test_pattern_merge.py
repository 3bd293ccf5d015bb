"""PatternNodeRewriter, SubstitutionNodeRewriter and MergeOptimizer on toy ops."""

from __future__ import annotations

import pytest
from rewriting_toy import add, div, evaluate, exp, f, g, log, mul, neg, num, op_names, sin

from opgraph.graph.basic import Constant
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting import (
    EquilibriumGraphRewriter,
    MergeFeature,
    MergeOptimizer,
    PatternNodeRewriter,
    RemovalNodeRewriter,
    SubstitutionNodeRewriter,
    in2out,
)

# (pattern, replacement) entries with their algebra, as the standard library writes them.
RULES = [
    ((mul, "x", (div, "y", "x")), "y"),  # x * (y / x) = y
    ((div, (mul, "x", "y"), "y"), "x"),  # x * y / y = x
    ((log, (exp, "x")), "x"),  # log(exp(x)) = x
    ((add, "x", 0.0), "x"),  # x + 0 = x
    ((mul, "x", 1.0), "x"),  # x * 1 = x
]


def rules():
    return [PatternNodeRewriter(i, o) for i, o in RULES]


@pytest.mark.parametrize(
    "build",
    [
        lambda x, y: mul(x, div(y, x)),
        lambda x, y: div(mul(x, y), y),
        lambda x, y: log(exp(x)),
        lambda x, y: add(x, 0.0),
        lambda x, y: mul(x, 1.0),
    ],
)
def test_each_pattern_reduces_to_input(build):
    x, y = num("x"), num("y")
    fg = FunctionGraph([x, y], [build(x, y)])
    EquilibriumGraphRewriter(rules()).rewrite(fg)
    assert fg.apply_nodes == set()
    assert fg.outputs[0] in fg.inputs


def test_pattern_requires_same_variable_for_repeated_name():
    x, y, z = num("x"), num("y"), num("z")
    fg = FunctionGraph([x, y, z], [mul(x, div(y, z))])
    EquilibriumGraphRewriter(rules()).rewrite(fg)
    assert op_names(fg) == ["div", "mul"]


def test_pattern_constant_match_and_constraint():
    x = num("x")
    positive = {"pattern": "c", "constraint": lambda v: isinstance(v, Constant) and v.data > 0}
    rw = PatternNodeRewriter((mul, "x", positive), (add, "x", "x"))
    fg = FunctionGraph([x], [mul(x, 3.0), mul(x, -3.0)])
    in2out(rw).rewrite(fg)
    assert sorted(n.op.name for n in fg.apply_nodes) == ["add", "mul"]
    assert "mul" in rw.name


def test_pattern_refuses_inner_node_with_other_clients():
    x = num("x")
    e = exp(x)
    fg = FunctionGraph([x], [log(e), sin(e)])
    in2out(PatternNodeRewriter((log, (exp, "x")), "x")).rewrite(fg)
    assert op_names(fg) == ["exp", "log", "sin"]
    fg2 = FunctionGraph([x], [log(e), sin(e)])
    in2out(PatternNodeRewriter((log, (exp, "x")), "x", allow_multiple_clients=True)).rewrite(fg2)
    assert op_names(fg2) == ["exp", "sin"]


def test_pattern_output_can_be_callable():
    x = num("x")
    rw = PatternNodeRewriter((add, "x", "x"), lambda b: mul(b["x"], 2.0))
    fg = FunctionGraph([x], [add(x, x)])
    in2out(rw).rewrite(fg)
    assert op_names(fg) == ["mul"]
    assert evaluate(fg, [4.0]) == [8.0]


def test_bad_pattern_is_explained():
    with pytest.raises(TypeError, match="in_pattern"):
        PatternNodeRewriter("x", "x")


def test_substitution_and_removal():
    x = num("x")
    fg = FunctionGraph([x], [f(g(x))])
    in2out(SubstitutionNodeRewriter(f, sin)).rewrite(fg)
    assert op_names(fg) == ["g", "sin"]
    in2out(RemovalNodeRewriter(g)).rewrite(fg)
    assert op_names(fg) == ["sin"]


def test_merge_equal_nodes_and_constants():
    x, y = num("x"), num("y")
    a = add(mul(x, Constant(num, 2.0)), mul(x, Constant(num, 2.0)))
    b = add(mul(x, Constant(num, 2.0)), mul(x, Constant(num, 2.0)))
    fg = FunctionGraph([x, y], [a, b, sin(y)])
    MergeOptimizer().rewrite(fg)
    assert op_names(fg) == ["add", "mul", "sin"]
    assert fg.outputs[0] is fg.outputs[1]
    consts = {i for n in fg.apply_nodes for i in n.inputs if isinstance(i, Constant)}
    assert len(consts) == 1
    assert evaluate(fg, [1.5, 0.0])[:2] == [6.0, 6.0]


def test_merge_keeps_different_ops_and_inputs_apart():
    x, y = num("x"), num("y")
    fg = FunctionGraph([x, y], [add(sin(x), sin(y)), add(exp(x), sin(x))])
    MergeOptimizer().rewrite(fg)
    assert op_names(fg) == ["add", "add", "exp", "sin", "sin"]


def test_merge_feature_is_incremental():
    x = num("x")
    fg = FunctionGraph([x], [add(sin(x), exp(x))])
    merge = MergeOptimizer()
    merge.rewrite(fg)
    feat = next(f for f in fg.features if isinstance(f, MergeFeature))
    # a later rewrite introduces a duplicate of sin(x): the feature queues it
    node = next(n for n in fg.apply_nodes if n.op == exp)
    fg.replace(node.outputs[0], sin(fg.inputs[0]))
    assert feat.pending
    merge.apply(fg)
    assert op_names(fg) == ["add", "sin"]
    add_node = next(iter(n for n in fg.apply_nodes if n.op == add))
    assert add_node.inputs[0] is add_node.inputs[1]


def test_merge_is_linear_on_a_long_repeated_chain():
    x = num("x")
    a = b = x
    for _ in range(1000):  # chains twice Python's default recursion limit deep
        a = sin(add(a, x))
        b = sin(add(b, x))
    fg = FunctionGraph([x], [a, b])
    MergeOptimizer().rewrite(fg)
    assert len(fg.apply_nodes) == 2000
    assert fg.outputs[0] is fg.outputs[1]


def test_merge_cascades_with_equilibrium():
    x = num("x")
    fg = FunctionGraph([x], [add(neg(log(exp(x))), neg(x))])
    EquilibriumGraphRewriter(
        [PatternNodeRewriter((log, (exp, "x")), "x")], final_rewriters=[MergeOptimizer()]
    ).rewrite(fg)
    assert op_names(fg) == ["add", "neg"]
