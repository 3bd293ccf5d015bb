"""Helpers of ``opgraph.tensor.rewriting.basic``/``.elemwise`` under PyTensor's names."""

import numpy as np
from opgraph.tensor.rewriting import basic as b
from opgraph.tensor.rewriting import elemwise as e

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.graph.fg import FunctionGraph
from opgraph.tensor.elemwise import DimShuffle


def test_broadcasted_by():
    x = pt.tensor("x", shape=(1, 3))
    y = pt.tensor("y", shape=(4, 3))
    v = pt.tensor("v", shape=(3,))
    z = pt.tensor("z", shape=(None, 3))
    assert b.broadcasted_by(x, y) and not b.broadcasted_by(y, x)
    assert b.broadcasted_by(v, y) and not b.broadcasted_by(y, v)
    assert b.broadcasted_by(x, z) and not b.broadcasted_by(z, x)


def test_is_an_upcast():
    assert b.is_an_upcast("float32", "float64") and not b.is_an_upcast("float64", "float32")
    assert b.is_an_upcast("int32", "float64") and not b.is_an_upcast("int64", "float32")
    assert b.is_an_upcast("int8", "float16") and not b.is_an_upcast("float64", "float64")


def test_is_dimshuffle_useless():
    x = pt.tensor("x", shape=(1, 3))
    assert e.is_dimshuffle_useless((0, 1), x)
    assert not e.is_dimshuffle_useless((1,), x)
    assert not e.is_dimshuffle_useless(("x", 0, 1), x)
    assert not e.is_dimshuffle_useless((1, 0), pt.tensor("y", shape=(4, 3)))
    assert e.is_dimshuffle_useless((1, 0), pt.tensor("w", shape=(1, 1)))


def test_apply_local_dimshuffle_lift_moves_the_transpose_to_the_input():
    a = pt.dmatrix("a")
    out = (pt.exp(a) + 1).T
    fg = FunctionGraph([a], [out], clone=False)
    new = e.apply_local_dimshuffle_lift(fg, out)
    assert not isinstance(new.owner.op, DimShuffle)
    val = np.arange(6.0).reshape(2, 3) / 7
    np.testing.assert_allclose(function([a], new)(val), np.exp(val).T + 1)
    assert e.apply_local_dimshuffle_lift(fg, a) is a


def test_elemwise_max_operands_is_the_fusion_bound():
    a = pt.dvector("a")
    assert e.elemwise_max_operands_fct((a + 1).owner) == e.FusionOptimizer().max_inputs


def test_transform_take_is_numpy_take():
    from opgraph.tensor.rewriting.subtensor import transform_take

    a, idx = pt.dtensor3("a"), pt.lmatrix("idx")
    vals, ivals = np.arange(24.0).reshape(2, 3, 4), np.array([[0, 1], [1, -1]])
    for axis in (0, 1, 2):
        got = function([a, idx], transform_take(a, idx, axis))(vals, ivals)
        np.testing.assert_array_equal(got, np.take(vals, ivals, axis=axis))


def test_view_op_and_tensor_copy_go_in_fast_compile():
    from helpers_rw import compile_pair, op_counts

    from opgraph.compile.database import optdb
    from opgraph.compile.ops import view_op

    x = pt.dvector("x")
    for name, out in (("local_view_op", view_op(x) * 2), ("remove_tensor_copy",
                                                          pt.tensor_copy(x) * 2)):
        assert name in optdb["canonicalize"]
        fast, ref = compile_pair([x], out, "FAST_COMPILE")
        labels = set(op_counts(fast))
        assert "ViewOp" not in labels and "Identity" not in labels
        vals = np.array([1.0, -np.inf, np.nan])
        np.testing.assert_array_equal(fast(vals), ref(vals))


def test_get_simplified_shape_prefers_the_shape_feature_then_static_lengths():
    from opgraph.tensor.rewriting.basic import get_simplified_shape
    from opgraph.tensor.rewriting.shape import ShapeFeature

    x = pt.tensor("x", shape=(3, None))
    y = pt.exp(x)
    fg = FunctionGraph([x], [y], clone=False)
    first, second = get_simplified_shape(y, fgraph=fg)
    assert first.data == 3 and second.owner is not None
    fg.attach_feature(ShapeFeature())
    first, second = get_simplified_shape(y, fgraph=fg)
    assert int(first.data) == 3 and second.owner.inputs[0] is x  # Shape_i of the input
    val = np.zeros((3, 5))
    assert function([x], second)(val) == 5
