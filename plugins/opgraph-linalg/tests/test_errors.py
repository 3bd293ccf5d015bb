"""Bad input: a clear exception naming the argument, at construction when the static
shapes show it, otherwise at call time; never a crash or silent garbage."""

from __future__ import annotations

import numpy as np
import opgraph_linalg as la
import pytest
from helpers_la import compile_py, spd

import opgraph
import opgraph.tensor as pt


@pytest.mark.parametrize("fn", [la.cholesky, la.det, la.inv, la.expm, la.slogdet, la.eigh])
def test_non_square_static_shape_fails_at_construction(fn):
    match = (r"Determinant not defined for non-square matrices: x has static shape \(3, 4\)"
             if fn is la.det else r"must be a square matrix, got static shape \(3, 4\)")
    with pytest.raises(ValueError, match=match):
        fn(pt.tensor(dtype="float64", shape=(3, 4)))


@pytest.mark.parametrize("fn", [la.cholesky, la.det, la.inv])
def test_non_square_value_fails_at_call(fn):
    x = pt.dmatrix("x")
    f = compile_py([x], fn(x))
    # FAST_COMPILE runs local_useless_unbatched_blockwise (as PyTensor): the core Op
    # checks an unbatched matrix, the Blockwise a batched one; both name x and its shape
    with pytest.raises(ValueError, match=r"(input 0 \(x\) must have equal lengths for its "
                       r"core dimensions \(m,m\) \(a square matrix\)|must be a square "
                       r"matrix), got shape \(3, 4\)"):
        f(np.ones((3, 4)))


def test_vector_where_matrix_expected():
    with pytest.raises(ValueError, match="cholesky: x must have at least 2 dimensions"):
        la.cholesky(pt.dvector("v"))
    with pytest.raises(ValueError, match="solve: a must have at least 2 dimensions"):
        la.solve(pt.dvector("v"), pt.dvector("b"))


def test_mismatched_batch_shapes():
    a = pt.tensor(dtype="float64", shape=(2, 3, 3))
    b = pt.tensor(dtype="float64", shape=(4, 3))
    with pytest.raises(ValueError, match="batch dimensions do not broadcast"):
        la.solve(a, b, b_ndim=1)
    a, b = pt.dtensor3("a"), pt.dmatrix("b")
    f = compile_py([a, b], la.solve(a, b, b_ndim=1))
    with pytest.raises(ValueError, match=r"batch dimensions do not broadcast.*input 1 \(b\)"):
        f(np.tile(np.eye(3), (2, 1, 1)), np.ones((4, 3)))


def test_mismatched_rows():
    with pytest.raises(ValueError, match="'m' has length 3 in input 0 but 4 in input 1"):
        la.solve(pt.tensor(dtype="float64", shape=(3, 3)), pt.tensor(dtype="float64", shape=(4,)))


def test_not_positive_definite_raises_or_gives_nan():
    x = pt.dmatrix("x")
    bad = -np.eye(3)
    with pytest.warns(FutureWarning, match="deprecated"):
        raising = la.cholesky(x, on_error="raise")
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        compile_py([x], raising)(bad)
    out = compile_py([x], la.cholesky(x))(bad)  # on_error="nan" is the default
    assert np.isnan(out).all()
    # a batch: only the bad matrix becomes NaN
    xs = pt.dtensor3("xs")
    batch = np.stack([spd(np.random.default_rng(0), 3), bad])
    res = compile_py([xs], la.cholesky(xs))(batch)
    assert np.isfinite(res[0]).all() and np.isnan(res[1]).all()


def test_bad_options():
    x = pt.dmatrix("x")
    with pytest.raises(ValueError, match="on_error must be 'raise' or 'nan'"):
        la.cholesky(x, on_error="ignore")
    with pytest.raises(ValueError, match=r"Invalid assume_a: banana\. It must be one of"):
        la.solve(x, x, assume_a="banana")
    with pytest.raises(ValueError, match="trans must be"):
        la.solve_triangular(x, x, trans=5)
    with pytest.raises(TypeError, match="tuple \\(c, lower\\)"):
        la.cho_solve(x, x)
    with pytest.raises(TypeError, match="n must be an int"):
        la.matrix_power(x, 1.5)


def test_check_finite():
    x, b = pt.dmatrix("x"), pt.dvector("b")
    f = compile_py([x, b], la.solve(x, b, check_finite=True))
    bad = np.eye(2)
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match="infs or NaNs"):
        f(bad, np.ones(2))


def test_kron_of_two_vectors_is_refused():
    with pytest.raises(TypeError, match="dimensions must sum to 3 or more"):
        la.kron(pt.dvector("u"), pt.dvector("v"))


def test_svd_full_matrices_gradient_is_refused():
    x = pt.dmatrix("x")
    _, s, _ = la.svd(x, full_matrices=True)
    with pytest.raises(NotImplementedError, match="full_matrices=True"):
        opgraph.grad(s.sum(), x)
    # the singular values alone are differentiable
    opgraph.grad(la.svd(x, compute_uv=False).sum(), x)


def test_core_solve_ops_name_the_wrong_operand():
    with pytest.raises(ValueError, match="`A` must be a matrix"):
        la.SolveTriangular(b_ndim=2)(pt.dvector("a"), pt.dmatrix("b"))
    with pytest.raises(ValueError, match="`A` must be a matrix"):
        la.Solve(b_ndim=2)(pt.dtensor3("a"), pt.dmatrix("b"))
    with pytest.raises(ValueError, match="`b` must have 2 dims"):
        la.Solve(b_ndim=2)(pt.dmatrix("a"), pt.dtensor3("b"))
    with pytest.raises(ValueError, match="`b` must have 1 dims"):
        la.CholeskySolve(b_ndim=1)(pt.dmatrix("a"), pt.dmatrix("b"))


def test_qr_full_gradient_of_a_tall_matrix_is_refused(rng):
    # static shapes: an undefined gradient, refused while building it
    tall = pt.tensor("tall", dtype="float64", shape=(6, 3))
    with pytest.raises(opgraph.gradient.NullTypeGradError, match="not taller than wide"):
        pt.grad(la.qr(tall, mode="full")[0].sum(), tall)
    # unknown shapes: the same refusal when the values show a tall matrix
    x = pt.dmatrix("x")
    q, r = la.qr(x, mode="full")
    fn = compile_py([x], pt.grad(q.sum() + r.sum(), x))
    assert fn(rng.normal(size=(3, 5))).shape == (3, 5)
    with pytest.raises(NotImplementedError, match="not taller than wide"):
        fn(rng.normal(size=(6, 3)))
