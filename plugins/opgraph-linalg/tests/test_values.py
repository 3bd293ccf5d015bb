"""Every Op's values against NumPy/SciPy, for one matrix and for batches."""

from __future__ import annotations

import numpy as np
import opgraph_linalg as la
import pytest
import scipy.linalg
from helpers_la import compile_py, spd, well_conditioned
from opgraph.tensor.linalg import eigh

import opgraph.tensor as pt
from opgraph import function
from opgraph.tensor.blockwise import Blockwise


def _run(build, *values):
    ins = [pt.tensor(dtype=str(v.dtype), shape=(None,) * v.ndim) for v in values]
    outs = build(*ins)
    return compile_py(ins, outs)(*values)


@pytest.mark.parametrize("batch", [(), (3,), (2, 1)])
def test_decompositions_match_scipy(rng, batch):
    a = spd(rng, 4, batch)
    m = well_conditioned(rng, 4, batch)
    np.testing.assert_allclose(_run(la.cholesky, a), np.linalg.cholesky(a))
    np.testing.assert_allclose(
        _run(lambda x: la.cholesky(x, lower=False), a), np.swapaxes(np.linalg.cholesky(a), -1, -2)
    )
    w, v = _run(la.eigh, a)
    np.testing.assert_allclose(w, np.linalg.eigh(a)[0])
    np.testing.assert_allclose(np.abs(v), np.abs(np.linalg.eigh(a)[1]), atol=1e-10)
    np.testing.assert_allclose(_run(la.eigvalsh, a), np.linalg.eigvalsh(a))
    np.testing.assert_allclose(_run(lambda x: la.svd(x, compute_uv=False), m),
                               np.linalg.svd(m, compute_uv=False))
    q, r = _run(la.qr, m)
    np.testing.assert_allclose(q @ r, m, atol=1e-12)
    np.testing.assert_allclose(_run(la.det, m), np.linalg.det(m))
    sign, logdet = _run(la.slogdet, m)
    np.testing.assert_allclose(sign * np.exp(logdet), np.linalg.det(m))
    np.testing.assert_allclose(_run(la.inv, m), np.linalg.inv(m))
    np.testing.assert_allclose(_run(la.pinv, m), np.linalg.pinv(m), atol=1e-12)
    np.testing.assert_allclose(_run(pt.trace, m), np.trace(m))
    batched_trace = lambda x: pt.trace(x, axis1=-2, axis2=-1)
    np.testing.assert_allclose(_run(batched_trace, m), np.trace(m, axis1=-2, axis2=-1))
    if m.ndim == 3:
        np.testing.assert_allclose(_run(lambda x: pt.trace(x, offset=1, axis1=1, axis2=2), m),
                                   np.trace(m, offset=1, axis1=1, axis2=2))
    expected = np.stack([scipy.linalg.expm(x) for x in (0.1 * m).reshape(-1, 4, 4)])
    np.testing.assert_allclose(_run(la.expm, 0.1 * m), expected.reshape(m.shape))


@pytest.mark.parametrize("assume_a", ["gen", "sym", "pos", "diagonal", "tridiagonal"])
def test_solve_vector_and_matrix_rhs(rng, assume_a):
    a = spd(rng, 4)
    if assume_a == "diagonal":
        a = np.diag(np.diag(a))
    elif assume_a == "tridiagonal":
        a = np.triu(np.tril(a, 1), -1)
    b = rng.normal(size=4)
    bm = rng.normal(size=(4, 2))
    np.testing.assert_allclose(_run(lambda x, y: la.solve(x, y, assume_a=assume_a), a, b),
                               np.linalg.solve(a, b))
    np.testing.assert_allclose(_run(lambda x, y: la.solve(x, y, assume_a=assume_a), a, bm),
                               np.linalg.solve(a, bm))


def test_batched_solve_broadcasts_b(rng):
    a = well_conditioned(rng, 3, (2, 4))
    b = rng.normal(size=(4, 3))  # a batch of 4 vectors, broadcast against a's (2, 4)
    got = _run(lambda x, y: la.solve(x, y, b_ndim=1), a, b)
    np.testing.assert_allclose(got, np.linalg.solve(a, b[None, ..., None])[..., 0])


