"""The C gather ``x[idx]`` and scatter-add (AdvancedSubtensor1 / AdvancedIncSubtensor1)
against the Python linker: repeated and negative indices, strides, dtypes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.tensor.subtensor import (
    advanced_inc_subtensor1,
    advanced_set_subtensor1,
    advanced_subtensor1,
)

C_PLAIN = Mode(linker="c", optimizer=None)
PY_PLAIN = Mode(linker="py", optimizer=None)
RNG = np.random.default_rng(21)


def _compare(inputs, outputs, *values):
    c = function(inputs, outputs, mode=C_PLAIN)
    py = function(inputs, outputs, mode=PY_PLAIN)
    src = c.linker.module_source
    for got, want in zip(c(*values), py(*values)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-12)
    return src


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("idx_dtype", ["int64", "int32", "uint8"])
def test_gather_and_scatter_add_match_numpy(dtype, idx_dtype):
    x = pt.vector("x", dtype=dtype)
    y = pt.vector("y", dtype=dtype)
    s = pt.scalar("s", dtype=dtype)
    i = pt.vector("i", dtype=idx_dtype)
    outs = [advanced_subtensor1(x, i), advanced_inc_subtensor1(x, y, i),
            advanced_inc_subtensor1(x, s, i), advanced_set_subtensor1(x, y, i)]
    xv = RNG.normal(size=7).astype(dtype)
    iv = np.array([0, 3, 3, 6, 1, 3], dtype=idx_dtype)  # repeats accumulate
    yv = RNG.normal(size=6).astype(dtype)
    src = _compare([x, y, s, i], outs, xv, yv, np.asarray(0.5, dtype=dtype), iv)
    assert "og_gather_" in src and "og_scatter_" in src
    # strided x, y and indices, and a length-1 y broadcast over the indices
    _compare([x, y, s, i], outs, RNG.normal(size=14).astype(dtype)[::2],
             RNG.normal(size=12).astype(dtype)[::-2], np.asarray(2, dtype=dtype),
             np.repeat(iv, 2)[::2])
    y1 = pt.tensor("y1", dtype=dtype, shape=(1,))  # only a static length 1 broadcasts
    outs1 = [advanced_inc_subtensor1(x, y1, i)]
    _compare([x, y1, i], outs1, xv, yv[:1], iv)


def test_negative_and_out_of_range_indices():
    x = pt.dvector("x")
    i = pt.lvector("i")
    y = pt.dvector("y")
    outs = [advanced_subtensor1(x, i), advanced_inc_subtensor1(x, y, i)]
    xv = np.arange(5.0)
    _compare([x, y, i], outs, xv, np.ones(3), np.array([-1, -5, 4]))
    c = function([x, y, i], outs, mode=C_PLAIN)
    for bad in ([5], [-6]):
        with pytest.raises(IndexError, match="out of bounds for axis 0 with size 5"):
            c(xv, np.ones(1), np.array(bad))
    with pytest.raises(ValueError, match="cannot broadcast 2 values onto 3"):
        c(xv, np.ones(2), np.array([0, 1, 2]))
    np.testing.assert_array_equal(xv, np.arange(5.0))  # never written
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        c(xv, np.ones(1), np.array([0, 1, 2]))  # y's type does not declare length 1


def test_scatter_add_in_place_and_its_gradient_under_fast_run():
    """The hierarchical-model pattern: a[group] forward, bincount-like sum backward."""
    group = np.array([0, 2, 2, 1, 0, 2, 2])
    a = pt.dvector("a")
    r = pt.dvector("r")
    cost = pt.sum(a[pt.as_tensor_variable(group)] * r)
    f = opgraph.function([a, r], [cost, opgraph.grad(cost, a)], mode="FAST_RUN")
    av, rv = RNG.normal(size=3), RNG.normal(size=7)
    value, grad = f(av, rv)
    np.testing.assert_allclose(value, np.sum(av[group] * rv))
    np.testing.assert_allclose(grad, np.bincount(group, rv, minlength=3))
    np.testing.assert_array_equal(rv, rv.copy())
    src = f.linker.module_source
    assert "og_gather_float64_int64" in src and "og_scatter_float64_int64" in src


def test_in_place_scatter_never_reads_what_it_writes():
    """y is a view of x itself: the update uses y's values from before the write."""
    x = pt.dvector("x")
    i = pt.lvector("i")
    upd = advanced_inc_subtensor1(x * 1.0, (x * 1.0)[1:4], i)
    c = function([x, i], upd, mode="FAST_RUN")
    xv = np.arange(6.0)
    iv = np.array([2, 3, 4])
    expected = xv.copy()
    np.add.at(expected, iv, xv[1:4].copy())
    np.testing.assert_array_equal(c(xv, iv), expected)


@pytest.mark.parametrize("present", [(True, True, False), (True, False, False),
                                     (False, True, True), (True, True, True)])
def test_slice_length_follows_python_slices(present):
    from opgraph.tensor.indexing import SliceLength, SliceSpec

    n = pt.lscalar("n")
    parts = [pt.lscalar(name) for name, on in zip(("start", "stop", "step"), present) if on]
    out = SliceLength(SliceSpec(*present))(n, *parts)
    c = function([n, *parts], out, mode=C_PLAIN)
    assert "PySlice_AdjustIndices" in c.linker.module_source
    values = [-12, -3, -1, 0, 1, 2, 5, 11]
    for nv in (0, 1, 7, 10):
        for combo in np.ndindex(*(len(values),) * len(parts)):
            args = [values[k] for k in combo]
            bounds = iter(args)
            sl = slice(*(next(bounds) if on else None for on in present))
            if sl.step == 0:
                with pytest.raises(ValueError, match="slice step cannot be zero"):
                    c(np.int64(nv), *map(np.int64, args))
                continue
            assert int(c(np.int64(nv), *map(np.int64, args))) == len(range(nv)[sl])
