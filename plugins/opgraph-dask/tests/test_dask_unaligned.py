"""Chunks that arrive unaligned (a cluster worker unpickles them at any byte offset) are
copied before they reach a compiled function, which refuses unaligned data."""

from __future__ import annotations

import numpy as np
from opgraph_dask.compiled import aligned
from opgraph_dask.kernels import NodeKernel

import opgraph.tensor as pt


def _unaligned(values: np.ndarray) -> np.ndarray:
    raw = bytearray(values.nbytes + 1)
    out = np.frombuffer(raw, dtype=values.dtype, offset=1, count=values.size).reshape(
        values.shape)
    out[...] = values
    assert not out.flags.aligned
    return out


def test_aligned_copies_only_unaligned_arrays():
    good = np.arange(6.0)
    bad = _unaligned(np.arange(6.0))
    got = aligned([good, bad, 3.0])
    assert got[0] is good and got[2] == 3.0
    assert got[1].flags.aligned
    np.testing.assert_array_equal(got[1], bad)


def test_node_kernel_runs_on_an_unaligned_chunk():
    x = pt.dmatrix("X")
    kernel = NodeKernel(pt.exp(x).owner)
    chunk = np.linspace(-1, 1, 12).reshape(3, 4)
    np.testing.assert_allclose(kernel(_unaligned(chunk)), np.exp(chunk))