def test_triangular_and_factor_solvers(rng):
    a = spd(rng, 4)
    b = rng.normal(size=(4, 2))
    low = np.linalg.cholesky(a)
    np.testing.assert_allclose(
        _run(lambda x, y: la.solve_triangular(x, y, lower=True), low, b),
        scipy.linalg.solve_triangular(low, b, lower=True))
    np.testing.assert_allclose(
        _run(lambda x, y: la.solve_triangular(x, y, lower=True, trans="T"), low, b),
        scipy.linalg.solve_triangular(low, b, lower=True, trans=1))
    np.testing.assert_allclose(_run(lambda c, y: la.cho_solve((c, True), y), low, b),
                               np.linalg.solve(a, b))
    lu, piv = scipy.linalg.lu_factor(a)
    np.testing.assert_allclose(_run(lambda x, p, y: la.lu_solve((x, p), y), lu, piv, b),
                               np.linalg.solve(a, b))
    p, l_, u = _run(la.lu, a)
    np.testing.assert_allclose(p @ l_ @ u, a, atol=1e-12)
    perm = _run(la.pivot_to_permutation, piv)
    low_f = np.tril(lu, -1) + np.eye(4)
    np.testing.assert_allclose(a[perm], low_f @ np.triu(lu), atol=1e-12)


def test_constructors_and_products(rng):
    m = rng.normal(size=(3, 4))
    v = rng.normal(size=3)
    np.testing.assert_allclose(_run(la.diag, v), np.diag(v))
    np.testing.assert_allclose(_run(lambda x: la.diag(x, 1), m), np.diag(m, 1))
    got = _run(lambda x: la.diagonal(x, -1, 1, 0), m)
    np.testing.assert_allclose(got, np.diagonal(m, -1, 1, 0))
    np.testing.assert_allclose(_run(lambda x: la.tril(x, -1), m), np.tril(m, -1))
    np.testing.assert_allclose(_run(lambda x: la.triu(x, 1), m), np.triu(m, 1))
    np.testing.assert_allclose(_run(la.kron, m, m[:2]), np.kron(m, m[:2]))
    np.testing.assert_allclose(_run(la.kron, v, m), np.kron(v, m))
    np.testing.assert_allclose(_run(la.block_diag, m, m[:2, :1]),
                               scipy.linalg.block_diag(m, m[:2, :1]))
    sq = well_conditioned(rng, 3)
    for n in (-2, 0, 1, 5):
        np.testing.assert_allclose(_run(lambda x, n=n: la.matrix_power(x, n), sq),
                                   np.linalg.matrix_power(sq, n))


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norms(rng, ord):
    m = rng.normal(size=(2, 3, 4))
    got = _run(lambda x: la.norm(x, ord=ord, axis=(1, 2)), m)
    np.testing.assert_allclose(got, np.linalg.norm(m, ord=ord, axis=(1, 2)))


@pytest.mark.parametrize("ord", [None, 0, 1, 2, 3, np.inf, -np.inf])
def test_vector_norms(rng, ord):
    v = rng.normal(size=(3, 5))
    got = _run(lambda x: la.norm(x, ord=ord, axis=-1, keepdims=True), v)
    np.testing.assert_allclose(got, np.linalg.norm(v, ord=ord, axis=-1, keepdims=True))


def test_float32_stays_float32(rng):
    a = spd(rng, 3).astype("float32")
    out = la.cholesky(pt.tensor(dtype="float32", shape=(None, None)))
    assert out.type.dtype == "float32"
    assert _run(la.cholesky, a).dtype == np.float32
    assert la.det(pt.imatrix()).type.dtype == "float64"


def test_every_function_builds_a_blockwise():
    x = pt.dtensor3("x")
    for fn in (la.cholesky, la.inv, la.det, la.expm, la.eigvalsh, la.pinv):
        out = fn(x)
        assert isinstance(out.owner.op, Blockwise), fn
        assert out.type.ndim == fn(pt.dmatrix()).type.ndim + 1


def test_eig_complex(rng):
    m = rng.normal(size=(4, 4))
    w, v = _run(la.eig, m)
    np.testing.assert_allclose(m @ v, v * w, atol=1e-10)
    assert w.dtype == np.complex128


