"""opgraph.tensor.reshape: join_dims, split_dims, pack and unpack against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.graph.basic import io_connection_pattern
from opgraph.graph.replace import vectorize_graph
from opgraph.tensor.reshape import _analyze_axes_list, join_dims, pack, split_dims, unpack

from .helpers import check_derivatives, evaluate

RNG = np.random.default_rng(11)


def test_join_dims_static_shapes_values_and_errors():
    x = pt.tensor("x", shape=(2, 3, 4, 5))
    xv = RNG.normal(size=(2, 3, 4, 5))
    cases = {(0, None): (120,), (0, 1): (2, 3, 4, 5), (0, 0): (1, 2, 3, 4, 5),
             (1, 2): (2, 12, 5), (-3, 2): (2, 12, 5), (2, None): (2, 3, 20),
             (4, 0): (2, 3, 4, 5, 1)}
    for (start, n), expected in cases.items():
        y = join_dims(x, start_axis=start, n_axes=n)
        assert y.type.shape == expected
        np.testing.assert_array_equal(evaluate(y, {x: xv}), xv.reshape(expected))
    with pytest.raises(IndexError, match="Axis 5 is out of bounds for array of dimension 4"):
        join_dims(x, start_axis=5)
    with pytest.raises(ValueError, match="join dimensions 0 to 5, but input x has only 4"):
        join_dims(x, n_axes=5)


def test_split_dims_static_shapes_values_and_errors():
    x = pt.tensor("x", shape=(6, 4, 6))
    xv = RNG.normal(size=(6, 4, 6))
    for axis, shp, expected in [(0, pt.as_tensor([2, 3]), (2, 3, 4, 6)), (2, [2, 3], (6, 4, 2, 3)),
                                (-1, 6, (6, 4, 6)), (0, [3, -1], (3, 2, 4, 6))]:
        y = split_dims(x, shp, axis=axis)
        if -1 not in np.atleast_1d(shp):
            assert y.type.shape == expected
        np.testing.assert_array_equal(evaluate(y, {x: xv}), xv.reshape(expected))
    n = pt.lscalar("n")
    assert split_dims(x, [n, 3], axis=0).type.shape == (2, 3, 4, 6)  # the one unknown entry
    with pytest.raises(ValueError, match="cannot split axis 0 of length 6"):
        split_dims(x, [4, 2], axis=0)
    one = pt.tensor("one", shape=(1, 4))
    assert split_dims(one, np.zeros(0, dtype="int64"), axis=0).type.shape == (4,)


def test_join_and_split_gradients_and_batching():
    check_derivatives(lambda a: join_dims(a, start_axis=1, n_axes=2),
                      [RNG.normal(size=(2, 3, 4))], RNG)
    check_derivatives(lambda a: split_dims(a, (2, 2), axis=1), [RNG.normal(size=(3, 4))], RNG)
    x, xb = pt.tensor("x", shape=(3, 5)), pt.tensor("xb", shape=(10, 3, 5))
    batched = vectorize_graph(join_dims(x), {x: xb})
    assert batched.type.shape == (10, 15)
    v, vb = pt.tensor("v", shape=(10,)), pt.tensor("vb", shape=(3, 10))
    bv = RNG.normal(size=(3, 10))
    out = vectorize_graph(split_dims(v, (5, 2)), {v: vb})
    assert out.type.shape == (3, 5, 2)
    np.testing.assert_array_equal(evaluate(out, {vb: bv}), bv.reshape(3, 5, 2))


@pytest.mark.parametrize("axes, expected", [
    (None, (0, 0, 0)), ([0, 1], (2, 0, 2)), (-1, (0, 1, 1)), ([0, -1], (1, 1, 2)),
    ([0, 1, 2, -1], (3, 1, 4)),
])
def test_analyze_axes_list(axes, expected):
    assert _analyze_axes_list(axes) == expected


@pytest.mark.parametrize("axes, message", [
    ([1, 3], "Positive axes must be contiguous"), ([-3, -1], "Negative axes must be contiguous"),
    ([0, 0], "no duplicates"), ([0, 2, 1], "strictly increasing"),
    ([-1, 0], "Negative axes must come after positive"),
])
def test_analyze_axes_list_rejects(axes, message):
    with pytest.raises(ValueError, match=message):
        _analyze_axes_list(axes)


def test_pack_unpack_round_trip_keeping_axes():
    x, y = pt.tensor("x", shape=(3, 5)), pt.tensor("y", shape=(3, 3, 5))
    z = pt.tensor("z", shape=(1, 3, 5))
    vals = {v: RNG.normal(size=v.type.shape) for v in (x, y, z)}
    packed, shapes = pack(x, y, z, keep_axes=-1)
    assert packed.type.shape == (15, 5)
    np.testing.assert_array_equal(
        evaluate(packed, vals),
        np.concatenate([vals[v].reshape(-1, 5) for v in (x, y, z)], axis=0),
    )
    for v, back in zip((x, y, z), unpack(packed, shapes, keep_axes=-1)):
        assert back.type.shape == v.type.shape
        np.testing.assert_array_equal(evaluate(back, vals), vals[v])
    with pytest.raises(ValueError, match=r"Input 0 \(zero indexed\) to pack has 0 dimensions"):
        pack(pt.scalar("s"), y, keep_axes=0)


def test_unpack_shape_arguments_are_not_connected_to_the_outputs():
    x = pt.vector("x")
    d0, d1 = pt.lscalar("d0"), pt.lscalar("d1")
    x0, x1 = unpack(x, packed_shapes=[d0, d1])
    assert io_connection_pattern([x, d0, d1], [x0.sum() + x1.sum()]) == [[True], [False], [False]]
    got = evaluate([x0, x1], {x: np.arange(5.0), d0: 2, d1: 3})
    np.testing.assert_array_equal(got[0], [0.0, 1.0])
    np.testing.assert_array_equal(got[1], [2.0, 3.0, 4.0])
