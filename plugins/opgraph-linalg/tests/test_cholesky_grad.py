"""The fused Cholesky pullback against its graph definition and finite differences."""

from __future__ import annotations

import warnings

import numpy as np
import opgraph_linalg as la
import pytest
from helpers_la import check_grad, compile_py, spd
from opgraph_linalg.cholesky_grad import CholeskyPullback, cholesky_pullback_graph

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.gradient import grad, pushforward


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_fused_matches_graph_definition(rng, lower, dtype, n):
    chol_v = np.linalg.cholesky(spd(rng, n))
    if not lower:
        chol_v = chol_v.T
    gz_v = rng.normal(size=(n, n))
    if dtype.startswith("complex"):
        gz_v = gz_v + 1j * rng.normal(size=(n, n))
    chol, gz = pt.matrix("L", dtype=dtype), pt.matrix("gz", dtype=dtype)
    fused = CholeskyPullback(lower)(chol, gz)
    graph = cholesky_pullback_graph(chol, gz, lower)
    f = compile_py([chol, gz], [fused, graph])
    got, want = f(chol_v.astype(dtype), gz_v.astype(dtype))
    assert got.dtype == np.dtype(dtype)
    tol = 1e-3 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


def test_batched_pullback_matches_loop(rng):
    a = spd(rng, 5, batch=(3,))
    gz_v = rng.normal(size=(3, 5, 5))
    x = pt.tensor3("x")
    g = pt.tensor3("g")
    cot = grad(None, x, known_grads={la.cholesky(x): g})
    f = compile_py([x, g], cot)
    got = f(a, gz_v)
    for i in range(3):
        xi, gi = pt.matrix("xi"), pt.matrix("gi")
        ci = grad(None, xi, known_grads={la.cholesky(xi): gi})
        np.testing.assert_allclose(got[i], compile_py([xi, gi], ci)(a[i], gz_v[i]), rtol=1e-10)


def test_gp_gradient_matches_closed_form(rng):
    """d/dK of 0.5 y^T K^-1 y + 0.5 log det K is 0.5 (K^-1 - alpha alpha^T), on one triangle."""
    n = 30
    k_v, y_v = spd(rng, n), rng.normal(size=n)
    k, y = pt.matrix("K"), pt.vector("y")
    chol = la.cholesky(k)
    alpha = la.solve_triangular(chol.T, la.solve_triangular(chol, y, lower=True), lower=False)
    nll = 0.5 * pt.dot(y, alpha) + pt.log(pt.diag(chol)).sum()
    got = compile_py([k, y], grad(nll, k))(k_v, y_v)
    a = np.linalg.solve(k_v, y_v)
    sym = 0.5 * (np.linalg.inv(k_v) - np.outer(a, a))
    want = np.tril(2 * sym)
    want[np.diag_indices(n)] = np.diag(sym)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


def test_second_order_through_the_fused_op(rng):
    """The fused Op's own pullback (the graph definition) against finite differences."""
    a = spd(rng, 4)
    w = rng.normal(size=(4, 4))

    def g_of(x):
        return (grad((la.cholesky(x) * w).sum(), x) * w.T).sum()

    check_grad(g_of, [a], rng)


@pytest.mark.parametrize("lower", [True, False])
def test_pullback_of_fused_op_wrt_both_inputs(rng, lower):
    chol_v = np.linalg.cholesky(spd(rng, 3))
    check_grad(lambda c, g: CholeskyPullback(lower)(c, g),
               [chol_v if lower else chol_v.T, rng.normal(size=(3, 3))], rng)


def test_pushforward_of_fused_op_against_differences(rng):
    chol_v = np.linalg.cholesky(spd(rng, 4))
    gz_v, t_c, t_g = (rng.normal(size=(4, 4)) for _ in range(3))
    t_c = np.tril(t_c)
    chol, gz, tc, tg = (pt.matrix(n) for n in ("L", "gz", "tc", "tg"))
    out = CholeskyPullback(True)(chol, gz)
    jvp = pushforward(out, [chol, gz], [tc, tg])
    got = compile_py([chol, gz, tc, tg], jvp)(chol_v, gz_v, t_c, t_g)
    f = compile_py([chol, gz], out)
    eps = 1e-6
    want = (f(chol_v + eps * t_c, gz_v + eps * t_g) - f(chol_v - eps * t_c, gz_v - eps * t_g)) / (
        2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_shape_mismatch_is_named(rng):
    chol, gz = pt.matrix("L"), pt.matrix("gz")
    f = compile_py([chol, gz], CholeskyPullback(True)(chol, gz))
    with pytest.raises(ValueError, match="chol and gz must be equal square matrices"):
        f(np.eye(3), np.eye(4))


@pytest.mark.parametrize("on_error", ["nan", "raise"])
def test_gradient_of_a_failed_factorisation_is_nan(on_error):
    """The value check of on_error="raise" is not on the gradient's path (once FAST_RUN's
    shape rewrites drop the cotangent's reference to the checked value): NaN, no error."""
    x = pt.matrix("x")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        chol = la.cholesky(x, on_error=on_error)
    f = function([x], grad(chol.sum(), x), mode=Mode(linker="vm", optimizer="fast_run"))
    assert np.isnan(f(np.array([[1.0, 0.2], [0.2, -2.0]]))).all()
    if on_error == "raise":
        with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
            compile_py([x], chol)(np.array([[1.0, 0.2], [0.2, -2.0]]))
