"""opgraph.tensor.interpolate against numpy.interp and the methods' definitions."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.tensor.interpolate import interp, interpolate1d, valid_methods

from .helpers import check_derivatives, evaluate

XP = np.linspace(-2.0, 6.0, 10)
FP = np.sin(XP)


def test_interp_matches_numpy_inside_outside_and_at_the_knots():
    q = np.concatenate([[-5.0, 7.0], XP, RNG_POINTS])
    t = pt.dvector("t")
    got = evaluate(interp(t, XP, FP), {t: q})
    np.testing.assert_allclose(got, np.interp(q, XP, FP), rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(got[2:12], FP)  # exactly the table at the knots
    np.testing.assert_allclose(evaluate(interp(t, XP, FP, left=-1.0, right=2.0), {t: q}),
                               np.interp(q, XP, FP, left=-1.0, right=2.0))


RNG_POINTS = np.random.default_rng(2).uniform(-2, 6, size=20)


@pytest.mark.parametrize("method", valid_methods)
def test_methods_against_their_definition(method):
    t = pt.dvector("t")
    q = np.concatenate([RNG_POINTS, XP[1:-1], [-7.0, 9.0]])
    got = evaluate(interpolate1d(XP, FP, method)(t), {t: q})
    i = np.searchsorted(XP, q, side="left")
    ic = np.clip(i, 1, len(XP) - 1)
    expected = {
        "linear": np.where(q == XP[ic], FP[ic], FP[ic - 1] + (q - XP[ic - 1])
                           / (XP[ic] - XP[ic - 1]) * (FP[ic] - FP[ic - 1])),
        "nearest": np.where(np.abs(XP[ic] - q) <= np.abs(q - XP[ic - 1]), FP[ic], FP[ic - 1]),
        "first": FP[np.clip(i - 1, 0, len(XP) - 1)],
        "last": FP[np.clip(i, 0, len(XP) - 1)],
        "mean": (FP[ic - 1] + FP[ic]) / 2,
    }[method]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_padding_without_extrapolation_and_bad_method():
    f = interpolate1d(XP, FP, "nearest", extrapolate=False, left_pad=-100.0)
    t = pt.dscalar("t")
    assert evaluate(f(t), {t: -10.0}) == -100.0
    assert evaluate(f(t), {t: 100.0}) == FP[-1]
    with pytest.raises(ValueError, match="method must be one of"):
        interpolate1d(XP, FP, "cubic")


def test_linear_interpolation_gradient():
    check_derivatives(lambda t: interp(t, XP, FP), [np.array([0.3, 1.7, 4.2])],
                      np.random.default_rng(0), forward=False)
