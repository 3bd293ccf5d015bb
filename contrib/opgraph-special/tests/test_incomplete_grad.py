"""The shape-parameter derivatives of gammainc, gammaincc and betainc (PyMC's logcdfs of
Gamma, NegativeBinomial, Beta...: Censored, Truncated and hurdle models need them)."""

from __future__ import annotations

import numpy as np
import opgraph_special as special
import pytest
import scipy.special as sc
from conftest import compile_py

import opgraph.tensor as pt
from opgraph.gradient import grad

# both branches of each: the series (x < k + 1) and the continued fraction, small and
# large shapes, and tails where the derivative is tiny
GAMMA_POINTS = [(0.3, 0.01), (0.5, 10.0), (1.5, 2.0), (3.0, 2.0), (10.0, 3.0), (2.0, 30.0),
                (20.0, 25.0), (30.0, 60.0), (7.0, 7.5)]
BETA_POINTS = [(0.4, 0.6, 0.05), (1.0, 2.0, 0.3), (3.0, 11.0, 0.7), (20.0, 2.0, 0.97),
               (2.5, 1.5, 0.5), (0.7, 20.0, 0.01)]


def _central(fn, x: float, h: float = 1e-6) -> float:
    return (fn(x + h) - fn(x - h)) / (2 * h)


def _want_gamma(k: float, x: float) -> float:
    """dP/dk by differences of whichever of P and Q = 1 - P is the smaller (no cancellation)."""
    if sc.gammainc(k, x) < 0.5:
        return _central(lambda t: sc.gammainc(t, x), k)
    return -_central(lambda t: sc.gammaincc(t, x), k)


def _want_beta(a: float, b: float, x: float) -> tuple[float, float]:
    """dI/da, dI/db likewise, with 1 - I_x(a, b) = I_(1-x)(b, a)."""
    if sc.betainc(a, b, x) < 0.5:
        return (_central(lambda t: sc.betainc(t, b, x), a),
                _central(lambda t: sc.betainc(a, t, x), b))
    return (-_central(lambda t: sc.betainc(b, t, 1 - x), a),
            -_central(lambda t: sc.betainc(t, a, 1 - x), b))


def test_gammainc_and_gammaincc_derivatives_in_k():
    k, x = pt.dvector("k"), pt.dvector("x")
    gp = grad(special.gammainc(k, x).sum(), k)
    gq = grad(special.gammaincc(k, x).sum(), k)
    ks, xs = (np.array(c) for c in zip(*GAMMA_POINTS))
    got_p, got_q = compile_py([k, x], [gp, gq])(ks, xs)
    want = np.array([_want_gamma(kk, xx) for kk, xx in GAMMA_POINTS])
    np.testing.assert_allclose(got_p, want, rtol=1e-6, atol=1e-14)
    np.testing.assert_allclose(got_q, -want, rtol=1e-6, atol=1e-14)


def test_betainc_derivatives_in_a_and_b():
    a, b, x = pt.dvector("a"), pt.dvector("b"), pt.dvector("x")
    ga, gb = grad(special.betainc(a, b, x).sum(), [a, b])
    av, bv, xv = (np.array(c) for c in zip(*BETA_POINTS))
    got_a, got_b = compile_py([a, b, x], [ga, gb])(av, bv, xv)
    want_a, want_b = zip(*(_want_beta(*point) for point in BETA_POINTS))
    np.testing.assert_allclose(got_a, want_a, rtol=1e-6, atol=1e-14)
    np.testing.assert_allclose(got_b, want_b, rtol=1e-6, atol=1e-14)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_edges_and_dtypes(dtype):
    """0 where the function is flat (x at its bounds), NaN outside the domain; the
    derivative has the input's float dtype."""
    k, x = pt.vector("k", dtype=dtype), pt.vector("x", dtype=dtype)
    gk = grad(special.gammainc(k, x).sum(), k)
    b = pt.vector("b", dtype=dtype)
    gb = grad(special.betainc(k, b, x).sum(), b)
    assert gk.dtype == gb.dtype == dtype
    fn = compile_py([k, x, b], [gk, gb])
    vk, vb = fn(np.array([2.0, 2.0, -1.0], dtype), np.array([0.0, np.inf, 1.0], dtype),
                np.array([1.0, 1.0, 1.0], dtype))
    assert vk[0] == 0 and vk[1] == 0 and np.isnan(vk[2])
    vb = fn(np.array([2.0, 2.0], dtype), np.array([0.0, 1.0], dtype),
            np.array([3.0, 3.0], dtype))[1]
    assert np.all(vb == 0)
