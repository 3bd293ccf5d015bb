"""PyTensor's remaining graph-package names: merge-based graph equality, node cloning with a
cache, ``op_as_string``, the old ``vectorize`` name and the car/cdr rules of unification."""

from __future__ import annotations

import pytest

import opgraph.graph as g
import opgraph.tensor as pt
from opgraph.graph.basic import clone_node_and_cache, op_as_string
from opgraph.graph.replace import vectorize, vectorize_graph
from opgraph.graph.rewriting.basic import graph_rewriter
from opgraph.graph.rewriting.utils import is_same_graph_with_merge


def test_is_same_graph_with_merge():
    x, y, z = pt.vector("x"), pt.vector("y"), pt.vector("z")
    assert is_same_graph_with_merge(pt.exp(x) + 1, pt.exp(x) + 1)
    assert not is_same_graph_with_merge(pt.exp(x), pt.exp(y))
    assert is_same_graph_with_merge(pt.exp(x), pt.exp(y), {y: x})
    assert is_same_graph_with_merge(x, x) and not is_same_graph_with_merge(x, y)
    assert is_same_graph_with_merge(x, y, [(x, z), (y, z)])
    out = pt.exp(x)
    is_same_graph_with_merge(out, pt.exp(y), {y: x})
    assert out.owner.inputs[0] is x  # the caller's graph is left alone


def test_clone_node_and_cache_reuses_clones():
    x = pt.vector("x")
    node = pt.exp(x).owner
    x2 = pt.vector("x2")
    cache = {x: x2}
    new = clone_node_and_cache(node, cache)
    assert new.inputs == [x2] and cache[node] is new and cache[node.outputs[0]] is new.outputs[0]
    assert clone_node_and_cache(node, cache) is None


def test_op_as_string_and_aliases():
    x = pt.vector("x")
    out = pt.exp(x)
    assert op_as_string([x], out.owner) == f"{out.owner.op}(x)"
    assert g.graph_rewriter is graph_rewriter


def test_vectorize_is_the_old_name_of_vectorize_graph():
    x = pt.vector("x")
    bx = pt.matrix("bx")
    with pytest.warns(UserWarning, match="renamed to vectorize_graph"):
        out = vectorize(pt.exp(x), {x: bx})
    assert out.type.ndim == 2
    assert vectorize_graph(pt.exp(x), {x: bx}).type == out.type


def test_car_cdr_rules():
    pytest.importorskip("etuples")
    from etuples import etuple

    from opgraph.graph.rewriting.unify import (
        apply_Op_ExpressionTuple,
        car_Op,
        car_Variable,
        cdr_Variable,
    )

    x = pt.vector("x")
    out = pt.exp(x)
    assert car_Variable(out) is out.owner.op
    assert list(cdr_Variable(out)) == [x]
    assert car_Op(out.owner.op) is type(out.owner.op)
    again = apply_Op_ExpressionTuple(out.owner.op, etuple(x))
    assert again.owner.op == out.owner.op and again.owner.inputs == [x]


def test_change_tracker_and_dispatching_feature():
    from opgraph.graph.fg import FunctionGraph
    from opgraph.graph.rewriting.basic import ChangeTracker, DispatchingFeature

    x = pt.vector("x")
    out = pt.exp(x)
    fg = FunctionGraph([x], [out])
    tracker = ChangeTracker()
    seen = []
    fg.attach_feature(tracker)
    fg.attach_feature(DispatchingFeature(lambda n: seen.append(("import", str(n.op))), None,
                                         lambda node, i, old, new, reason: seen.append("chin"),
                                         name="spy"))
    assert fg.change_tracker is tracker and not tracker.changed
    fg.replace(fg.outputs[0], pt.log(fg.inputs[0]))
    assert tracker.changed and tracker.nb_imported >= 1 and "chin" in seen
    assert any(kind == "import" for kind, *_ in [s if isinstance(s, tuple) else (s,) for s in seen])
    tracker.reset()
    assert not tracker.changed


def test_check_stack_trace_feature_raises_when_configured():
    import opgraph
    from opgraph.graph.fg import FunctionGraph
    from opgraph.graph.rewriting.basic import CheckStackTraceRewriter

    x = pt.vector("x")
    out = pt.exp(x)
    out.owner.outputs[0].tag.trace = [[("f.py", 1, "g", "")]]
    fg = FunctionGraph([x], [out], clone=False)
    CheckStackTraceRewriter().add_requirements(fg)
    new = pt.log(x)
    new.tag.trace = []
    with opgraph.config.change_flags(check_stack_trace="raise"):
        with pytest.raises(AssertionError, match="Empty stack trace"):
            fg.replace(fg.outputs[0], new, reason="my_rewrite")
    with opgraph.config.change_flags(check_stack_trace="log"):
        fg2 = FunctionGraph([x], [pt.exp(x)], clone=False)
        CheckStackTraceRewriter().add_requirements(fg2)
        bare = pt.log(x)
        bare.tag.trace = []
        fg2.replace(fg2.outputs[0], bare, reason="rw")
        assert "rw" in str(fg2.outputs[0].tag.trace)


def test_inplace_graph_rewriter_attaches_a_destroy_handler():
    from opgraph.graph.fg import AbstractFunctionGraph, FunctionGraph
    from opgraph.graph.rewriting.basic import inplace_graph_rewriter

    calls = []

    @inplace_graph_rewriter
    def my_rewrite(fgraph):
        calls.append(hasattr(fgraph, "destroy_handler"))

    x = pt.vector("x")
    fg = FunctionGraph([x], [pt.exp(x)])
    my_rewrite.rewrite(fg)
    assert calls == [True] and my_rewrite.__name__ == "my_rewrite"
    assert isinstance(fg, AbstractFunctionGraph)
