"""``all``/``any`` give NumPy's answers on every dtype, NaN counting as true."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt

VALUES = {
    "float64": np.array([[0.0, np.nan, -0.0], [1.0, np.inf, 0.0]]),
    "int8": np.array([[0, -1, 0], [3, 0, 0]], dtype="int8"),
    "bool": np.array([[False, True, False], [True, True, False]]),
    "complex128": np.array([[0j, 1j, 0], [1, 0, 0]], dtype="complex128"),
}


@pytest.mark.parametrize("dtype", VALUES)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_matches_numpy(dtype, axis):
    x = pt.tensor("x", dtype=dtype, shape=(None, None))
    f = opgraph.function([x], [pt.all(x, axis=axis), pt.any(x, axis=axis)])
    v = VALUES[dtype]
    got_all, got_any = f(v)
    np.testing.assert_array_equal(got_all, np.all(v, axis=axis))
    np.testing.assert_array_equal(got_any, np.any(v, axis=axis))
