"""KroneckerProduct as one Op and the tridiagonal LU Ops (gttrf/gttrs) at PyTensor's paths."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_la import compile_py
from opgraph.tensor.linalg.products import KroneckerProduct, kron
from opgraph.tensor.linalg.solvers.tridiagonal import (
    LUFactorTridiagonal,
    SolveLUFactorTridiagonal,
    tridiagonal_lu_factor,
    tridiagonal_lu_solve,
)

import opgraph
import opgraph.tensor as pt
from opgraph.gradient import verify_grad


@pytest.mark.parametrize("shapes", [((2, 3), (4, 5)), ((3,), (2, 4)), ((2, 4), (3,)),
                                    ((2, 1, 3), (3, 2))])
def test_kron_is_one_op_with_numpy_values_and_gradients(rng, shapes):
    a_val, b_val = (rng.normal(size=s) for s in shapes)
    a, b = (pt.tensor(shape=(None,) * len(s)) for s in shapes)
    out = kron(a, b)
    assert isinstance(out.owner.op, KroneckerProduct)
    np.testing.assert_allclose(compile_py([a, b], out)(a_val, b_val), np.kron(a_val, b_val))
    verify_grad(kron, [a_val, b_val], rng=rng)


def test_kron_static_shape_and_infer_shape(rng):
    a, b = pt.tensor(shape=(2, 3)), pt.tensor(shape=(None, 5))
    out = kron(a, b)
    assert out.type.shape == (None, 15)
    shape = opgraph.function([a, b], out.shape, mode="FAST_RUN")
    np.testing.assert_array_equal(shape(np.ones((2, 3)), np.ones((4, 5))), (8, 15))


def test_kron_rejects_two_vectors():
    with pytest.raises(TypeError, match="sum to 3 or more"):
        kron(pt.vector(), pt.vector())


def _tridiagonal(rng, n):
    return (np.diag(rng.normal(size=n) + 4) + np.diag(rng.normal(size=n - 1), 1)
            + np.diag(rng.normal(size=n - 1), -1))


@pytest.mark.parametrize("b_ndim", [1, 2])
@pytest.mark.parametrize("transposed", [False, True])
def test_tridiagonal_lu_solve_matches_numpy(rng, b_ndim, transposed):
    a_val = _tridiagonal(rng, 5)
    b_val = rng.normal(size=(5,) if b_ndim == 1 else (5, 3))
    a, b = pt.dmatrix("a"), pt.tensor("b", shape=(None,) * b_ndim)
    factors = tridiagonal_lu_factor(a)
    assert isinstance(factors[0].owner.op.core_op, LUFactorTridiagonal)
    x = tridiagonal_lu_solve(factors, b, b_ndim=b_ndim, transposed=transposed)
    assert isinstance(x.owner.op.core_op, SolveLUFactorTridiagonal)
    expected = np.linalg.solve(a_val.T if transposed else a_val, b_val)
    np.testing.assert_allclose(compile_py([a, b], x)(a_val, b_val), expected)


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("b_ndim", [1, 2])
@pytest.mark.parametrize("transposed", [False, True])
def test_tridiagonal_lu_solve_of_one_or_two_rows(rng, n, b_ndim, transposed):
    """SciPy's gttrf/gttrs wrappers refuse n < 3 (the fuzzer found it through
    ``solve(assume_a="tridiagonal")``): the same elimination, with and without the row
    swap, is done in NumPy."""
    a, b = pt.dmatrix("a"), pt.tensor("b", shape=(None,) * b_ndim)
    x = tridiagonal_lu_solve(tridiagonal_lu_factor(a), b, b_ndim=b_ndim,
                             transposed=transposed)
    fn = compile_py([a, b], x)
    cases = [_tridiagonal(rng, n) for _ in range(5)]
    if n == 2:
        cases.append(np.array([[1e-3, 2.0], [5.0, 1.0]]))  # pivots: |d0| < |dl0|
    for a_val in cases:
        b_val = rng.normal(size=(n,) if b_ndim == 1 else (n, 3))
        expected = np.linalg.solve(a_val.T if transposed else a_val, b_val)
        np.testing.assert_allclose(fn(a_val, b_val), expected, rtol=1e-10, atol=1e-12)


def test_tridiagonal_factor_batches_and_shapes(rng):
    a_val = np.stack([_tridiagonal(rng, 4) for _ in range(3)])
    a = pt.tensor3("a")
    _, d, _, du2, ipiv = tridiagonal_lu_factor(a)
    assert ipiv.type.dtype == "int32"
    out = compile_py([a], [du2.shape, d])(a_val)
    np.testing.assert_array_equal(out[0], (3, 2))
    assert out[1].shape == (3, 4)


def test_tridiagonal_solve_rejects_wrong_factors():
    with pytest.raises(TypeError, match="five outputs"):
        tridiagonal_lu_solve((pt.vector(),), pt.vector(), b_ndim=1)
    with pytest.raises(ValueError, match="b_ndim"):
        SolveLUFactorTridiagonal(b_ndim=3, transposed=False)