def test_pivot_to_permutation_matches_scipy_p_indices(rng):
    a = rng.normal(size=(5, 5))
    _, piv = scipy.linalg.lu_factor(a)
    p, low, up = scipy.linalg.lu(a, p_indices=True)
    np.testing.assert_array_equal(_run(la.pivot_to_permutation, piv), p)
    np.testing.assert_array_equal(_run(lambda v: la.pivot_to_permutation(v, inverse=True), piv),
                                  np.argsort(p))
    got = _run(lambda x: la.lu(x, p_indices=True), a)
    for g, e in zip(got, (p, low, up)):
        np.testing.assert_allclose(g, e)


def test_generalized_eigh_and_hermitian(rng):
    a, b = spd(rng, 4), spd(rng, 4)
    w, v = _run(la.eigh, a, b)
    np.testing.assert_allclose(a @ v, b @ v * w, atol=1e-10)
    np.testing.assert_allclose(_run(la.eigvalsh, a, b), scipy.linalg.eigvalsh(a, b))
    h = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    h = h + h.conj().T
    w, v = _run(la.eigh, h)
    assert w.dtype == np.float64
    np.testing.assert_allclose(h @ v, v * w, atol=1e-10)


@pytest.mark.parametrize(("assume_a", "lower"), [("lower triangular", True),
                                                 ("upper triangular", False)])
def test_solve_triangular_assumption_is_solve_triangular(assume_a, lower):
    a, b = pt.dmatrix("a"), pt.dvector("b")
    core = la.solve(a, b, assume_a=assume_a, transposed=True).owner.op.core_op
    assert isinstance(core, la.SolveTriangular)
    assert core.lower is lower and core.trans == 1


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
@pytest.mark.parametrize("keepdims", [False, True])
def test_norm_without_axis_is_batched_over_leading_axes(rng, ord, keepdims):
    m = rng.normal(size=(2, 4, 3)) + 1j * rng.normal(size=(2, 4, 3))
    got = _run(lambda x: la.norm(x, ord=ord, keepdims=keepdims), m)
    expected = np.stack([np.linalg.norm(x, ord=ord, keepdims=keepdims) for x in m])
    np.testing.assert_allclose(got, expected)


def test_norm_errors():
    with pytest.raises(ValueError, match="Invalid norm order 'fro' for vectors"):
        la.norm(pt.dvector(), "fro")
    with pytest.raises(ValueError, match="Invalid norm order for matrices: 0"):
        la.norm(pt.dmatrix(), 0)
    with pytest.raises(ValueError, match=r"core_dims = 0.*at least one dimension"):
        la.norm(pt.dscalar(), 2)
    with pytest.raises(TypeError, match="'axis' must be None, an integer, or a tuple of integers"):
        la.norm(pt.dmatrix(), axis=pt.iscalar("i"))


def test_lstsq_tensorsolve_tensorinv(rng):
    a, b = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    got = _run(lambda x, y: la.lstsq(x, y, -1), a, b)
    for g, e in zip(got, np.linalg.lstsq(a, b, rcond=-1)):
        np.testing.assert_allclose(g, e)
    assert got[2].dtype == np.int32
    x = pt.dvector("x")
    with pytest.raises(np.linalg.LinAlgError, match="a must be a matrix"):
        compile_py([x], la.lstsq(x, x, 1)[0])(np.ones(2))
    t = np.eye(24).reshape(6, 4, 2, 12) + 0.1 * rng.normal(size=(6, 4, 2, 12))
    rhs = rng.normal(size=(6, 4))
    np.testing.assert_allclose(_run(la.tensorsolve, t, rhs), np.linalg.tensorsolve(t, rhs))
    c = rng.normal(size=(4, 6, 8, 3))
    np.testing.assert_allclose(_run(la.tensorinv, c), np.linalg.tensorinv(c))


def test_linear_control_equations(rng):
    a, b, q = rng.normal(size=(4, 4)), rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
    np.testing.assert_allclose(_run(la.solve_sylvester, a, b, q),
                               scipy.linalg.solve_sylvester(a, b, q))
    q2 = rng.normal(size=(2, 4, 4))
    np.testing.assert_allclose(_run(la.solve_continuous_lyapunov, a, q2),
                               np.stack([scipy.linalg.solve_continuous_lyapunov(a, x) for x in q2]))
    small = 0.3 * rng.normal(size=(2, 4, 4))
    expected = np.stack([scipy.linalg.solve_discrete_lyapunov(x, y) for x, y in zip(small, q2)])
    for method in ("direct", "bilinear"):
        got = _run(lambda x, y, m=method: la.solve_discrete_lyapunov(x, y, method=m), small, q2)
        np.testing.assert_allclose(got, expected)


