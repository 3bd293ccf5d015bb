"""Reductions over axes of static length 1 drop them; values and dtypes match NumPy's."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.tensor.reduction import CAReduce

REDUCERS = {"sum": (pt.sum, np.sum), "prod": (pt.prod, np.prod), "max": (pt.max, np.max),
            "min": (pt.min, np.min), "all": (pt.all, np.all), "any": (pt.any, np.any)}


def _reductions(fn) -> list:
    return [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, CAReduce)]


@pytest.mark.parametrize("name", sorted(REDUCERS))
@pytest.mark.parametrize("dtype", ["int8", "float64"])
@pytest.mark.parametrize("shape, axis, left", [
    ((1, 1, 1), None, 0), ((1, 1), (0, 1), 0), ((1, None, 1), (0, 1), 2),
    ((1, None, 1), (0, 2), 0), ((None, 1), 1, 0), ((1, None), 0, 0)])
def test_length_one_axes_are_dropped(name, dtype, shape, axis, left):
    """``left``: the ndim of what is still reduced (0: no reduction is left)."""
    ours, theirs = REDUCERS[name]
    x = pt.tensor("x", dtype=dtype, shape=shape)
    out = ours(x, axis=axis)
    fast, ref = compile_pair([x], out, get_mode("FAST_RUN").excluding("fusion", "blas"))
    red = _reductions(fast)
    assert len(red) == (1 if left else 0)
    if left:
        assert red[0].inputs[0].type.ndim == left
    rng = np.random.default_rng(len(shape))
    value = (rng.normal(size=[d or 4 for d in shape]) * 3).astype(dtype)
    value.flat[0] = 0
    for arg in (value, np.asfortranarray(value)):
        got, want = fast(arg), ref(arg)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype == np.asarray(theirs(arg, axis=axis)).dtype or (
            name in ("sum", "prod"))


def test_nan_and_inf_single_elements():
    x = pt.tensor("x", shape=(1, 1))
    for ours, theirs in REDUCERS.values():
        fast, _ = compile_pair([x], ours(x))
        for v in (np.nan, np.inf, -0.0):
            np.testing.assert_array_equal(fast(np.array([[v]])), theirs(np.array([[v]])))
