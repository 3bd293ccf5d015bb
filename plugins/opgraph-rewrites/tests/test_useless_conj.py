"""conj of a real tensor is the tensor itself; complex conjugates stay."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair

import opgraph.tensor as pt
from opgraph.tensor.ufuncs import _conj


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "bool", "complex128"])
def test_conj_of_real_is_removed(dtype):
    x = pt.matrix("x", dtype=dtype)
    fast, ref = compile_pair([x], _conj(x))
    left = any(n.op == _conj for n in fast.maker.fgraph.apply_nodes)
    assert left == dtype.startswith("complex")
    rng = np.random.default_rng(2)
    value = (rng.normal(size=(3, 4)) * 4).astype(dtype)
    if dtype.startswith("complex"):
        value = value + 1j * rng.normal(size=(3, 4))
    for arg in (value, np.asfortranarray(value), value.T.copy().T):
        got = fast(arg)
        np.testing.assert_array_equal(got, ref(arg))
        np.testing.assert_array_equal(got, np.conj(arg))
        assert got.dtype == ref(arg).dtype
