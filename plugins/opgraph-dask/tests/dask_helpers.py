"""Shared helpers: compile a graph for "py" and DASK, ragged chunkings for hypothesis."""

from __future__ import annotations

import itertools

import dask.array as da
import numpy as np
from hypothesis import strategies as st

from opgraph import function
from opgraph.compile.mode import Mode


def compile_both(inputs, outputs, **kwargs):
    """The same graph compiled with the Python reference linker and with DASK."""
    ref = function(inputs, outputs, mode=Mode(linker="py"), **kwargs)
    fd = function(inputs, outputs, mode="DASK", **kwargs)
    return ref, fd


@st.composite
def ragged_chunks(draw, n: int) -> tuple[int, ...]:
    """A split of ``n`` into positive parts of unequal lengths (one part for n <= 1)."""
    if n <= 1:
        return (n,)
    cuts = draw(st.sets(st.integers(1, n - 1), max_size=min(n - 1, 4)))
    edges = [0, *sorted(cuts), n]
    return tuple(b - a for a, b in itertools.pairwise(edges))


@st.composite
def chunked_array(draw, shape: tuple[int, ...], seed: int = 0):
    """(NumPy values, the same values as a dask array with ragged chunks)."""
    chunks = tuple(draw(ragged_chunks(n)) for n in shape)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)) + seed)
    values = rng.normal(size=shape)
    return values, da.from_array(values, chunks=chunks)


def assert_same(ref_out, dask_out, rtol=1e-10):
    """Equal values, NumPy arrays of the same dtype and shape."""
    ref_list = ref_out if isinstance(ref_out, list) else [ref_out]
    got_list = dask_out if isinstance(dask_out, list) else [dask_out]
    assert len(ref_list) == len(got_list)
    for r, g in zip(ref_list, got_list):
        assert isinstance(g, np.ndarray), type(g)
        assert g.dtype == r.dtype and g.shape == r.shape, (g.dtype, r.dtype, g.shape, r.shape)
        np.testing.assert_allclose(g, r, rtol=rtol, atol=1e-12)


def slow_square_block(block, seconds=0.15):
    """A chunk kernel that takes a while (so a worker can be killed mid-computation)."""
    import time

    time.sleep(seconds)
    return block * block
