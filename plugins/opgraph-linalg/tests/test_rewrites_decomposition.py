"""reuse_decomposition_multiple_solves and its Scan form: the factorization is computed once
and values and gradients equal the unrewritten graph's (FAST_RUN, FAST_COMPILE)."""

from __future__ import annotations

import numpy as np
import pytest
from opgraph.tensor.linalg.solvers.general import solve
from test_rewrite_gradients import PLAIN, _core_names

import opgraph
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode

FACTOR = {"gen": "LUFactor", "pos": "Cholesky", "tridiagonal": "LUFactorTridiagonal"}
REWRITE = "reuse_decomposition_multiple_solves"


def _matrix(rng, assume_a, n=4):
    a = rng.standard_normal((n, n)) + n * np.eye(n)
    if assume_a == "pos":
        return a @ a.T
    if assume_a == "tridiagonal":
        return np.triu(np.tril(a, 1), -1)
    return a


def _modes():
    fast = get_mode("FAST_RUN").including(REWRITE).excluding("psd_solve_to_chol_solve")
    return [Mode(linker="py", optimizer=fast.optimizer),
            Mode(linker="py", optimizer=get_mode("FAST_COMPILE").including(REWRITE).optimizer)]


@pytest.mark.parametrize("assume_a", ["gen", "pos", "tridiagonal"])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("b_shape", [(4,), (3, 4, 2)])
def test_solve_and_gradient_share_one_factorization(rng, assume_a, transposed, b_shape):
    a, b = pt.dmatrix("a"), pt.tensor("b", shape=(None,) * len(b_shape))
    x = solve(a, b, assume_a=assume_a, transposed=transposed, b_ndim=min(len(b_shape), 2))
    w = rng.standard_normal(b_shape)
    grads = opgraph.grad(pt.sum(x * w), [a, b])
    vals = [_matrix(rng, assume_a), rng.standard_normal(b_shape)]
    want = function([a, b], [x, *grads], mode=PLAIN)(*vals)
    for rewritten, mode in zip((True, False), _modes()):
        fn = function([a, b], [x, *grads], mode=mode)
        names = _core_names(fn)
        if rewritten:  # FAST_RUN; FAST_COMPILE has no specialize phase: values only
            assert "Solve" not in names, names
            assert names.count(FACTOR[assume_a]) == 1, names
        for g, e in zip(fn(*vals), want):
            np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-10)


def test_batched_matrix_is_left_to_solve(rng):
    a, b = pt.dtensor3("a"), pt.dtensor3("b")
    fn = function([a, b], solve(a, b), mode=_modes()[0])
    assert "LUFactor" not in _core_names(fn)


@pytest.mark.parametrize("assume_a", ["gen", "pos", "tridiagonal"])
def test_scan_factors_a_non_sequence_once_before_the_loop(rng, assume_a):
    a, x0 = pt.dmatrix("a"), pt.dmatrix("x0")
    xs = opgraph.scan(lambda x, a: solve(a, x, assume_a=assume_a), outputs_info=[x0],
                      non_sequences=[a], n_steps=4, return_updates=False)
    cost = pt.sum(xs[-1] ** 2)
    outs = [xs, *opgraph.grad(cost, [a, x0])]
    vals = [_matrix(rng, assume_a, 3), rng.standard_normal((3, 2))]
    want = function([a, x0], outs, mode=PLAIN)(*vals)
    mode = get_mode("FAST_RUN").excluding("psd_solve_to_chol_solve")
    fn = function([a, x0], outs, mode=mode)
    outer = _core_names(fn)
    assert FACTOR[assume_a] in outer, outer
    for g, e in zip(fn(*vals), want):
        np.testing.assert_allclose(g, e, rtol=1e-8, atol=1e-10)


def test_a_single_solve_stays_one_lapack_call(rng):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    fn = function([a, b], solve(a, b), mode=_modes()[0])
    names = _core_names(fn)
    assert "Solve" in names and "LUFactor" not in names, names
