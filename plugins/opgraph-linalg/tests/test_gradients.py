"""Pullbacks against finite differences (verify_grad), pushforwards against pullbacks."""

from __future__ import annotations

import numpy as np
import opgraph_linalg as la
import pytest
from helpers_la import check_grad, compile_py, spd, well_conditioned

import opgraph.tensor as pt
from opgraph.gradient import grad, pullback, pushforward, verify_grad


def test_cholesky_grad_reads_one_triangle(rng):
    a = spd(rng, 4)
    check_grad(la.cholesky, [a], rng)
    check_grad(lambda x: la.cholesky(x, lower=False), [a], rng)


def test_cholesky_grad_through_a_product(rng):
    check_grad(lambda r: la.cholesky(pt.dot(r, r.T) + 4 * pt.eye(4)), [rng.normal(size=(4, 4))],
               rng)


def test_cholesky_grad_batched_and_broadcast(rng):
    r = rng.normal(size=(2, 3, 3))
    check_grad(lambda x: la.cholesky(pt.matmul(x, x.dimshuffle(0, 2, 1)) + 3 * pt.eye(3)), [r],
               rng)


@pytest.mark.parametrize("assume_a", ["gen", "sym", "pos", "diagonal", "tridiagonal"])
@pytest.mark.parametrize("b_shape", [(4,), (4, 2)])
@pytest.mark.parametrize("transposed", [False, True])
def test_solve_grad(rng, assume_a, b_shape, transposed):
    a = spd(rng, 4)
    for lower in (False, True):
        check_grad(lambda x, y, lower=lower: la.solve(x, y, assume_a=assume_a, lower=lower,
                                                      transposed=transposed),
                   [a, rng.normal(size=b_shape)], rng)


def test_solve_transposed_and_batched_grad(rng):
    a = well_conditioned(rng, 3)
    check_grad(lambda x, y: la.solve(x, y, transposed=True), [a, rng.normal(size=3)], rng)
    check_grad(lambda x, y: la.solve(x, y, b_ndim=1),
               [well_conditioned(rng, 3, (2,)), rng.normal(size=(1, 3))], rng)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", [0, 1])
@pytest.mark.parametrize("unit_diagonal", [False, True])
def test_solve_triangular_grad(rng, lower, trans, unit_diagonal):
    a = well_conditioned(rng, 4)
    a = np.tril(a) if lower else np.triu(a)
    check_grad(lambda x, y: la.solve_triangular(x, y, lower=lower, trans=trans,
                                                unit_diagonal=unit_diagonal),
               [a, rng.normal(size=(4, 2))], rng)


@pytest.mark.parametrize("lower", [True, False])
def test_cho_solve_grad(rng, lower):
    c = np.linalg.cholesky(spd(rng, 4))
    c = c if lower else c.T
    check_grad(lambda x, y: la.cho_solve((x, lower), y), [c, rng.normal(size=4)], rng)


def test_lu_family_grads(rng):
    # rows scaled so partial pivoting really permutes
    a = well_conditioned(rng, 4)[[2, 0, 3, 1]] * np.array([[1.0], [0.1], [1.0], [0.2]])
    check_grad(lambda x: la.lu(x)[1].sum() + (la.lu(x)[2] ** 2).sum(), [a], rng)
    check_grad(lambda x: (la.lu_factor(x)[0] ** 2).sum(), [a], rng)
    for trans in (0, 1):
        check_grad(lambda x, y, trans=trans: la.lu_solve(la.lu_factor(x), y, trans=trans),
                   [a, rng.normal(size=(4, 2))], rng)


def test_inverse_det_grads(rng):
    m = well_conditioned(rng, 4)
    check_grad(la.inv, [m], rng)
    check_grad(la.det, [m], rng)
    check_grad(lambda x: la.slogdet(x)[1], [m], rng)
    check_grad(la.pinv, [rng.normal(size=(4, 3))], rng)
    check_grad(la.det, [well_conditioned(rng, 3, (2, 2))], rng)


def test_eigen_grads(rng):
    a = spd(rng, 4)
    check_grad(lambda x: la.eigh(x)[0], [a], rng)
    check_grad(lambda x: la.eigh(x)[1] ** 2, [a], rng)  # squared: no sign ambiguity
    check_grad(lambda x: la.eigh(x, UPLO="U")[0], [a], rng)
    check_grad(la.eigvalsh, [a], rng)
    check_grad(lambda x, y: la.eigvalsh(x, y), [a, spd(rng, 4)], rng)


def test_svd_qr_grads(rng):
    m = rng.normal(size=(5, 3))
    check_grad(lambda x: la.svd(x, compute_uv=False), [m], rng)

    def uv_loss(x):  # invariant under the sign of each singular pair
        u, s, vh = la.svd(x, full_matrices=False)
        w = pt.arange(1.0, 4.0)
        return (u**2 * w).sum() + (vh**2 * w[:, None]).sum() + s.sum()

    check_grad(uv_loss, [m], rng)
    for shape in [(5, 3), (3, 5), (3, 3)]:  # tall, wide, square
        x0 = rng.normal(size=shape)
        check_grad(lambda x: la.qr(x, mode="economic")[0], [x0], rng)
        check_grad(lambda x: la.qr(x, mode="economic")[1], [x0], rng)
        check_grad(lambda x: la.qr(x, mode="r"), [x0], rng)
    check_grad(lambda x: la.qr(x)[0].sum() + la.qr(x)[1].sum(), [rng.normal(size=(3, 5))], rng)


