"""Issue 35's table: values and gradients through Gram matrices ``A @ A.T`` in every mode.

A BLAS rewrite once dropped a transpose when it formed a Gemm on a transposed product,
so ``C @ A + (D @ A).T`` and every gradient through ``A @ A.T`` (whose pullback is
``G A + G^T A``) were wrong in FAST_RUN while FAST_COMPILE was right.  Each expression
here is compared in every mode with NumPy (values) and central finite differences
(gradients), on non-symmetric inputs so that a lost transpose cannot hide.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.gradient import grad
from opgraph.tensor import linalg as la

# The rewrites are the suspects: the Python linker with FAST_RUN's rewrites is a mode too.
MODES = ["FAST_RUN", "FAST_COMPILE", "C", "CVM", "DASK", "py+fast_run"]
RNG = np.random.default_rng(35)
N = 5
W = RNG.standard_normal((N, N))
B = RNG.standard_normal(N)
V = RNG.standard_normal(N)
EYE = np.eye(N)


def mvn_like_logp(a):
    chol = la.cholesky(a @ a.T + EYE)
    z = la.solve_triangular(chol, B, lower=True)
    return -0.5 * (z**2).sum() - pt.log(pt.diag(chol)).sum()


EXPRESSIONS = {
    "cholesky": lambda a: (la.cholesky(a @ a.T) * W).sum(),
    "solve_triangular_cholesky": lambda a: la.solve_triangular(
        la.cholesky(a @ a.T), B, lower=True).sum(),
    "solve_pos": lambda a: (la.solve(a @ a.T + EYE, B, assume_a="pos") * V).sum(),
    "log_det": lambda a: pt.log(la.det(a @ a.T + EYE)),
    "mvnormal_logp": mvn_like_logp,
    "gram": lambda a: ((a @ a.T) * W).sum(),
    "inv": lambda a: (la.inv(a @ a.T + EYE) * W).sum(),
    "slogdet": lambda a: la.slogdet(a @ a.T + EYE)[1],
    "cholesky_sym": lambda a: (la.cholesky(a + a.T + 10 * EYE) * W).sum(),
    "solve_sym": lambda a: (la.solve(a + a.T + 10 * EYE, B, assume_a="sym") * V).sum(),
}


def central_difference(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d f / d x for a vector-valued f: shape ``x.shape + f(x).shape``."""
    rows = []
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        rows.append((np.asarray(f(up)) - np.asarray(f(down))) / (2 * eps))
    return np.stack(rows).reshape(*x.shape, -1)


def compile_(inputs, outputs, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if mode == "py+fast_run":
            mode = Mode(linker="py", optimizer="fast_run")
        return function(inputs, outputs, mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_transposed_accumulators(mode: str) -> None:
    a, c, d = pt.dmatrix("A"), pt.dmatrix("C"), pt.dmatrix("D")
    a0, c0, d0 = (RNG.standard_normal((3, 3)) for _ in range(3))
    cases = {
        "C A + (D A)^T": (c @ a + (d @ a).T, c0 @ a0 + (d0 @ a0).T),
        "(C A + D)^T": ((c @ a + d).T, (c0 @ a0 + d0).T),
        "C A^T + (D A)^T": (c @ a.T + (d @ a).T, c0 @ a0.T + (d0 @ a0).T),
        "0.5 A C + 0.25 (D^T A)^T": (0.5 * a @ c + 0.25 * (d.T @ a).T,
                                     0.5 * a0 @ c0 + 0.25 * (d0.T @ a0).T),
    }
    fn = compile_([a, c, d], [expr for expr, _ in cases.values()], mode)
    for got, (name, (_, want)) in zip(fn(a0, c0, d0), cases.items()):
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=f"{name} in {mode}")


NAMES = sorted(EXPRESSIONS)
A0 = RNG.standard_normal((N, N)) + 0.5 * EYE


@pytest.fixture(scope="module")
def finite_differences() -> np.ndarray:
    """Central differences of every cost at A0 (one compiled function returns them all)."""
    a = pt.dmatrix("A")
    costs = compile_([a], pt.stack([EXPRESSIONS[name](a) for name in NAMES]), "FAST_COMPILE")
    return central_difference(lambda x: costs(x), A0)


@pytest.mark.parametrize("mode", MODES)
def test_gram_gradients_match_finite_differences(mode: str, finite_differences) -> None:
    """Every expression's value and gradient, compiled as one function per mode."""
    a = pt.dmatrix("A")
    costs = [EXPRESSIONS[name](a) for name in NAMES]
    results = compile_([a], costs + [grad(cost, a) for cost in costs], mode)(A0)
    for k, name in enumerate(NAMES):
        value, gradient = results[k], results[len(NAMES) + k]
        expected = finite_differences[..., k]
        scale = max(np.abs(expected).max(), 1.0)
        assert np.isfinite(value), (name, mode)
        assert np.abs(gradient - expected).max() <= 1e-7 * scale, (name, mode)
