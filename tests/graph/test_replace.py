"""opgraph.graph.replace: clone_replace, graph_replace, vectorize_graph."""

import pytest
from toys import add, neg, tfloat, var

import opgraph
import opgraph.tensor as pt
from opgraph.gradient import Batched
from opgraph.graph.replace import (
    BATCHING_RULES,
    NoBatchingRule,
    _vectorize_node,
    clone_replace,
    graph_replace,
    vectorize_graph,
)
from opgraph.tensor.blockwise import Blockwise


def test_graph_replace_rebuilds_only_what_changes():
    x, y, z = var("x"), var("y"), var("z")
    kept = neg(z)
    out = add(add(x, y), kept)
    new_x = neg(y)
    new_out = graph_replace(out, {x: new_x})
    assert new_out is not out
    assert new_out.owner.inputs[0].owner.inputs[0] is new_x
    assert new_out.owner.inputs[1] is kept  # independent of x: the same object
    # replacing the output itself
    assert graph_replace([out], {out: new_x}) == [new_x]
    # a variable and its ancestor: the nearer replacement wins
    a = neg(x)
    assert graph_replace([neg(a)], {x: y, a: z})[0].owner.inputs[0] is z


def test_graph_replace_unused_replacement():
    x, fake = var("x"), var("fake")
    out = neg(x)
    assert graph_replace([out], {fake: x}, strict=False) == [out]
    with pytest.raises(ValueError, match="Some replacements were not used"):
        graph_replace([out], {fake: x})
    with pytest.raises(TypeError, match="must be Variables"):
        graph_replace([out], {x: 1.0})


def test_clone_replace_other_type_remakes_nodes():
    x, y = pt.vector("x"), pt.fvector("y")
    y2 = pt.dvector("y2")
    out = clone_replace(x + y, {y: y2}, rebuild_strict=False)
    assert out.dtype == "float64"


def test_vectorize_graph_keeps_independent_outputs_and_checks_inputs():
    x, w = pt.vector("x"), pt.vector("w")
    y, other = x * 2, w + 1
    new_x = pt.matrix("new_x")
    new_y, same = vectorize_graph([y, other], {x: new_x})
    assert same is other
    assert new_y.type.ndim == 2
    with pytest.raises(ValueError, match="not Variables"):
        vectorize_graph(y, {(x, x): new_x})
    # two batch axes at once (added one at a time)
    assert vectorize_graph(y, {x: pt.tensor3("t")}).type.ndim == 3


def test_vectorize_node_dispatch_and_rule_table():
    class Doubler(opgraph.graph.op.Op):
        __props__ = ()

        def make_node(self, x):
            return opgraph.graph.basic.Apply(self, [x], [x.type()])

        def perform(self, node, inputs, out):
            out[0][0] = inputs[0] * 2

    x = var("x")
    node = Doubler().make_node(x)
    batching = var("b", tfloat)
    batching.type = pt.vector().type  # one more dimension than x
    # no rule, not a tensor Op: the one fallback loops over the rows
    assert isinstance(_vectorize_node(node.op, node, batching).op, Batched)
    with BATCHING_RULES.saved(), pytest.raises(NoBatchingRule, match="Doubler"):
        del BATCHING_RULES[object]
        _vectorize_node(node.op, node, batching)
    calls = []

    def rule(node, ins, extra):
        calls.append(extra)
        return [Doubler()(ins[0])]

    BATCHING_RULES.add_loader(lambda: {Doubler: rule})  # filled on first lookup
    try:
        v = pt.vector("v")
        s = pt.scalar("s")
        out = Doubler()(s)
        new = vectorize_graph(out, {s: v})
        assert calls == [[1]] and new.owner.inputs[0] is v
    finally:
        BATCHING_RULES.pop(Doubler, None)


def test_vectorize_graph_falls_back_to_a_blockwise_for_ops_without_a_rule():
    class TwoCopies(opgraph.graph.op.Op):
        __props__ = ()

        def make_node(self, x):
            return opgraph.graph.basic.Apply(self, [x], [x.type(), x.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0].copy()
            outputs[1][0] = inputs[0].copy()

    x = pt.scalar("x")
    y1, y2 = TwoCopies()(x)
    out = pt.add(y1, y2)
    new_x = pt.vector("new_x")
    new_out = vectorize_graph(out, {x: new_x})
    (mapped,) = [v.owner for v in new_out.owner.inputs if v.owner is not None][:1]
    assert isinstance(mapped.op, Blockwise) and mapped.op.core_op == TwoCopies()
    assert new_out.type.ndim == 1
    node = TwoCopies().make_node(x)
    again = opgraph.graph.replace._vectorize_node(node.op, node, new_x)
    assert isinstance(again.op, Blockwise) and len(again.outputs) == 2


def test_clone_replace_of_an_output_whose_sibling_output_is_kept() -> None:
    # PyMC's support point of a scan-based CustomDist replaces the inner draw of a
    # RandomVariable while the step also returns the same node's next rng
    import opgraph.tensor as pt
    from opgraph.graph.replace import clone_replace

    a = pt.dscalar("a")
    draw = pt.random.normal(a, 1.0)
    next_rng = draw.owner.outputs[0]
    new_draw, new_rng = clone_replace([draw, next_rng], {draw: a * 2})
    assert new_draw.owner.op == (a * 2).owner.op and new_draw.owner.inputs[0] is a
    assert new_rng.owner.outputs[0] is new_rng and new_rng.type == next_rng.type
