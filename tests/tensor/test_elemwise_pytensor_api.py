"""Elemwise/DimShuffle/TensorVariable behaviours PyTensor code relies on."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.tensor.elemwise import DimShuffle

from .helpers import evaluate


@pytest.mark.parametrize(("sx", "sy"), [((3, 5), (7, 1, 3)), ((2,), (4,)), ((), (3,))])
def test_outer_matches_numpy(sx, sy):
    rng = np.random.default_rng(0)
    xv, yv = rng.normal(size=sx), rng.normal(size=sy)
    x, y = pt.tensor(shape=sx), pt.tensor(shape=sy)
    for op, ref in ((pt.add, np.add), (pt.mul, np.multiply)):
        out = op.outer(x, y)
        assert out.type.shape == ref.outer(xv, yv).shape
        np.testing.assert_allclose(evaluate(out, {x: xv, y: yv}), ref.outer(xv, yv))


def test_fill_and_norm_methods():
    x = pt.matrix()
    xv = np.array([[1.0, -2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(evaluate(x.fill(3), {x: xv}), np.full((2, 2), 3.0))
    np.testing.assert_allclose(evaluate(x.norm(2, axis=1), {x: xv}),
                               np.linalg.norm(xv, axis=1))
    np.testing.assert_allclose(evaluate(x.norm(1, keepdims=True), {x: xv}), [[10.0]])
    with pytest.raises(NotImplementedError, match="finite"):
        x.norm(np.inf)


def test_dimshuffle_input_ndim_and_rank_limit():
    assert DimShuffle(input_ndim=2, new_order=(1, 0)).input_ndim == 2
    with pytest.raises(TypeError, match="input_ndim must be an integer"):
        DimShuffle(input_ndim=(True, False), new_order=(1, 0))
    with pytest.raises(ValueError, match="currently 64, found 65"):
        pt.scalar().dimshuffle(("x",) * 65)


def test_incompatible_static_shapes_name_the_shapes():
    with pytest.raises(ValueError, match=r"Incompatible Elemwise input shapes \[\(2,\), \(3,\)\]"):
        pt.tensor(shape=(2,)) + pt.tensor(shape=(3,))


def test_inf_results_do_not_warn():
    x = pt.scalar()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert evaluate(pt.log(x), {x: 0.0}) == -np.inf


@pytest.mark.parametrize("op", [pt.maximum, pt.minimum])
def test_extremum_gradient_at_a_tie_goes_to_the_first_input(op):
    x, y = pt.dvectors("x", "y")
    gx, gy = pt.grad(op(x, y).sum(), [x, y])
    vals = {x: np.array([1.0, 2.0, 0.0]), y: np.array([1.0, 0.0, 2.0])}
    first = np.array([1.0, 1.0, 0.0]) if op is pt.maximum else np.array([1.0, 0.0, 1.0])
    np.testing.assert_array_equal(evaluate(gx, vals), first)
    second = 1.0 - first
    second[0] = 0.0  # the tie
    np.testing.assert_array_equal(evaluate(gy, vals), second)


def test_clip_refuses_complex():
    with pytest.raises(TypeError):
        pt.clip(pt.zvector(), pt.dscalar(), pt.dscalar())
