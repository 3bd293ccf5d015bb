"""AllocDiag against NumPy: a matrix's diagonal (the fast path) and the general layouts."""

from __future__ import annotations

import numpy as np
import pytest
from opgraph_linalg.constructors import AllocDiag

import opgraph
import opgraph.tensor as pt


@pytest.mark.parametrize("offset", [0, 2, -3])
@pytest.mark.parametrize("axes", [(0, 1), (-2, -1), (1, 0)])
@pytest.mark.parametrize("shape_extra", [(0, 0), (3, 0), (0, 2)])
def test_alloc_diag_of_a_matrix_matches_numpy(offset, axes, shape_extra):
    values = np.random.default_rng(0).normal(size=5)
    n = 5 + abs(offset)
    # a non-square `like` whose extra rows/columns lie beyond the diagonal's end
    like = np.zeros((n + shape_extra[0], n + shape_extra[1]))
    if axes == (1, 0):
        like = like.T
    v, m = pt.vector("v"), pt.matrix("m")
    f = opgraph.function([v, m], AllocDiag(offset, *axes)(v, m), mode="FAST_COMPILE")
    expect = np.zeros(like.shape)
    square = np.diag(values, offset)
    if axes == (1, 0):
        square = square.T
    expect[:n, :n] = square
    np.testing.assert_array_equal(f(values, like), expect)


def test_alloc_diag_batched_matches_numpy():
    values = np.arange(6.0).reshape(2, 3)
    v, m = pt.matrix("v"), pt.tensor3("m")
    f = opgraph.function([v, m], AllocDiag(1, -2, -1)(v, m), mode="FAST_COMPILE")
    expect = np.stack([np.diag(row, 1) for row in values])
    np.testing.assert_array_equal(f(values, np.zeros((2, 4, 4))), expect)
