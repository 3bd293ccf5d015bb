"""The loops of c/small.h (Cholesky and triangular solves of double matrices up to 64 rows).

Each result is compared with SciPy and with the Python perform, at sizes on both
sides of the 64-row limit (65 takes LAPACK), for every layout the loops read
through (C, Fortran, strided, reversed) and every flag; errors are LAPACK's.
"""

from __future__ import annotations

import numpy as np
import opgraph_linalg as la
import pytest
import scipy.linalg
from helpers_la import compile_py, spd
from opgraph_linalg.constructors import ExtractDiag

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.gradient import grad

pytest.importorskip("opgraph_c")

C_MODE = Mode(linker="c", optimizer="fast_compile")
SIZES = [1, 2, 5, 30, 64, 65]


def layouts(m):
    """The same values C-ordered, Fortran-ordered, as a strided view and reversed twice."""
    wide = np.zeros((m.shape[0], 2 * m.shape[1]), m.dtype)
    wide[:, ::2] = m
    return [m, np.asfortranarray(m), wide[:, ::2], m[::-1, ::-1].copy()[::-1, ::-1]]


@pytest.mark.parametrize("n", SIZES)
def test_cholesky_matches_scipy_every_layout(rng, n):
    a = pt.matrix("a")
    outs = [la.cholesky(a), la.cholesky(a, lower=False), la.cholesky(a, check_finite=True)]
    fc, fp = function([a], outs, mode=C_MODE), compile_py([a], outs)
    k = spd(rng, n)
    k_low = np.tril(k) + np.triu(rng.normal(size=(n, n)), 1)  # only one triangle is read
    k_up = np.triu(k) + np.tril(rng.normal(size=(n, n)), -1)
    for kv in layouts(k):
        lo, up, lo2 = fc(kv)
        np.testing.assert_allclose(lo, scipy.linalg.cholesky(k, lower=True), rtol=1e-12,
                                   atol=1e-12 * n)
        np.testing.assert_allclose(up, scipy.linalg.cholesky(k, lower=False), rtol=1e-12,
                                   atol=1e-12 * n)
        np.testing.assert_array_equal(lo, lo2)
        assert lo.flags.c_contiguous and np.all(np.triu(lo, 1) == 0)
        assert np.all(np.tril(up, -1) == 0)
    np.testing.assert_allclose(fc(k_low)[0], fp(k_low)[0], rtol=1e-12, atol=1e-12 * n)
    np.testing.assert_allclose(fc(k_up)[1], fp(k_up)[1], rtol=1e-12, atol=1e-12 * n)


@pytest.mark.parametrize("scale", [1e-150, 1e150])
def test_cholesky_extreme_scales(rng, scale):
    a = pt.matrix("a")
    f = function([a], la.cholesky(a), mode=C_MODE)
    k = spd(rng, 12) * scale
    np.testing.assert_allclose(f(k), scipy.linalg.cholesky(k, lower=True), rtol=1e-12)


def test_cholesky_failures_as_lapack(rng):
    a = pt.matrix("a")
    nan_out = function([a], la.cholesky(a), mode=C_MODE)
    with pytest.warns(FutureWarning):
        raising = la.cholesky(a, on_error="raise")
    f_raise = function([a], raising, mode=C_MODE)
    checked = function([a], la.cholesky(a, check_finite=True), mode=C_MODE)
    k = spd(rng, 8)
    k[7, 7] = -1e6  # only the last leading minor is not positive definite
    assert np.isnan(nan_out(k)).all()
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        f_raise(k)
    semi = np.ones((3, 3))  # positive semi-definite: a zero pivot fails, as in potrf
    assert np.isnan(nan_out(semi)).all()
    bad = spd(rng, 8)
    bad[7, 2] = np.inf
    with pytest.raises(ValueError, match="infs or NaNs"):
        checked(bad)
    nan_diag = spd(rng, 4)
    nan_diag[2, 2] = np.nan
    assert np.isnan(nan_out(nan_diag)).all()
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        f_raise(nan_diag)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", [0, 1])
def test_solve_triangular_matches_scipy(rng, n, lower, trans):
    a, b, v = pt.matrix("a"), pt.matrix("b"), pt.vector("v")
    outs = [la.solve_triangular(a, b, lower=lower, trans=trans),
            la.solve_triangular(a, v, lower=lower, trans=trans, unit_diagonal=True),
            la.solve_triangular(a, b, lower=lower, trans=trans, check_finite=False)]
    fc, fp = function([a, b, v], outs, mode=C_MODE), compile_py([a, b, v], outs)
    tri = rng.normal(size=(n, n)) + 3 * np.eye(n) * np.sign(rng.normal(size=n))
    tri = tri / np.sqrt(n)  # well conditioned, with the other triangle not zero
    bv, vv = rng.normal(size=(n, 3)), rng.normal(size=n)
    for av in layouts(tri):
        for bb in (bv, np.asfortranarray(bv), bv[:, ::-1]):
            got = fc(av, bb, vv)
            want = [scipy.linalg.solve_triangular(tri, bb, lower=lower, trans=trans),
                    scipy.linalg.solve_triangular(tri, vv, lower=lower, trans=trans,
                                                  unit_diagonal=True)]
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-9 * np.abs(w).max())
            for g, w in zip(got, fp(av, bb, vv)):
                assert g.shape == w.shape and g.dtype == w.dtype
                np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-9 * np.abs(w).max())


