"""Invariants checked on many cases: equality follows the graph, results follow NumPy."""

from __future__ import annotations

import numpy as np
from conftest import compile_vm
from hypothesis import given, settings
from hypothesis import strategies as st
from opgraph_ofg import OpFromGraph

import opgraph.tensor as pt

small = st.floats(-3, 3, allow_nan=False, allow_infinity=False).map(lambda v: v + 0.0)


def _op(c1: float, c2: float, inline: bool = False) -> OpFromGraph:
    a, b = pt.vectors("a", "b")
    return OpFromGraph([a, b], [pt.tanh(a * c1) + b * c2], inline=inline)


@settings(max_examples=40, deadline=None)
@given(small, small, small, small)
def test_equal_iff_same_constants_and_hash_agrees(c1, c2, d1, d2):
    p, q = _op(c1, c2), _op(d1, d2)
    same = (np.float64(c1), np.float64(c2)) == (np.float64(d1), np.float64(d2))
    assert (p == q) is same
    if p == q:
        assert hash(p) == hash(q)


X = pt.vector("x")
Y = pt.vector("y")
FN = compile_vm([X, Y], _op(0.7, -1.3)(X, Y))


@settings(max_examples=40, deadline=None)
@given(st.lists(small, min_size=1, max_size=6), st.data())
def test_results_match_numpy(xs, data):
    ys = data.draw(st.lists(small, min_size=len(xs), max_size=len(xs)))
    xv, yv = np.array(xs), np.array(ys)
    np.testing.assert_allclose(FN(xv, yv), np.tanh(xv * 0.7) + yv * -1.3, rtol=1e-12)
