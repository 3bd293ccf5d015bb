"""The C of CholeskyPullback, ExtractDiag and AllocDiag (c/structured.h) against their perform.

Each graph is compiled with the C linker and with the Python VM and the results
compared; gradients through the C are checked against finite differences.
The pullback has two C paths, loops for n <= 96 and trmm + sygst above: both
are exercised.
"""

from __future__ import annotations

import numpy as np
import opgraph_linalg as la
import pytest
from helpers_la import compile_py, spd
from opgraph_linalg.cholesky_grad import CholeskyPullback
from opgraph_linalg.constructors import AllocDiag, ExtractDiag

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.gradient import grad, verify_grad

pytest.importorskip("opgraph_c")

C_MODE = Mode(linker="c", optimizer="fast_compile")


def both(inputs, outputs):
    fc = function(inputs, outputs, mode=C_MODE)
    return fc, compile_py(inputs, outputs)


def factor(rng, n, dtype="float64", scale=1.0):
    return (np.linalg.cholesky(spd(rng, n)) * scale).astype(dtype)


def layouts(m):
    """The same matrix C-ordered, Fortran-ordered and as a strided view."""
    wide = np.zeros((m.shape[0], 2 * m.shape[1]), m.dtype)
    wide[:, ::2] = m
    return [m, np.asfortranarray(m), wide[:, ::2]]


@pytest.mark.parametrize("n", [1, 7, 30, 120])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pullback_matches_python(rng, n, dtype):
    c, g = pt.matrix("c", dtype=dtype), pt.matrix("g", dtype=dtype)
    fc, fp = both([c, g], [CholeskyPullback(True)(c, g), CholeskyPullback(False)(c, g)])
    assert fc.linker.module_source.count("ogla_cholesky_pullback(") >= 3  # defined, 2 calls
    low = factor(rng, n, dtype)
    gz = rng.normal(size=(n, n)).astype(dtype)
    tol = 2e-4 if dtype == "float32" else 1e-11
    for lv, gv in [*zip(layouts(low), layouts(gz)), (low.T.copy().T, gz.T)]:
        for got, want in zip(fc(lv, gv), fp(lv, gv)):
            assert got.dtype == want.dtype == np.dtype(dtype) and got.flags.c_contiguous
            scale = np.abs(want).max()
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)
    lower_out, upper_out = fc(low, gz)
    assert np.all(np.triu(lower_out, 1) == 0) and np.all(np.tril(upper_out, -1) == 0)


@pytest.mark.parametrize("scale", [1e-150, 1e150])
def test_pullback_extreme_scales(rng, scale):
    c, g = pt.matrix("c"), pt.matrix("g")
    fc, fp = both([c, g], CholeskyPullback(True)(c, g))
    low = factor(rng, 6, scale=scale)
    gz = rng.normal(size=(6, 6)) / scale
    got, want = fc(low, gz), fp(low, gz)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())


def test_pullback_nan_factor_empty_and_bad_shapes(rng):
    c, g = pt.matrix("c"), pt.matrix("g")
    fc, fp = both([c, g], CholeskyPullback(True)(c, g))
    low = factor(rng, 4)
    low[3, 0] = np.nan  # a failed factorisation (Cholesky with on_error="nan")
    assert np.isnan(fc(low, np.ones((4, 4)))).all()
    assert np.isnan(fp(low, np.ones((4, 4)))).all()
    assert fc(np.zeros((0, 0)), np.zeros((0, 0))).shape == (0, 0)
    with pytest.raises(ValueError, match=r"equal square matrices, got \(4, 4\) and \(3, 3\)"):
        fc(np.eye(4), np.eye(3))
    with pytest.raises(ValueError, match=r"equal square matrices, got \(3, 4\)"):
        fc(np.ones((3, 4)), np.ones((3, 4)))


def test_batched_cholesky_gradient_runs_the_c(rng):
    a = pt.tensor3("a")
    w = pt.tensor3("w")
    cost = (la.cholesky(a) * w).sum()
    fc, fp = both([a, w], grad(cost, a))
    assert "ogla_cholesky_pullback(" in fc.linker.module_source
    av, wv = spd(rng, 5, batch=(3,)), rng.normal(size=(3, 5, 5))
    np.testing.assert_allclose(fc(av, wv), fp(av, wv), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [5, 100])
def test_gp_nll_gradient_against_finite_differences(rng, n):
    y = rng.normal(size=n)

    def nll(k):
        chol = la.cholesky(k)
        alpha = la.solve_triangular(chol, y, lower=True)
        return 0.5 * pt.dot(alpha, alpha) + pt.log(pt.diag(chol)).sum()

    verify_grad(nll, [spd(rng, n)], rng=rng, mode=C_MODE, abs_tol=1e-6, rel_tol=1e-6)


def test_diag_ops_match_python(rng):
    x, m = pt.tensor3("x"), pt.matrix("m")
    v, v2, w = pt.matrix("v"), pt.matrix("v2"), pt.vector("w")
    mi = pt.matrix("mi", dtype="int32")
    outs = [ExtractDiag(1, 0, 2)(x), ExtractDiag(-1, -2, -1)(x), ExtractDiag(0, 0, 1)(m),
            ExtractDiag(0, 1, 0)(m), ExtractDiag(2, 0, 1)(mi),
            AllocDiag(1, 0, 2)(v, x), AllocDiag(-2, -2, -1)(v2, x), AllocDiag(0, 0, 1)(w, m),
            AllocDiag(-1, 1, 0)(w[:3], m)]
    fc, fp = both([x, m, v, v2, w, mi], outs)
    src = fc.linker.module_source
    assert src.count("ogla_extract_diag(") >= 6 and src.count("ogla_alloc_diag(") >= 5
    xv = rng.normal(size=(4, 5, 6))
    mv = rng.normal(size=(4, 4))[::-1].T  # not C-contiguous
    vals = [xv, mv, rng.normal(size=(5, 3)), rng.normal(size=(3, 4))[:, ::-1].T,
            np.arange(4.0), np.arange(20, dtype="int32").reshape(4, 5)]
    for got, want in zip(fc(*vals), fp(*vals)):
        assert got.dtype == want.dtype and got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)


def test_diag_ops_gradients_and_errors(rng):
    x = pt.matrix("x")
    cost = (AllocDiag(0, 0, 1)(ExtractDiag(0, 0, 1)(x) ** 2, x) * x).sum()
    verify_grad(lambda t: (AllocDiag(0, 0, 1)(ExtractDiag(0, 0, 1)(t) ** 2, t) * t).sum(),
                [rng.normal(size=(4, 4))], rng=rng, mode=C_MODE)
    f = function([x], cost, mode=C_MODE)
    xv = rng.normal(size=(3, 3))
    np.testing.assert_allclose(f(xv), (np.diag(xv) ** 3).sum())
    w = pt.vector("w")
    g = function([w, x], AllocDiag(0, 0, 1)(w, x), mode=C_MODE)
    with pytest.raises(IndexError, match="5 values do not fit on a diagonal of length 3"):
        g(np.ones(5), np.ones((3, 4)))
