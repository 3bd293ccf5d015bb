"""The C of cholesky / solve_triangular / solve / cho_solve against the Python perform.

Every graph is compiled twice, with the C linker and with the Python VM
(FAST_COMPILE), and the results compared; the generated module's source
shows the LAPACK path was taken.
"""

from __future__ import annotations

import warnings

import numpy as np
import opgraph_linalg as la
import pytest
import scipy.linalg
from helpers_la import compile_py, spd
from opgraph_linalg import c_impl
from opgraph_linalg.solvers import Solve

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.gradient import grad

pytest.importorskip("opgraph_c")


def compile_c(inputs, outputs):
    """The C linker without FAST_RUN's rewrites, so each Op reaches the linker as written."""
    return function(inputs, outputs, mode=Mode(linker="c", optimizer="fast_compile"))


def both(inputs, outputs, *values):
    fc, fp = compile_c(inputs, outputs), compile_py(inputs, outputs)
    return fc, fc(*values), fp(*values)


def assert_same(got, want, dtype="float64"):
    tol = 1e-4 if dtype == "float32" else 1e-10
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_core_ops_match_python(rng, dtype):
    a, b2, b1 = pt.matrix("a", dtype=dtype), pt.matrix("b", dtype=dtype), pt.vector("v",
                                                                                    dtype=dtype)
    outs = [
        la.cholesky(a), la.cholesky(a, lower=False),
        la.solve_triangular(a, b2, lower=True), la.solve_triangular(a, b1, lower=False),
        la.solve_triangular(a, b2, lower=True, trans=1),
        la.solve_triangular(a, b1, lower=False, trans="T", unit_diagonal=True),
        la.solve(a, b2), la.solve(a, b1, transposed=True), la.solve(a, b2, assume_a="pos"),
        la.solve(a, b1, assume_a="pos", lower=True),
        la.cho_solve((a, True), b2), la.cho_solve((a, False), b1),
    ]
    vals = [spd(rng, 6).astype(dtype), rng.normal(size=(6, 3)).astype(dtype),
            rng.normal(size=6).astype(dtype)]
    fc, got, want = both([a, b2, b1], outs, *vals)
    assert_same(got, want, dtype)
    src = fc.linker.module_source
    for fn in ("ogla_cholesky(", "ogla_solve_triangular(", "ogla_solve(", "ogla_cho_solve("):
        assert src.count(fn) >= 2, fn  # defined once, called at least once


def test_against_scipy_and_any_input_layout(rng):
    """Fortran-ordered, strided and integer inputs give SciPy's results."""
    a, b = pt.matrix("a"), pt.matrix("b")
    outs = [la.cholesky(a), la.solve_triangular(a, b, lower=True), la.solve(a, b)]
    fc = compile_c([a, b], outs)
    k = spd(rng, 5)
    bv = rng.normal(size=(5, 4))
    for av, bb in [(np.asfortranarray(k), np.asfortranarray(bv)),
                   (np.kron(k, np.ones((2, 2)))[::2, ::2], bv[:, ::-1])]:
        chol, tri, gen = fc(av, bb)
        np.testing.assert_allclose(chol, scipy.linalg.cholesky(k, lower=True), rtol=1e-12)
        np.testing.assert_allclose(tri, scipy.linalg.solve_triangular(k, bb, lower=True),
                                   rtol=1e-10)
        np.testing.assert_allclose(gen, np.linalg.solve(k, bb), rtol=1e-10)
    ai = pt.matrix("ai", dtype="int64")
    got = compile_c([ai], la.cholesky(ai))(np.array([[4, 2], [2, 3]]))
    np.testing.assert_allclose(got, np.linalg.cholesky(np.array([[4.0, 2], [2, 3]])))


def test_batched_and_broadcast_batch(rng):
    a, b = pt.tensor3("a"), pt.tensor3("b")
    a1 = pt.tensor3("a1", shape=(1, None, None))
    outs = [la.cholesky(a), la.solve_triangular(a, b, lower=True), la.solve(a, b),
            la.cho_solve((a, True), b), la.solve(a1, b), la.solve_triangular(a1, b)]
    vals = [spd(rng, 4, batch=(3,)), rng.normal(size=(3, 4, 2)), spd(rng, 4, batch=(1,))]
    fc, got, want = both([a, b, a1], outs, *vals)
    assert_same(got, want)
    assert fc.linker.module_source.count("n_batch") >= 6
    with pytest.raises(ValueError, match=r"do not broadcast: axis 0 has length 2 in input 1 \(b\)"):
        fc(vals[0], rng.normal(size=(2, 4, 2)), vals[2])


