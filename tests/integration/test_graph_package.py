"""The graph package's PyTensor-path functions on compiled graphs (needs the linkers)."""

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.graph.basic import equal_computations
from opgraph.graph.replace import clone_replace, vectorize_graph
from opgraph.graph.traversal import graph_inputs


def test_clone_replace_copies_everything():
    x, y = pt.vector("x"), pt.vector("y")
    z = opgraph.shared(0.25)
    f1 = z * (x + y) ** 2 + 5
    f2 = clone_replace(f1)
    assert f2 is not f1 and equal_computations([f2], [f1])
    assert {x, y, z} <= set(graph_inputs([f2]))
    f3 = clone_replace(f1, replace=None, copy_inputs_over=False)
    assert not {x, y, z} & set(graph_inputs([f3]))
    y2 = pt.vector("y2")
    f4 = clone_replace(f1, replace=[(y, y2)])
    assert y2 in graph_inputs([f4]) and y not in graph_inputs([f4])
    # without copy_inputs_over, the replacement's inputs are copied too
    f5 = clone_replace(f1, replace=[(y, y2)], copy_inputs_over=False)
    assert not {x, y, y2, z} & set(graph_inputs([f5]))
    fn = opgraph.function([x, y2], f4)
    np.testing.assert_allclose(fn([1.0], [2.0]), 0.25 * 9 + 5)


def test_clone_replace_with_an_expression_of_the_replaced_variable():
    x = opgraph.shared(np.float64(0.0))
    y = pt.sum((x + 1) ** 2)
    out = clone_replace(y, replace={x: x + 0.1})
    np.testing.assert_allclose(opgraph.function([], out)(), 1.21)


def test_vectorize_graph_matches_numpy():
    x = pt.vector("x")
    y = pt.exp(x) / pt.sum(pt.exp(x))
    new_x = pt.matrix("new_x")
    [new_y] = vectorize_graph([y], {x: new_x})
    assert equal_computations([new_y], [vectorize_graph(y, {x: new_x})])
    data = np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
    expected = np.exp(data) / np.exp(data).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(opgraph.function([new_x], new_y)(data), expected)


def test_eval_by_name_and_pickling_drops_the_cache():
    x, y = pt.scalars("x", "y")
    w = 2 * (x + y)
    assert w.eval({"x": 1.0, y: 2.0}) == 6.0
    assert hasattr(w, "_fn_cache")
    # the compiled functions never travel with the variable (pickle, copy)
    assert "_fn_cache" not in w.__getstate__()
    e = pt.scalar("e")
    t = e + 1
    t.name = "e"
    with pytest.raises(ValueError, match="Found multiple variables with name e"):
        t.eval({"e": 1.0})
    with pytest.raises(ValueError, match="o not found in graph"):
        t.eval({"o": 1.0})
    q = x + 1
    assert q.eval({"x": 1.0, "nothing": 2.0}, on_unused_input="ignore") == 2.0
    with pytest.warns(UserWarning, match="could not be used to create a cache key"):
        assert w.eval({x: 1.0}, givens={y: pt.constant(2.0)}) == 6.0
