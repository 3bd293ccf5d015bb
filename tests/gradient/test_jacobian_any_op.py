"""jacobian/hessian through any op with run-time lengths, against finite differences.

Indexing, joins and ops without a batching rule (the fallback's Blockwise) must
all work when the length of the differentiated vector is only known at run
time, and jacobian of a jacobian (hessian, third derivatives) too.
"""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.autodiff.evaluate import compile_callable
from opgraph.autodiff.reverse import apply_nodes_above
from opgraph.gradient import Batched, Rop, hessian, jacobian, verify_grad
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.ifelse import IfElse

THETA = np.array([0.5, -0.3, 1.2, 0.7])


def numeric_jacobian(f, x, eps=1e-6):
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = eps
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * eps))
    return np.stack(cols, axis=-1)


def numeric_hessian(f, x, eps=1e-4):
    n = x.size
    h = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            ei, ej = np.eye(n)[i] * eps, np.eye(n)[j] * eps
            h[i, j] = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej) + f(x - ei - ej)) / (
                4 * eps * eps)
    return h


def logp_sym(t):
    return (-(t[0] ** 2) * t[1] - pt.exp(t[1]) + (t[2:] ** 3).sum()
            + pt.join(0, t, t[:2]).prod()
            + (t[pt.constant(np.array([0, 2, 2]))] ** 3).sum()
            + pt.ifelse(t[0] > 0, t[1:], -t[1:]).prod())


def logp_num(t):
    return (-(t[0] ** 2) * t[1] - np.exp(t[1]) + (t[2:] ** 3).sum()
            + np.prod(np.concatenate([t, t[:2]]))
            + (t[[0, 2, 2]] ** 3).sum() + np.prod(t[1:] if t[0] > 0 else -t[1:]))


def test_hessian_of_indexed_theta_with_runtime_length():
    theta = pt.dvector("theta")
    cost = logp_sym(theta)
    assert theta.type.shape == (None,)
    assert pt.grad(cost, theta).type.shape == (None,)
    H = hessian(cost, theta)
    # ifelse has no batching rule: part of the hessian is the fallback, a Blockwise of it
    assert any(isinstance(n.op, Blockwise) and isinstance(n.op.core_op, IfElse)
               for n in apply_nodes_above([H], set()))
    got = compile_callable([theta], [H])(THETA)[0]
    np.testing.assert_allclose(got, numeric_hessian(logp_num, THETA), rtol=1e-5, atol=1e-6)


def test_hessian_static_and_dynamic_agree():
    dyn = pt.dvector("theta")
    static = pt.tensor(dtype="float64", shape=(4,), name="theta")
    h_dyn = compile_callable([dyn], [hessian(logp_sym(dyn), dyn)])(THETA)[0]
    h_static = compile_callable([static], [hessian(logp_sym(static), static)])(THETA)[0]
    np.testing.assert_allclose(h_dyn, h_static, rtol=1e-12)


@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_matrix_expression_through_indexing(vectorize):
    x = pt.dvector("x")
    y = x[1:].dimshuffle(0, "x") * x[:-1].dimshuffle("x", 0)
    J = jacobian(y, x, vectorize=vectorize)
    got = compile_callable([x], [J])(THETA)[0]
    want = numeric_jacobian(lambda v: np.outer(v[1:], v[:-1]), THETA)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_third_derivative_jacobian_of_hessian():
    x = pt.dvector("x")
    cost = (x[0] ** 3) * x[1] + pt.sin(x[1:]).sum()
    T = jacobian(hessian(cost, x), x)
    got = compile_callable([x], [T])(THETA)[0]
    want = numeric_jacobian(
        lambda v: numeric_hessian(lambda w: w[0] ** 3 * w[1] + np.sin(w[1:]).sum(), v, 1e-3),
        THETA, eps=1e-3)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)


def test_batched_node_gradient_and_pushforward():
    """A Batched loop is differentiable in both modes (its own pullback/pushforward)."""
    row = pt.dvector("row")
    split_node = pt.split(row, [1, 3], 2)[1].owner
    op = Batched(split_node.op, (True, False, False))

    def fun(X):
        _, b = op(X, split_node.inputs[1], split_node.inputs[2])
        return (b**2).sum() + b[:, 0].prod()

    verify_grad(fun, [np.random.default_rng(0).normal(size=(3, 4))])
    X, V = pt.dmatrix("X"), pt.dmatrix("V")
    _, b = op(X, split_node.inputs[1], split_node.inputs[2])
    jvp = Rop(b, X, V)
    xv = np.random.default_rng(1).normal(size=(2, 4))
    vv = np.random.default_rng(2).normal(size=(2, 4))
    np.testing.assert_allclose(compile_callable([X, V], [jvp])(xv, vv)[0], vv[:, 1:])


def test_jacobian_wrt_several_and_tuple_structure():
    x, z = pt.dvector("x"), pt.dscalar("z")
    y = x[1:] * z
    jt = jacobian(y, (x, z))
    assert isinstance(jt, tuple) and len(jt) == 2
    jx, jz = compile_callable([x, z], list(jt))(THETA, 2.0)
    np.testing.assert_allclose(jx, numeric_jacobian(lambda v: v[1:] * 2.0, THETA), atol=1e-8)
    np.testing.assert_allclose(jz, THETA[1:], atol=1e-12)


@pytest.mark.parametrize("static", [False, True])
def test_jacobian_of_an_empty_expression(static):
    x = pt.tensor(dtype="float64", shape=(4,) if static else (None,), name="x")
    J = jacobian(x[4:] ** 2, x)
    assert compile_callable([x], [J])(THETA)[0].shape == (0, 4)
