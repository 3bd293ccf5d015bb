"""Softmax, LogSoftmax and logsumexp: values, stability, gradients, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import opgraph.tensor as pt
from opgraph.tensor.special import LogSoftmax, Softmax, log_softmax, logsumexp, softmax
from opgraph.tensor.type import TensorType

from .helpers import check_derivatives, evaluate
from .shape_checks import assert_infer_shape

rng = np.random.default_rng(11)


def _np_softmax(v, axis):
    e = np.exp(v - np.max(v, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _np_logsumexp(v, axis=None, keepdims=False):
    m = np.max(v, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(v - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


@pytest.mark.parametrize("axis", [-1, 0, 1, None])
def test_softmax_and_log_softmax_match_numpy(axis):
    x = pt.matrix("x")
    v = rng.standard_normal((3, 4))
    sm = softmax(x, axis=axis)
    lsm = log_softmax(x, axis=axis)
    assert isinstance(sm.owner.op, Softmax) and isinstance(lsm.owner.op, LogSoftmax)
    assert sm.type == x.type
    np.testing.assert_allclose(evaluate(sm, {x: v}), _np_softmax(v, axis))
    np.testing.assert_allclose(evaluate(lsm, {x: v}), np.log(_np_softmax(v, axis)))
    assert_infer_shape(sm, {x: v})
    assert_infer_shape(lsm, {x: v})


def test_stable_for_large_inputs():
    x = pt.vector("x")
    v = np.array([1000.0, 1001.0, -1000.0])
    out = evaluate(softmax(x), {x: v})
    assert np.all(np.isfinite(out)) and np.isclose(out.sum(), 1.0)
    lsm = evaluate(log_softmax(x), {x: v})
    np.testing.assert_allclose(lsm[:2], [-1.3132616875182228, -0.31326168751822286])
    assert evaluate(logsumexp(x), {x: v}) == pytest.approx(1001.3132616875182)
    with np.errstate(divide="ignore"):
        assert evaluate(logsumexp(x), {x: np.full(3, -np.inf)}) == -np.inf
    assert evaluate(logsumexp(x), {x: np.array([np.inf, 1.0])}) == np.inf


def test_float32_and_integer_inputs():
    f = pt.fmatrix("f")
    assert softmax(f).type.dtype == "float32"
    out = evaluate(softmax(f), {f: np.ones((2, 2), "float32")})
    assert out.dtype == np.float32
    i = pt.lvector("i")
    s = softmax(i)
    assert s.type.dtype == "float64"
    np.testing.assert_allclose(evaluate(s, {i: [1, 2]}), _np_softmax(np.array([1.0, 2.0]), -1))


@pytest.mark.parametrize(
    ("axis", "keepdims"), [(None, False), (0, False), (1, True), ((0, 1), False)]
)
def test_logsumexp_matches_numpy(axis, keepdims):
    x = pt.matrix("x")
    v = rng.standard_normal((3, 4)) * 10
    out = logsumexp(x, axis=axis, keepdims=keepdims)
    expected = _np_logsumexp(v, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(evaluate(out, {x: v}), expected)
    assert out.type.ndim == np.ndim(expected)


def test_gradients():
    v = rng.standard_normal((2, 3))
    check_derivatives(lambda a: softmax(a, axis=1), [v], rng)
    check_derivatives(lambda a: softmax(a, axis=None), [v], rng)
    check_derivatives(lambda a: log_softmax(a, axis=0), [v], rng)
    check_derivatives(lambda a: logsumexp(a, axis=1), [v], rng, forward=False)


def test_bad_input():
    x = pt.matrix("x")
    with pytest.raises(ValueError, match="axis 2 is out of range for x"):
        softmax(x, axis=2)
    with pytest.raises(ValueError, match="out of range"):
        log_softmax(x, axis=-3)
    with pytest.raises(TypeError, match="float dtype"):
        Softmax(-1)(pt.lvector("i"))
    assert Softmax(1) == Softmax(1) and Softmax(1) != Softmax(0)
    assert Softmax(1) != LogSoftmax(1)
    assert str(Softmax(0)) == "Softmax{axis=0}"
    assert softmax(pt.tensor(dtype="float64", shape=(2, 3))).type == TensorType(
        "float64", (2, 3)
    )


@settings(max_examples=30, deadline=None)
@given(
    v=hnp.arrays(
        "float64",
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
        elements=st.floats(-500, 500),
    ),
    data=st.data(),
)
def test_softmax_sums_to_one_and_matches_log(v, data):
    axis = data.draw(st.integers(-v.ndim, v.ndim - 1))
    x = pt.tensor(dtype="float64", shape=(None,) * v.ndim)
    sm, lsm = evaluate([softmax(x, axis=axis), log_softmax(x, axis=axis)], {x: v})
    np.testing.assert_allclose(sm.sum(axis=axis), 1.0)
    np.testing.assert_allclose(np.exp(lsm), sm, atol=1e-12)
    np.testing.assert_allclose(
        evaluate(logsumexp(x, axis=axis), {x: v}), _np_logsumexp(v, axis=axis), rtol=1e-12
    )


@pytest.mark.parametrize("op", [Softmax, LogSoftmax])
def test_softmax_axis_checked_at_construction_and_against_the_input(op):
    for bad in (1.5, "1", True):
        with pytest.raises(TypeError, match="axis must be an int or None"):
            op(bad)
    x = pt.tensor3("x")
    assert op(axis=2)(x).type.shape == x.type.shape
    op(axis=-3)(x)
    for out_of_range in (3, -4):
        with pytest.raises(ValueError, match="out of range"):
            op(axis=out_of_range)(x)
