"""PyTensor's remaining xtensor names: the per-Op lowering rewrites and their database, the
random casts, ``reduce``/``cumreduce`` by scalar op, index updates, static slice lengths."""

from __future__ import annotations

import numpy as np
import pytest
from opgraph.xtensor import as_xtensor, xtensor
from opgraph.xtensor.indexing import get_static_slice_length, index_assignment, index_increment
from opgraph.xtensor.random import as_rng, shared_rng, standard_normal
from opgraph.xtensor.random.type import RNGToXRNG, XRNGToRNG, rng_to_xrng, xrng_to_rng
from opgraph.xtensor.reduction import bool_reduce, cumreduce, reduce
from opgraph.xtensor.rewriting.basic import useless_rng_to_xrng, useless_xrng_to_rng
from opgraph.xtensor.rewriting.shape import lower_concat, lower_transpose
from opgraph.xtensor.rewriting.utils import lower_aligned, lower_xtensor_db
from opgraph.xtensor.shape import concat, transpose
from opgraph.xtensor.vectorization import combine_dims_and_shape

import opgraph
import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph
from opgraph.tensor.random.type import random_generator_type
from opgraph.tensor.type_other import make_slice

X = np.arange(6.0).reshape(2, 3)


def _run(inputs, out, *values):
    return opgraph.function(inputs, out.values if hasattr(out, "values") else out)(*values)


def test_per_op_lowering_rewrites_are_registered_and_lower_their_op():
    for name in ("lower_concat", "lower_transpose", "lower_reduce", "lower_dot",
                 "lower_index", "lower_elemwise", "lower_rv", "useless_rename"):
        assert name in lower_xtensor_db
    x = xtensor("x", dims=("a", "b"), shape=(2, 3))
    out = transpose(x, "b", "a")
    node = out.owner
    assert lower_concat.transform(FunctionGraph([x], [out], clone=False), node) in (None, False)
    [lowered] = lower_transpose.transform(FunctionGraph([x], [out], clone=False), node)
    assert lowered.type.dims == ("b", "a")
    np.testing.assert_array_equal(_run([x], out, X), X.T)
    y = xtensor("y", dims=("a", "b"), shape=(2, 3))
    np.testing.assert_array_equal(_run([x, y], concat([x, y], dim="a"), X, X + 1),
                                  np.concatenate([X, X + 1]))


def test_lower_aligned_orders_and_broadcasts_dims():
    x = xtensor("x", dims=("a", "b"), shape=(2, 3))
    out = lower_aligned(x, ("b", "c", "a"))
    assert opgraph.function([x], out)(X).shape == (3, 1, 2)
    with pytest.raises(ValueError, match="not in"):
        lower_aligned(x, ("a",))


def test_rng_casts_and_as_rng():
    r = random_generator_type("r")
    xr_ = rng_to_xrng(r)
    assert isinstance(xr_.owner.op, RNGToXRNG)
    assert isinstance(xrng_to_rng(xr_).owner.op, XRNGToRNG)
    assert as_rng(r).owner.op == RNGToXRNG() and as_rng(xr_) is xr_
    with pytest.raises(TypeError, match="None"):
        as_rng(None)
    with pytest.raises(TypeError, match="shared_rng"):
        as_rng(np.random.default_rng())
    with pytest.raises(TypeError, match="RandomGeneratorType"):
        RNGToXRNG()(xr_)
    back = xrng_to_rng(xr_)  # XRNGToRNG(RNGToXRNG(r))
    [again] = useless_xrng_to_rng.transform(None, back.owner)
    assert again is r
    [again] = useless_rng_to_xrng.transform(None, RNGToXRNG().make_node(back))
    assert again is xr_


def test_standard_normal_draws_match_numpy():
    gen = shared_rng(np.random.default_rng(3))
    draw = standard_normal(extra_dims={"d": 4}, rng=gen)
    assert draw.type.dims == ("d",)
    np.testing.assert_allclose(_run([], draw), np.random.default_rng(3).normal(0, 1, size=4))


def test_reduce_by_scalar_op():
    x = xtensor("x", dims=("a", "b"), shape=(2, 3))
    np.testing.assert_array_equal(_run([x], reduce(x, "a", binary_op=ps.add), X), X.sum(0))
    np.testing.assert_array_equal(_run([x], reduce(x, None, binary_op=ps.maximum), X), 5.0)
    np.testing.assert_array_equal(_run([x], bool_reduce(x, "b", binary_op=ps.and_), X),
                                  (X != 0).all(1))
    np.testing.assert_array_equal(_run([x], cumreduce(x, "b", binary_op=ps.mul), X),
                                  np.cumprod(X, 1))
    with pytest.raises(NotImplementedError, match="binary_op"):
        reduce(x, "a", binary_op=ps.sub)


def test_index_assignment_and_increment():
    x = xtensor("x", dims=("a", "b"), shape=(2, 3))
    want = X.copy()
    want[1] = 9.0
    np.testing.assert_array_equal(_run([x], index_assignment(x, 9.0, 1), X), want)
    want = X.copy()
    want[:, 1:] += 1.0
    np.testing.assert_array_equal(_run([x], index_increment(x, 1.0, slice(None), slice(1, None)),
                                       X), want)


def test_static_slice_length_and_dims_combination():
    assert get_static_slice_length(make_slice(1, 8, 2), 10) == 4
    assert get_static_slice_length(make_slice(1, pt.iscalar("n"), None), 10) is None
    assert get_static_slice_length(make_slice(1, 8, 2), None) is None
    a = xtensor("a", dims=("i", "j"), shape=(2, None))
    b = xtensor("b", dims=("j", "k"), shape=(3, 4))
    assert combine_dims_and_shape([a, b]) == {"i": 2, "j": 3, "k": 4}
    assert combine_dims_and_shape([a, b], exclude=["k"]) == {"i": 2, "j": 3}
    with pytest.raises(ValueError, match="conflicting"):
        combine_dims_and_shape([b, as_xtensor(np.zeros(5), dims=("j",))])
