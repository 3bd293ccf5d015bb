"""The BLAS reductions (sum over rows/columns -> Gemv, sum of squares -> dot).

Each rewritten graph is compared with the unrewritten one on random inputs,
on transposed and strided views and on inf/nan; the rewrite is checked to
have fired, and to leave alone what it must not touch.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import assert_same, compile_pair, op_counts

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.tensor.reduction import Sum

RNG = np.random.default_rng(20)


def counts_of(fn) -> dict[str, int]:
    """Gemv, Dot and Sum nodes in a compiled function (op_counts names a Sum by its Add)."""
    nodes = fn.maker.fgraph.apply_nodes
    c = op_counts(fn)
    return {"Gemv": c["Gemv"], "Dot": c["Dot"],
            "Sum": sum(isinstance(n.op, Sum) for n in nodes)}


def views(a: np.ndarray) -> list[np.ndarray]:
    """``a`` as row-major, column-major, transposed-back, stepped and reversed arrays."""
    wide = np.repeat(a, 2, axis=-1)[..., ::2]
    out = [a, np.asfortranarray(a), np.ascontiguousarray(a.T).T, wide, a[::-1][::-1].copy()]
    if a.ndim == 2:
        out.append(np.ascontiguousarray(a[::-1, ::-1])[::-1, ::-1])
    for v in out:
        np.testing.assert_array_equal(v, a)
    return out


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_matrix_row_and_column_sums_become_gemv(axis):
    m = pt.matrix("m")
    b = pt.matrix("b")
    for expr in (m, m * b, (m * b).T, pt.tanh(m)):
        out = expr.sum(axis=axis)
        fast, ref = compile_pair([m, b], out)
        counts = counts_of(fast)
        assert counts["Gemv"] == 1 and counts["Sum"] == 0, counts
        mv, bv = RNG.standard_normal((7, 5)), RNG.standard_normal((7, 5))
        for v in views(mv):
            assert_same(fast, ref, v, bv, rtol=1e-12, atol=1e-12)
        assert_same(fast, ref, np.zeros((0, 5)), np.zeros((0, 5)))
        assert_same(fast, ref, np.zeros((7, 0)), np.zeros((7, 0)))


def test_row_sum_propagates_inf_and_nan_like_sum():
    m = pt.matrix("m")
    fast, ref = compile_pair([m], [m.sum(axis=0), m.sum(axis=1)])
    mv = RNG.standard_normal((4, 3))
    mv[0, 0], mv[1, 1], mv[2, 1], mv[3, 2] = np.inf, np.nan, -np.inf, np.inf
    for got, want in zip(fast(mv), ref(mv), strict=True):
        np.testing.assert_array_equal(got, want)


def test_sums_the_rewrite_must_leave_alone():
    x32 = pt.matrix("x32", dtype="float32")   # accumulates in float64: not BLAS
    xi = pt.matrix("xi", dtype="int64")
    t3 = pt.tensor3("t3")
    m = pt.matrix("m")
    for out in (x32.sum(axis=0), xi.sum(axis=1), t3.sum(axis=0), m.sum(), m.sum(axis=(0, 1))):
        fast, _ref = compile_pair([x32, xi, t3, m], out)
        counts = counts_of(fast)
        assert counts["Gemv"] == 0 and counts["Sum"] == 1, (out, counts)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_sum_of_squares_becomes_a_dot(ndim):
    x = pt.tensor("x", dtype="float64", shape=(None,) * ndim)
    y = pt.tensor("y", dtype="float64", shape=(None,) * ndim)
    d = x - y
    for out in (pt.sum(pt.sqr(d)), pt.sum(d * d), pt.sum(d**2), pt.mean(d**2)):
        fast, ref = compile_pair([x, y], out)
        counts = counts_of(fast)
        assert counts["Dot"] == 1 and counts["Sum"] == 0, counts
        shape = (4, 3, 2)[:ndim]
        xv, yv = RNG.standard_normal(shape), RNG.standard_normal(shape)
        for v in views(xv) if ndim > 1 else (xv, xv[::-1][::-1]):
            assert_same(fast, ref, v, yv, rtol=1e-12)
        bad = xv.copy()
        bad.flat[1] = np.inf
        assert_same(fast, ref, bad, yv)
        bad.flat[2] = np.nan
        assert_same(fast, ref, bad, yv)
        if ndim > 1:
            assert_same(fast, ref, np.zeros((0, *shape[1:])), np.zeros((0, *shape[1:])))


def test_sum_of_squares_left_alone_when_the_squares_are_used_elsewhere():
    x, y = pt.vector("x"), pt.vector("y")
    d = x - y
    sq = pt.sqr(d)
    fast, ref = compile_pair([x, y], [pt.sum(sq), sq])
    assert counts_of(fast)["Dot"] == 0
    xv, yv = RNG.standard_normal(6), RNG.standard_normal(6)
    for got, want in zip(fast(xv, yv), ref(xv, yv), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    m = pt.matrix("m")
    fast, _ = compile_pair([m], pt.sum(pt.sqr(m), axis=0))   # not every axis
    assert counts_of(fast)["Dot"] == 0


def test_the_rewrites_can_be_excluded_by_tag():
    m = pt.matrix("m")
    mode = get_mode("FAST_RUN").excluding("blas")
    fast, _ = compile_pair([m], [m.sum(axis=0), pt.sum(pt.sqr(m * 2.0))], mode=mode)
    counts = counts_of(fast)
    assert counts["Gemv"] == 0 and counts["Dot"] == 0 and counts["Sum"] == 2, counts
