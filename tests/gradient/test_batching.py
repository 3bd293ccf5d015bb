"""Every batching rule, and the row loop (Batched), against a Python loop of the row graph.

Each case is a row graph ``f(x)``; ``vectorize_graph`` rebuilds it over a
batch of rows, and the result must equal ``stack([f(row) for row in X])``.
The same graph forced through ``Batched`` (the row loop, the fallback for
Ops with non-tensor inputs) must agree too.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.autodiff.batched import loop_rule
from opgraph.autodiff.evaluate import compile_callable
from opgraph.autodiff.vectorize import BATCHING_RULES
from opgraph.gradient import Batched, NoBatchingRule, register_batching_rule, vectorize_graph
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.tensor.blockwise import Blockwise

W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])  # (2, 3)


def _row(shape):
    return pt.tensor(dtype="float64", shape=(None,) * len(shape), name="row")


#: name -> (row shape, builder of the row graph from the row variable)
CASES = {
    "elemwise": ((3,), lambda x: pt.exp(x) * 2.0 + x),
    "elemwise_lower_rank_batched": ((3,), lambda x: pt.add(pt.ones((2, 3)), x)),
    "dimshuffle": ((2, 3), lambda x: x.dimshuffle(1, "x", 0)),
    "sum_axis": ((2, 3), lambda x: x.sum(axis=1)),
    "sum_all": ((2, 3), lambda x: x.sum()),
    "prod": ((2, 3), lambda x: pt.prod(x, axis=0)),
    "max": ((2, 3), lambda x: pt.max(x, axis=-1)),
    "min_all": ((2, 3), lambda x: pt.min(x)),
    "argmax_axis": ((2, 3), lambda x: pt.argmax(x, axis=0)),
    "argmax_all": ((2, 3), lambda x: pt.argmax(x)),
    "dot_mv": ((3,), lambda x: pt.dot(pt.constant(W), x)),
    "dot_vm": ((2,), lambda x: pt.dot(x, pt.constant(W))),
    "dot_mm": ((3, 2), lambda x: pt.dot(x, pt.constant(W))),
    "dot_mm_right": ((3, 2), lambda x: pt.dot(pt.constant(W.T), x.T)),
    "dot_vv": ((3,), lambda x: pt.dot(x, x)),
    "matmul": ((2, 3), lambda x: pt.matmul(x, pt.constant(W.T))),
    "reshape": ((2, 3), lambda x: x.reshape((3, 2))),
    "flatten": ((2, 3), lambda x: x.flatten()),
    "shape_i": ((2, 3), lambda x: x * pt.cast(x.shape[1], "float64")),
    "subtensor_int": ((3,), lambda x: x[1] * x),
    "subtensor_slice": ((2, 3), lambda x: x[:, 1:]),
    "inc_subtensor_row_x": ((3,), lambda x: pt.inc_subtensor(x[1:], pt.constant([1.0, 2.0]))),
    "inc_subtensor_row_y": ((2,), lambda x: pt.inc_subtensor(pt.zeros((2, 3))[:, 1:], x)),
    "set_subtensor": ((3,), lambda x: pt.set_subtensor(x[0], x[2] * 3.0)),
    "set_subtensor_y_lower_rank": ((2,), lambda x: pt.set_subtensor(pt.zeros((2, 3))[:, 1:], x)),
    "alloc": ((3,), lambda x: pt.alloc(x, 2, 3)),
    "alloc_scalar": ((3,), lambda x: pt.alloc(x.sum(), 4)),
    "join": ((3,), lambda x: pt.join(0, x, pt.constant([7.0]), x[:2])),
    "join_axis1": ((2, 3), lambda x: pt.join(-1, x, pt.ones((2, 1)))),
    "stack_scalars": ((3,), lambda x: pt.stack([x[0], x[2], x.sum()])),
    "softmax": ((2, 3), lambda x: pt.special.softmax(x, axis=0)),
    "log_softmax": ((2, 3), lambda x: pt.special.log_softmax(x, axis=-1)),
    # (IfElse and non-adjacent advanced indexing have no batching rule: the row loop)
    "split": ((4,), lambda x: pt.split(x, [1, 3], 2)[1] * 2.0),
    "advanced_index": ((4,), lambda x: x[pt.constant(np.array([3, 0, 0]))]),
    "advanced_index_2d": ((2, 3), lambda x: x[pt.constant(np.array([1, 0])),
                                             pt.constant(np.array([2, 2]))]),
    "advanced_inc": ((4,), lambda x: pt.inc_subtensor(x[pt.constant(np.array([0, 0, 2]))],
                                                      x[1])),
    "advanced_inc_2d": ((2, 3), lambda x: pt.inc_subtensor(
        x[pt.constant(np.array([1, 0, 1])), pt.constant(np.array([2, 2, 2]))], x[0])),
    "advanced_set_int_and_array": ((2, 3), lambda x: pt.set_subtensor(
        x[1, pt.constant(np.array([0, 2]))], x[0, :2] * 3.0)),
    "advanced_non_adjacent": ((2, 3, 2), lambda x: x[pt.constant(np.array([1, 0])), :,
                                                     pt.constant(np.array([0, 1]))]),
    "advanced_bool_mask": ((2, 3), lambda x: x[:, pt.constant(np.array([True, False, True]))]),
    "ifelse": ((3,), lambda x: pt.ifelse(x.sum() > 0, x * 2.0, -x)),
    "specify_shape": ((3,), lambda x: pt.specify_shape(x, (3,)) + 1.0),
}


def _loop_reference(row_out, row, values):
    f = compile_callable([row], [row_out])
    return np.stack([np.asarray(f(v)[0]) for v in values])


def _batched(row_out, row, values):
    batch = pt.tensor(dtype="float64", shape=(None,) * (row.type.ndim + 1), name="batch")
    (out,) = vectorize_graph([row_out], {row: batch}, batch.shape[0])
    return compile_callable([batch], [out])(values)[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_matches_python_loop(name):
    shape, build = CASES[name]
    row = _row(shape)
    out = build(row)
    values = np.random.default_rng(len(name)).normal(size=(4, *shape))
    np.testing.assert_allclose(_batched(out, row, values), _loop_reference(out, row, values),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_row_loop_matches_python_loop(name):
    """The row loop alone (every node a Batched loop) gives the same rows."""
    shape, build = CASES[name]
    row = _row(shape)
    out = build(row)
    with BATCHING_RULES.saved():
        for cls in list(BATCHING_RULES):
            del BATCHING_RULES[cls]
        register_batching_rule(object, loop_rule)  # the fallback of non-tensor Ops, alone
        batch = pt.tensor(dtype="float64", shape=(None,) * (len(shape) + 1), name="batch")
        (vec,) = vectorize_graph([out], {row: batch}, batch.shape[0])
    values = np.random.default_rng(1).normal(size=(3, *shape))
    got = compile_callable([batch], [vec])(values)[0]
    np.testing.assert_allclose(got, _loop_reference(out, row, values), rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 5), m=st.integers(1, 4), k=st.integers(0, 3))
def test_indexing_rules_any_batch_and_row_length(n, m, k):
    row = pt.dvector("row")
    out = pt.set_subtensor(row[k % m:], row[k % m:] ** 2).sum() * row[: m - 1 if m > 1 else 1]
    values = np.random.default_rng(n * 31 + m).normal(size=(n, m))
    got = _batched(out, row, values)
    if n == 0:
        assert got.shape[0] == 0
        return
    np.testing.assert_allclose(got, _loop_reference(out, row, values), rtol=1e-12)


def test_rule_may_decline_and_the_fallback_takes_over():
    class Double(Op):
        __props__ = ()

        def make_node(self, x):
            x = pt.as_tensor_variable(x)
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, out):
            out[0][0] = 2 * inputs[0]

        def pullback(self, inputs, outputs, cotangents):
            return [2 * cotangents[0]]

    def declines(node, ins, extra):
        raise NoBatchingRule("not this one")

    register_batching_rule(Double, declines)
    try:
        row = pt.dvector("row")
        out = Double()(row)
        batch = pt.dmatrix("batch")
        (vec,) = vectorize_graph([out], {row: batch}, batch.shape[0])
        assert isinstance(vec.owner.op, Blockwise)  # the one fallback, for tensor Ops
        np.testing.assert_allclose(compile_callable([batch], [vec])(np.ones((2, 3)))[0], 2.0)
    finally:
        BATCHING_RULES.pop(Double)


def test_batched_checks_lengths_and_inputs():
    op = Batched(pt.add.owner.op if hasattr(pt.add, "owner") else pt.exp(pt.dvector()).owner.op,
                 (True,))
    with pytest.raises(TypeError, match="expects 1 inputs"):
        op(pt.dmatrix(), pt.dmatrix())
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    add = Batched((a + b).owner.op, (True, True))
    node_out = add(a, b)
    f = compile_callable([a, b], [node_out])
    with pytest.raises(ValueError, match="common leading length"):
        f(np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="at least one input must be batched"):
        Batched((a + b).owner.op, (False, False))(a, b)
    with pytest.raises(NotImplementedError, match="no leading batch axis"):
        Batched((a + b).owner.op, (True, False))(pt.dscalar(), b)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(CASES)), n=st.integers(0, 4), seed=st.integers(0, 2**16))
def test_every_rule_any_batch_length(name, n, seed):
    """Any batch length, including 0 (the row shape then comes from one evaluated row)."""
    shape, build = CASES[name]
    row = _row(shape)
    out = build(row)
    values = np.random.default_rng(seed).normal(size=(n, *shape))
    got = _batched(out, row, values)
    if n == 0:
        one = _loop_reference(out, row, np.zeros((1, *shape)))
        assert got.shape == (0, *one.shape[1:])
        return
    np.testing.assert_allclose(got, _loop_reference(out, row, values), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_rule_on_an_empty_batch(name):
    shape, build = CASES[name]
    row = _row(shape)
    out = build(row)
    got = _batched(out, row, np.zeros((0, *shape)))
    one = _loop_reference(out, row, np.zeros((1, *shape)))
    assert got.shape == (0, *one.shape[1:])
