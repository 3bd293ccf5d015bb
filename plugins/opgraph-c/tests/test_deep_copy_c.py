"""DeepCopyOp in C: the copy PyTensor's graph puts on an output that would alias an
input, a view of one, or another output, made inside the C module."""

from __future__ import annotations

import numpy as np
import pytest
from opgraph_c.codegen.nodec import EmitContext
from opgraph_c.codegen.registry import c_for_node

import opgraph
import opgraph.tensor as pt
from opgraph.compile.ops import DeepCopyOp


def _copies(fn):
    return [n for n in fn.maker.fgraph.toposort() if isinstance(n.op, DeepCopyOp)]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool", "complex128"])
@pytest.mark.parametrize("make", [lambda x: x[1:], lambda x: x.T, lambda x: x])
def test_view_outputs_are_copied_in_c_and_never_alias(dtype, make):
    x = pt.matrix("x", dtype=dtype)
    fn = opgraph.function([x], make(x), mode="FAST_RUN")
    nodes = _copies(fn)
    assert nodes, "the output is a view of the input: PyTensor's graph has a DeepCopyOp"
    for k, node in enumerate(fn.maker.fgraph.toposort()):
        if node in nodes:
            code, source = c_for_node(node, k, EmitContext(openmp=False))
            # complex arrays have no C in opgraph-c: the node's Python copy runs
            assert (code is not None and source == "builtin") == (dtype != "complex128")
    a = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    first = fn(a)
    np.testing.assert_array_equal(first, make(a))
    assert not np.shares_memory(first, a)
    second = fn(a + np.ones_like(a))
    np.testing.assert_array_equal(first, make(a))  # the first result is not overwritten
    assert not np.shares_memory(first, second)


def test_the_same_output_twice_gives_two_arrays():
    x = pt.vector("x")
    y = pt.exp(x)
    fn = opgraph.function([x], [y, y], mode="FAST_RUN")
    a, b = fn(np.array([0.0, 1.0]))
    np.testing.assert_allclose(a, np.exp([0.0, 1.0]))
    np.testing.assert_array_equal(a, b)
    assert not np.shares_memory(a, b)


def test_empty_and_zero_dim_copies():
    x = pt.matrix("x")
    s = pt.scalar("s")
    fn = opgraph.function([x, s], [x[:0], s], mode="FAST_RUN")
    e, v = fn(np.ones((3, 2)), np.float64(2.5))
    assert e.shape == (0, 2) and v == 2.5
