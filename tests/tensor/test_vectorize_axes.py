"""vectorize_graph with replacements that add more than one batch axis."""

from __future__ import annotations

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.replace import vectorize_graph

from .helpers import evaluate


def test_several_batch_axes_are_added_one_at_a_time():
    x, y = pt.dscalar("x"), pt.dvector("y")
    out = (x * y).sum() + pt.exp(x)
    grid, rows = pt.dmatrix("grid"), pt.dmatrix("rows")
    new_out = vectorize_graph(out, {x: grid, y: rows})
    assert new_out.type.ndim == 2
    g = np.arange(6.0).reshape(2, 3) / 6
    r = np.arange(12.0).reshape(3, 4)
    # grid adds axes (2, 3); rows adds (3,), aligned to the right as in NumPy
    expected = (g[:, :, None] * r).sum(-1) + np.exp(g)
    np.testing.assert_allclose(evaluate(new_out, {grid: g, rows: r}), expected)


def test_three_batch_axes_on_a_single_replacement():
    x = pt.dvector("x")
    out = pt.dot(x, x)
    cube = pt.tensor("cube", dtype="float64", shape=(None, None, None, None))
    new_out = vectorize_graph(out, {x: cube})
    value = np.arange(24.0).reshape(2, 3, 2, 2)
    np.testing.assert_allclose(evaluate(new_out, {cube: value}), (value**2).sum(-1))
