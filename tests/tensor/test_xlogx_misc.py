"""xlogx / xlogy0 (0 at x == 0) and may_share_memory."""

from __future__ import annotations

import numpy as np
import pytest

from opgraph.misc.may_share_memory import may_share_memory
from opgraph.tensor.xlogx import xlogx, xlogy0

from .helpers import check_derivatives, evaluate


def test_values_are_zero_at_zero():
    np.testing.assert_array_equal(evaluate(xlogx(np.array([1.0, 0.0]))), [0.0, 0.0])
    np.testing.assert_allclose(evaluate(xlogx(np.array([2.0]))), [2 * np.log(2)])
    np.testing.assert_array_equal(
        evaluate(xlogy0(np.array([1.0, 0.0]), np.array([1.0, 0.0]))), [0.0, 0.0]
    )


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    check_derivatives(xlogx, [rng.random((3, 4)) + 0.1], rng, forward=False)
    check_derivatives(xlogy0, [rng.random((3, 4)), rng.random((3, 4)) + 0.1], rng, forward=False)


def test_may_share_memory():
    a = np.arange(6.0)
    assert may_share_memory(a, a[2:])
    assert not may_share_memory(a, a.copy())
    assert not may_share_memory(a, None)
    with pytest.raises(TypeError, match="NumPy arrays"):
        may_share_memory(a, [1, 2])
    assert not may_share_memory(a, [1, 2], raise_other_type=False)
