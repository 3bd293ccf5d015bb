"""The batching rule of CheckAndRaise: vectorize_graph keeps every row's check."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.graph.replace import vectorize_graph
from opgraph.raise_op import CheckAndRaise, assert_op
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.math import second

from .helpers import evaluate


def test_vectorize_check_and_raise_keeps_the_check_per_row() -> None:
    x, y = pt.vector("x"), pt.vector("y")
    out = assert_op(x, pt.all(y >= 0))
    bx = pt.matrix("bx", shape=(2, None))
    by = pt.matrix("by", shape=(2, None))
    xv, yv = np.arange(3.0), np.arange(4.0)
    bxv, byv = np.arange(6.0).reshape(2, 3), np.arange(8.0).reshape(2, 4)

    only_x = vectorize_graph(out, {x: bx})
    assert only_x.type.shape == (2, None) and isinstance(only_x.owner.op, CheckAndRaise)
    np.testing.assert_array_equal(evaluate(only_x, {bx: bxv, y: yv}), bxv)
    with pytest.raises(AssertionError):
        evaluate(only_x, {bx: bxv, y: -yv - 1})

    only_y = vectorize_graph(out, {y: by})
    assert only_y.type.shape == (2, None) and only_y.owner.op == second
    assert isinstance(only_y.owner.inputs[1].owner.op, DimShuffle)
    np.testing.assert_array_equal(evaluate(only_y, {x: xv, by: byv}),
                                  np.broadcast_to(xv, (2, 3)))
    bad = byv.copy()
    bad[1, 2] = -1.0  # one row fails: the whole check fails
    with pytest.raises(AssertionError):
        evaluate(only_y, {x: xv, by: bad})

    both = vectorize_graph(out, {x: bx, y: by})
    assert both.owner.op == second and isinstance(both.owner.inputs[1].owner.op, CheckAndRaise)
    np.testing.assert_array_equal(evaluate(both, {bx: bxv, by: byv}), bxv)