def test_solve_triangular_other_rhs_types_and_empty(rng):
    a, bi, b = pt.matrix("a"), pt.matrix("bi", dtype="int64"), pt.matrix("b")
    f = function([a, bi], la.solve_triangular(a, bi, lower=True), mode=C_MODE)
    tri = np.tril(rng.normal(size=(4, 4))) + 4 * np.eye(4)
    bv = np.arange(8).reshape(4, 2)
    np.testing.assert_allclose(f(tri, bv), scipy.linalg.solve_triangular(tri, bv, lower=True),
                               rtol=1e-12)
    g = function([a, b], la.solve_triangular(a, b, lower=True), mode=C_MODE)
    assert g(np.zeros((0, 0)), np.zeros((0, 2))).shape == (0, 2)
    assert g(tri, np.zeros((4, 0))).shape == (4, 0)


def test_solve_triangular_errors_as_lapack(rng):
    a, b = pt.matrix("a"), pt.matrix("b")
    f = function([a, b], la.solve_triangular(a, b, lower=True), mode=C_MODE)
    unit = function([a, b], la.solve_triangular(a, b, lower=True, unit_diagonal=True),
                    mode=C_MODE)
    tri = np.tril(rng.normal(size=(5, 5))) + 4 * np.eye(5)
    sing = tri.copy()
    sing[3, 3] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="singular matrix: resolution failed at "
                                                    "diagonal 3"):
        f(sing, np.ones((5, 1)))
    np.testing.assert_allclose(unit(sing, np.ones((5, 1))), scipy.linalg.solve_triangular(
        sing, np.ones((5, 1)), lower=True, unit_diagonal=True), rtol=1e-12)
    with pytest.raises(ValueError, match="infs or NaNs"):
        f(tri, np.full((5, 1), np.nan))
    upper_inf = tri.copy()
    upper_inf[0, 4] = np.inf  # not in the triangle read, but SciPy checks the whole matrix
    with pytest.raises(ValueError, match="infs or NaNs"):
        f(upper_inf, np.ones((5, 1)))
    with pytest.raises(ValueError, match="rows differ"):
        f(tri, np.ones((4, 1)))


def test_intermediates_written_into_previous_arrays_stay_right(rng):
    """Linalg results inside a graph reuse their previous call's array (nothing else holds
    it): every call's values are fresh (the pullback's and AllocDiag's zero triangles
    included), and the arrays a call returned are never written by the next."""
    k, y = pt.matrix("k"), pt.vector("y")
    chol = la.cholesky(k)
    alpha = la.solve_triangular(chol, y, lower=True)
    beta = la.solve_triangular(chol, alpha, lower=True, trans=1)
    d = ExtractDiag(0, 0, 1)(chol)
    nll = 0.5 * pt.dot(alpha, alpha) + pt.log(d).sum() + (pt.diag(d ** 2) * k).sum()
    outs = [nll, grad(nll, k), beta]
    fc = function([k, y], outs, mode=Mode(linker="c", optimizer="fast_run"))
    fp = compile_py([k, y], outs)
    held = []
    for n in (6, 6, 9, 6):
        kv, yv = spd(rng, n), rng.normal(size=n)
        got, want = fc(kv, yv), fp(kv, yv)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
        held.append(([np.copy(g) for g in got], got))
    for copies, arrays in held:
        for c, a in zip(copies, arrays):
            np.testing.assert_array_equal(a, c)
