"""Shared arrays: zero() in place with borrow, masked arrays refused."""

from __future__ import annotations

import numpy as np
import pytest

from opgraph.compile.sharedvalue import shared


def test_zero_with_borrow_zeroes_the_same_array():
    value = np.array([1.0, 3.0], dtype="float32")
    var = shared(value, borrow=True)
    var.zero(borrow=True)
    assert var.get_value(borrow=True) is value
    np.testing.assert_array_equal(value, [0.0, 0.0])
    var.set_value(np.array([2.0, 5.0], dtype="float32"), borrow=True)
    before = var.get_value(borrow=True)
    var.zero()
    after = var.get_value(borrow=True)
    assert after is not before and after.dtype == np.float32
    np.testing.assert_array_equal(before, [2.0, 5.0])
    np.testing.assert_array_equal(after, [0.0, 0.0])


def test_masked_arrays_are_refused():
    with pytest.raises(NotImplementedError, match="MaskedArrays are not supported"):
        shared(np.ma.masked_greater(np.array([1, 2, 3, 4]), 3))