@pytest.mark.parametrize("mode", ["full", "economic", "r", "raw", "complete", "reduced"])
@pytest.mark.parametrize("pivoting", [False, True])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_qr_modes_match_scipy(rng, mode, pivoting, shape):
    a = rng.normal(size=shape)
    got = _run(lambda x: la.qr(x, mode=mode, pivoting=pivoting), a)
    got = got if isinstance(got, list) else [got]
    sp_mode = {"complete": "full", "reduced": "economic"}.get(mode, mode)
    expected = scipy.linalg.qr(a, mode=sp_mode, pivoting=pivoting)
    if sp_mode == "raw":
        expected = (*expected[0], *expected[1:])
    elif not isinstance(expected, tuple):
        expected = (expected,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e)


@pytest.mark.parametrize("output", ["real", "complex"])
def test_schur_and_qz_match_scipy(rng, output):
    a, b = rng.normal(size=(2, 4, 4)), rng.normal(size=(2, 4, 4))
    t, z = _run(lambda x: la.schur(x, output=output), a)
    np.testing.assert_allclose(np.einsum("...ij,...jk,...lk->...il", z, t, z.conj()), a,
                               atol=1e-10)
    for sort in (None, "lhp"):
        got = _run(lambda x, y, s=sort: la.qz(x, y, output=output, sort=s,
                                              return_eigenvalues=s is not None), a, b)
        for k in range(2):
            fn = (scipy.linalg.qz(a[k], b[k], output=output) if sort is None
                  else scipy.linalg.ordqz(a[k], b[k], sort=sort, output=output))
            for g, e in zip(got, fn):
                np.testing.assert_allclose(g[k], e, atol=1e-10)


def test_public_names_are_not_shadowed_by_modules():
    import types

    assert not [n for n in la.__all__ if isinstance(getattr(la, n), types.ModuleType)]


def test_discrete_are_batched(rng):
    a = 0.5 * rng.normal(size=(2, 3, 3))
    b = rng.normal(size=(3, 2))
    got = _run(lambda x, y: la.solve_discrete_are(x, y, np.eye(3), np.eye(2)), a, b)
    expected = [scipy.linalg.solve_discrete_are(x, b, np.eye(3), np.eye(2)) for x in a]
    np.testing.assert_allclose(got, np.stack(expected))


def test_tensorinv_is_one_op_with_static_shape_and_shape_inference(rng):
    a = pt.tensor("a", shape=(4, 6, 8, 3))
    ai = la.tensorinv(a)
    assert isinstance(ai.owner.op, la.TensorInv) and ai.type.shape == (8, 3, 4, 6)
    b = pt.tensor3("b")
    bv = rng.normal(size=(30, 2, 15))
    f = compile_py([b], [la.tensorinv(b, ind=1), la.tensorinv(b, ind=1).shape])
    got, shape = f(bv)
    np.testing.assert_allclose(got, np.linalg.tensorinv(bv, ind=1), rtol=1e-8)
    assert tuple(shape) == (2, 15, 30)
    with pytest.raises(ValueError, match="product of the first 2 axes"):
        compile_py([b], la.tensorinv(b))(rng.normal(size=(2, 3, 4)))


@pytest.mark.parametrize("driver", ["evr", "evd"])
@pytest.mark.parametrize("lower", [True, False])
def test_eigh_driver_matches_scipy_with_that_driver(driver, lower):
    rng = np.random.default_rng(7)
    a = rng.normal(size=(5, 5))
    a = a + a.T
    x = pt.matrix("x")
    w, v = function([x], eigh(x, lower=lower, driver=driver))(a)
    want_w, want_v = scipy.linalg.eigh(a, lower=lower, driver=driver)
    np.testing.assert_allclose(w, want_w, rtol=1e-12, atol=1e-12)
    # eigenvectors agree up to the sign of each column
    np.testing.assert_allclose(np.abs(np.sum(v * want_v, axis=0)), 1.0, rtol=1e-10)


def test_eigh_rejects_an_unknown_driver():
    with pytest.raises(ValueError, match="driver must be one of"):
        eigh(pt.matrix("x"), driver="gvx")