def test_empty_matrices_and_batches(rng):
    a, b = pt.tensor3("a"), pt.tensor3("b")
    outs = [la.cholesky(a), la.solve(a, b)]
    for n, batch in [(0, 2), (3, 0)]:
        vals = [np.broadcast_to(np.eye(n), (batch, n, n)).copy(), np.zeros((batch, n, 2))]
        _, got, want = both([a, b], outs, *vals)
        assert_same(got, want)


def test_not_positive_definite(rng):
    a = pt.matrix("a")
    got = compile_c([a], la.cholesky(a))(-np.eye(3))
    assert np.isnan(got).all()
    with pytest.warns(FutureWarning):
        raising = la.cholesky(a, on_error="raise")
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        compile_c([a], raising)(-np.eye(3))
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        compile_c([a], la.solve(a, pt.ones(3), assume_a="pos"))(-np.eye(3))


def test_bad_values_raise_clear_errors(rng):
    a, b = pt.matrix("a"), pt.matrix("b")
    with pytest.raises(ValueError, match=r"cholesky: a must be a square matrix, got shape \(3, 4"):
        compile_c([a], la.cholesky(a))(np.ones((3, 4)))
    # both nodes read ``a``: the one that runs first names itself
    with pytest.raises(ValueError,
                       match=r"(cholesky|solve): a must be a square matrix, got shape \(3, 4"):
        compile_c([a, b], [la.cholesky(a), la.solve(a, b)])(np.ones((3, 4)), np.ones((3, 1)))
    with pytest.raises(ValueError, match="rows differ"):
        compile_c([a, b], la.solve(a, b))(np.eye(3), np.ones((4, 1)))
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        compile_c([a, b], la.solve(a, b))(np.zeros((3, 3)), np.ones((3, 1)))
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        compile_c([a, b], la.solve_triangular(a, b))(np.zeros((3, 3)), np.ones((3, 1)))
    with pytest.raises(ValueError, match="infs or NaNs"):
        compile_c([a, b], la.solve(a, b, check_finite=True))(np.full((2, 2), np.nan),
                                                              np.ones((2, 1)))


def test_ill_conditioned_warns_like_scipy():
    a, b = pt.matrix("a"), pt.vector("b")
    bad = np.array([[1.0, 1.0], [1.0, 1.0 + 1e-17]])
    bad[1, 1] = 1.0 + 2.3e-16
    f = compile_c([a, b], la.solve(a, b))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(bad, np.ones(2))
    assert any(issubclass(w.category, scipy.linalg.LinAlgWarning) for w in caught)


def test_python_fallback_where_there_is_no_c(rng):
    """assume_a='sym' and complex matrices have no C: the node runs its perform."""
    assert c_impl.c_provider(Solve(assume_a="sym")) is not None  # provider, but no code
    a, b = pt.matrix("a"), pt.matrix("b")
    ac = pt.matrix("ac", dtype="complex128")
    outs = [la.solve(a, b, assume_a="sym"), la.cholesky(ac)]
    k = spd(rng, 4)
    fc, got, want = both([a, b, ac], outs, k, rng.normal(size=(4, 2)), k.astype("complex128"))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10)
    assert "ogla_" not in fc.linker.module_source


def test_gp_gradient_c_matches_python(rng):
    k, y = pt.matrix("K"), pt.vector("y")
    chol = la.cholesky(k)
    alpha = la.solve_triangular(chol.T, la.solve_triangular(chol, y, lower=True), lower=False)
    nll = 0.5 * pt.dot(y, alpha) + pt.log(pt.diag(chol)).sum()
    outs = [nll, grad(nll, k)]
    _, got, want = both([k, y], outs, spd(rng, 8), rng.normal(size=8))
    assert_same(got, want)
