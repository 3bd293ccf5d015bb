"""Shape_i of a static length, shape(x)[i], and specify_shape lifted to the inputs that
set the lengths: graphs get simpler, values and shape errors stay."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair

import opgraph.tensor as pt
from opgraph.graph.basic import Constant
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.utils import rewrite_graph
from opgraph.tensor.shape import Shape_i, SpecifyShape, specify_shape
from opgraph.tensor.subtensor import IncSubtensor

rng = np.random.default_rng(11)


def _canonical(out):
    fgraph = FunctionGraph(outputs=[out], clone=False)
    rewrite_graph(fgraph, clone=False, include=("canonicalize",))
    return fgraph.outputs[0]


def test_static_length_is_a_constant():
    x = pt.tensor("x", dtype="float64", shape=(None, 2))
    new = _canonical(Shape_i(1)(x))
    assert isinstance(new, Constant) and int(new.data) == 2 and new.type.dtype == "int64"
    kept = _canonical(Shape_i(0)(x))
    assert isinstance(kept.owner.op, Shape_i)


@pytest.mark.parametrize("i", [0, 1, -1])
def test_an_entry_of_the_shape_vector_is_shape_i(i):
    x = pt.matrix("x")
    new = _canonical(pt.shape(x)[i])
    assert isinstance(new.owner.op, Shape_i) and new.owner.op.i == i % 2
    assert new.owner.inputs[0] is x
    fast, ref = compile_pair([x], pt.shape(x)[i])
    value = rng.normal(size=(3, 5))
    assert fast(value) == ref(value) == value.shape[i]


def test_specify_shape_moves_to_the_input_that_sets_the_length():
    x = pt.vector("x")
    out = specify_shape(pt.as_tensor_variable(np.ones(1)) + x, (5,))
    new = _canonical(out)
    assert new.owner.op.scalar_op is not None  # the add is the output now
    lifted = [n for n in FunctionGraph(outputs=[new], clone=False).apply_nodes
              if isinstance(n.op, SpecifyShape)]
    assert len(lifted) == 1 and lifted[0].inputs[0] is x
    assert new.type.shape == (5,)
    fast, ref = compile_pair([x], out)
    v = rng.normal(size=5)
    np.testing.assert_array_equal(fast(v), ref(v))
    for f in (fast, ref):
        with pytest.raises((AssertionError, ValueError)):
            f(rng.normal(size=4))


def test_specify_shape_is_not_lifted_onto_broadcast_inputs_only():
    x = pt.tensor("x", shape=(1,))
    out = specify_shape(x + 1.0, (1,))
    new = _canonical(out)
    fast, ref = compile_pair([x], out)
    np.testing.assert_array_equal(fast(np.ones(1)), ref(np.ones(1)))
    assert new.type == out.type


def test_specify_shape_of_a_write_checks_the_written_array():
    x, y = pt.matrix("x"), pt.vector("y")
    out = specify_shape(pt.set_subtensor(x[1:4], y), (5, None))
    new = _canonical(out)
    assert isinstance(new.owner.op, IncSubtensor)
    assert isinstance(new.owner.inputs[0].owner.op, SpecifyShape)
    assert new.type.shape == (5, None)
    fast, ref = compile_pair([x, y], out)
    xv, yv = rng.normal(size=(5, 3)), rng.normal(size=3)
    for xa in (xv, np.asfortranarray(xv)):
        np.testing.assert_array_equal(fast(xa, yv), ref(xa, yv))
    for f in (fast, ref):
        with pytest.raises((AssertionError, ValueError)):
            f(rng.normal(size=(6, 3)), yv)
