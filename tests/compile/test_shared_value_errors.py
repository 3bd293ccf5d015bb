"""Shared variables report bad values with the class NumPy-minded code catches."""

from __future__ import annotations

import numpy as np
import pytest

from opgraph.compile.sharedvalue import SharedVariable, shared
from opgraph.tensor.type import TensorType

dvec = TensorType("float64", (None,))


def test_non_numeric_value_is_a_type_error_and_a_value_error() -> None:
    with pytest.raises(TypeError, match="cannot make shared variable 'u'"):
        SharedVariable(name="u", type=dvec, value={}, strict=False)
    u = SharedVariable(name="u", type=dvec, value=np.zeros(2), strict=False)
    with pytest.raises(ValueError, match="expected numeric data"):
        u.set_value("adsf")
    u.set_value([3, 4])
    assert u.get_value().dtype == np.float64


def test_out_of_range_int_is_an_overflow_error() -> None:
    s = shared(np.zeros(2, dtype="int8"), name="s")
    with pytest.raises(OverflowError, match="cannot store"):
        s.set_value([1000, 1])
    np.testing.assert_array_equal(s.get_value(), [0, 0])