def test_other_grads(rng):
    m = well_conditioned(rng, 3)
    check_grad(lambda x: la.expm(0.3 * x), [m], rng)
    check_grad(pt.trace, [m], rng)
    check_grad(la.diag, [rng.normal(size=3)], rng)
    check_grad(lambda x: la.diagonal(x, 1), [m], rng)
    check_grad(la.kron, [m[:2], m[:, :2]], rng)
    check_grad(lambda x: la.norm(x, "nuc"), [m], rng)
    check_grad(lambda x: la.matrix_power(x, 3), [m], rng)
    check_grad(la.block_diag, [m[:2], m[:, :1]], rng)
    check_grad(lambda x: la.tril(x, -1) + la.triu(x, 1), [m], rng)


@pytest.mark.parametrize(
    "build",
    [la.cholesky, la.inv, la.det, lambda x: la.slogdet(x)[1], lambda x: la.expm(0.2 * x),
     lambda x: la.solve(x, x[:, 0]), lambda x: la.solve_triangular(x, x[0], lower=True),
     pt.trace],
    ids=["cholesky", "inv", "det", "slogdet", "expm", "solve", "solve_triangular", "trace"],
)
def test_pushforward_matches_pullback(rng, build):
    """<pushforward(t), u> == <t, pullback(u)> for random t, u."""
    a = spd(rng, 3)
    x = pt.dmatrix("x")
    out = build(x)
    t = pt.dmatrix("t")
    u = out.type("u")
    jvp = pushforward(out, [x], [t])  # structured like out
    vjp = pullback(out, [x], u)[0]
    tv = np.tril(rng.normal(size=(3, 3)))  # lower triangle: what cholesky reads
    uv = rng.normal(size=np.shape(compile_py([x], out)(a)))
    f = compile_py([x, t, u], [jvp, vjp])
    j, v = f(a, tv, uv)
    np.testing.assert_allclose(np.sum(j * uv), np.sum(tv * v), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("lower", [True, False])
def test_generalized_eigh_grads(rng, lower):
    a, b = spd(rng, 4), spd(rng, 4)
    check_grad(lambda x, y: la.eigh(x, y, lower=lower)[0], [a, b], rng)
    check_grad(lambda x, y: la.eigh(x, y, lower=lower)[1] ** 2, [a, b], rng)


@pytest.mark.parametrize(("permute_l", "p_indices"), [(True, False), (False, True)])
def test_lu_grad_every_output_form(rng, permute_l, p_indices):
    def loss(x):
        out = la.lu(x, permute_l=permute_l, p_indices=p_indices)
        return out[-1].sum() + (out[-2] ** 2).sum()

    check_grad(loss, [rng.normal(size=(2, 4, 4))], rng)


def test_tensor_solve_and_inverse_grads(rng):
    t = np.eye(6).reshape(2, 3, 6) + 0.1 * rng.normal(size=(2, 3, 6))
    check_grad(la.tensorsolve, [t, rng.normal(size=(2, 3))], rng)
    check_grad(la.tensorinv, [well_conditioned(rng, 4).reshape(2, 2, 4)], rng)


def test_linear_control_grads(rng):
    a, b, q = rng.normal(size=(3, 3)), rng.normal(size=(2, 2)), rng.normal(size=(3, 2))
    check_grad(la.solve_sylvester, [a, b, q], rng)
    check_grad(la.solve_continuous_lyapunov, [a, rng.normal(size=(3, 3))], rng)
    for method in ("direct", "bilinear"):
        check_grad(lambda x, y, m=method: la.solve_discrete_lyapunov(x, y, method=m),
                   [0.3 * a, rng.normal(size=(3, 3))], rng)


def test_verify_grad_takes_the_numpy_random_module():
    """PyTensor code passes ``rng=np.random``; the legacy global generator works too."""
    verify_grad(la.inv, [well_conditioned(np.random.default_rng(0), 3)], rng=np.random,
                mode="FAST_COMPILE")


@pytest.mark.parametrize("which", range(4), ids=["A", "B", "Q", "R"])
def test_discrete_are_grad(rng, which):
    values = [0.5 * rng.normal(size=(3, 3)), rng.normal(size=(3, 2)), np.eye(3), np.eye(2)]

    def fn(x):
        args = [pt.as_tensor_variable(v) for v in values]
        # Q and R are symmetric by definition: perturb them symmetrically
        args[which] = x if which < 2 else (x + x.T) / 2
        return la.solve_discrete_are(*args)

    check_grad(fn, [values[which]], rng)


def test_discrete_are_grad_off_symmetric_q_r(rng):
    """Q and R are read through their symmetric parts: finite differences may step off them."""
    a = np.array([[4.0, 3.0], [-4.5, -3.5]])
    b = np.array([[1.0], [-1.0]])
    q = np.array([[9.0, 6.0], [6.0, 4.0]])
    r = np.array([[1.0]])
    check_grad(la.solve_discrete_are, [a, b, q, r], rng, abs_tol=1e-6, rel_tol=1e-6)


@pytest.mark.parametrize("kwargs", [{"mode": "raw"}, {"mode": "economic", "pivoting": True}])
def test_qr_gradient_refused_where_not_defined(kwargs):
    x = pt.dmatrix("x")
    out = la.qr(x, **kwargs)
    with pytest.raises(NotImplementedError, match="Gradient of qr not implemented"):
        grad(out[0].sum(), x)
