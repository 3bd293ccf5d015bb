"""einsum's private helpers that PyTensor code uses: _iota, _delta, _general_dot."""

from __future__ import annotations

from functools import partial

import numpy as np

import opgraph.tensor as pt
from opgraph.tensor.einsum import _delta, _general_dot, _iota

from .helpers import evaluate


def test_iota_and_delta():
    rows = np.broadcast_to(np.arange(4)[:, None], (4, 3))
    np.testing.assert_array_equal(evaluate(_iota((4, 3), 0)), rows)
    np.testing.assert_array_equal(evaluate(_iota((4, 3), 1)), np.broadcast_to(np.arange(3), (4, 3)))
    np.testing.assert_array_equal(evaluate(_delta((3, 3), (0, 1))), np.eye(3))
    expected = np.einsum("ij,k->ijk", np.eye(2), np.ones(2))
    np.testing.assert_array_equal(evaluate(_delta((2, 2, 2), (0, 1))), expected)


def test_general_dot_broadcasts_batches():
    rng = np.random.default_rng(3)
    axes = [(-3, -2), (-1, -4)]
    x = pt.tensor("x", shape=(5, 4, 2, 6, 7, 3))
    y = pt.tensor("y", shape=(4, 7, 5, 2, 6))
    out = _general_dot((x, y), axes, [(0, 1), (0,)])
    xv, yv = rng.normal(size=x.type.shape), rng.normal(size=y.type.shape)
    ref = np.vectorize(partial(np.tensordot, axes=axes),
                       signature="(l0,a0,a1,l1),(a1,r0,r1,a0)->(l0,l1,r0,r1)")(xv, yv)
    np.testing.assert_allclose(evaluate(out, {x: xv, y: yv}), ref)
