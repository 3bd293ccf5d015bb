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
