"""opgraph.tensor.utils: array hashing and numeric shape inference."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph
from opgraph.tensor.utils import hash_from_ndarray, shape_of_variables


def test_hash_from_ndarray_tells_values_shapes_and_dtypes_apart():
    a = np.arange(12.0).reshape(3, 4)
    digests = {hash_from_ndarray(v) for v in (
        a, a.T, a.reshape(4, 3), a.astype("float32"), np.zeros((1, 0)), np.zeros((2, 0)),
        np.asarray(1), np.asarray(-1),
    )}
    assert len(digests) == 8
    assert hash_from_ndarray(a[::2]) == hash_from_ndarray(a[::2].copy())
    assert hash_from_ndarray(a.T) == hash_from_ndarray(np.ascontiguousarray(a.T))


def test_shape_of_variables_matches_numpy():
    x = pt.matrix("x")
    y = pt.dot(x, x.T)[1:]
    z = pt.concatenate([x, x], axis=1).sum(axis=0)
    fgraph = FunctionGraph([x], [y, z], clone=False)
    shapes = shape_of_variables(fgraph, {x: (5, 3)})
    xv = np.ones((5, 3))
    assert shapes[x] == (5, 3)
    assert shapes[y] == (xv @ xv.T)[1:].shape
    assert shapes[z] == np.concatenate([xv, xv], axis=1).sum(axis=0).shape


def test_shape_of_variables_rejects_variables_of_another_graph():
    x = pt.matrix("x")
    fgraph = FunctionGraph([x], [x[1:]])  # cloned: x is not in it
    with pytest.raises(ValueError, match="not a variable of this FunctionGraph"):
        shape_of_variables(fgraph, {x: (10, 10)})
