"""opgraph.tensor.optimize: solutions against SciPy, gradients against finite differences."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.optimize as so
from helpers_la import check_grad, compile_py
from opgraph.tensor.optimize import (
    MinimizeOp,
    RootOp,
    ScipyWrapperOp,
    minimize,
    minimize_scalar,
    root,
    root_scalar,
)

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.gradient import DisconnectedInputError, grad, jacobian, pushforward, verify_grad
from opgraph.graph.basic import Constant
from opgraph.graph.replace import graph_replace, vectorize_graph


def _quadratic(x, a, b):
    """A convex quadratic with minimum where (a * x - b) = 0 elementwise, plus a coupling."""
    return ((a * x - b) ** 2).sum() + 0.1 * (x.sum() - 1.0) ** 2


@pytest.mark.parametrize("method", ["BFGS", "L-BFGS-B", "Newton-CG", "trust-ncg", "powell"])
def test_minimize_matches_scipy(rng, method):
    x, a, b = pt.dvector("x"), pt.dvector("a"), pt.dvector("b")
    hess = method in ("Newton-CG", "trust-ncg")
    jac = method != "powell"
    # trust-ncg stops with "bad approximation" when asked for more than its default precision
    kwargs = {} if method == "trust-ncg" else {"tol": 1e-9}
    x_star, ok = minimize(_quadratic(x, a, b), x, method=method, jac=jac, hess=hess,
                          optimizer_kwargs=kwargs)
    fn = compile_py([x, a, b], [x_star, ok])
    av, bv, x0 = rng.uniform(1, 2, 4), rng.normal(size=4), np.zeros(4)
    got, success = fn(x0, av, bv)

    def f(z):
        return ((av * z - bv) ** 2).sum() + 0.1 * (z.sum() - 1.0) ** 2

    expected = so.minimize(f, x0, method="BFGS", tol=1e-12).x
    assert success
    np.testing.assert_allclose(got, expected, atol=1e-4)


def test_minimize_grad_wrt_parameters(rng):
    def fun(x, a, b):
        return minimize(_quadratic(x, a, b), x, optimizer_kwargs={"tol": 1e-10})[0]

    check_grad(fun, [np.zeros(3), rng.uniform(1, 2, 3), rng.normal(size=3)], rng, eps=1e-6)


def test_minimize_matrix_x_and_matrix_parameter(rng):
    def fun(t):
        x = pt.dmatrix("x")
        obj = ((x - t) ** 2).sum() + (x**4).sum() * 0.01
        x_star = minimize(obj, x, method="trust-exact", hess=True,
                          optimizer_kwargs={"tol": 1e-12})[0]
        # start from zeros: the solution (not the starting point) is what is checked
        return graph_replace(x_star, {x: pt.zeros((2, 2))})

    check_grad(fun, [rng.normal(size=(2, 2))], rng, eps=1e-6)


def test_minimize_several_unknowns_are_packed(rng):
    u, v, a = pt.dscalar("u"), pt.dvector("v"), pt.dvector("a")
    obj = (u - 2.0) ** 2 + ((v - a) ** 2).sum()
    (u_star, v_star), ok = minimize(obj, [u, v])
    assert u_star.type.ndim == 0 and v_star.type.ndim == 1
    fn = compile_py([u, v, a], [u_star, v_star, ok])
    av = rng.normal(size=3)
    got_u, got_v, success = fn(0.0, np.zeros(3), av)
    assert success
    np.testing.assert_allclose(got_u, 2.0, atol=1e-6)
    np.testing.assert_allclose(got_v, av, atol=1e-6)


def test_minimize_scalar_against_scipy_and_grad(rng):
    x, a = pt.dscalar("x"), pt.dscalar("a")
    x_star, ok = minimize_scalar(pt.cosh(x - a) + 0.5 * x**2, x)
    fn = compile_py([x, a], [x_star, ok])
    got, success = fn(0.0, 1.5)
    expected = so.minimize_scalar(lambda z: np.cosh(z - 1.5) + 0.5 * z**2).x
    assert success
    np.testing.assert_allclose(got, expected, atol=1e-6)
    verify_grad(lambda x, a: minimize_scalar(pt.cosh(x - a) + 0.5 * x**2, x)[0],
                [np.array(0.0), np.array(1.5)], rng=rng, eps=1e-6, mode="FAST_COMPILE")


@pytest.mark.parametrize("method", ["hybr", "lm"])
def test_root_system_against_scipy_and_grad(rng, method):
    x, a = pt.dvector("x"), pt.dvector("a")

    def eqs(x, a):
        return pt.stack([x[0] ** 3 + x[1] - a[0], x[1] - x[0] * a[1]])

    x_star, ok = root(eqs(x, a), x, method=method)
    fn = compile_py([x, a], [x_star, ok])
    av = np.array([2.0, 0.5])
    got, success = fn(np.ones(2), av)
    expected = so.root(lambda z: [z[0] ** 3 + z[1] - av[0], z[1] - z[0] * av[1]],
                       np.ones(2)).x
    assert success
    np.testing.assert_allclose(got, expected, atol=1e-8)
    check_grad(lambda x, a: root(eqs(x, a), x, method=method)[0], [np.ones(2), av], rng,
               eps=1e-6)


@pytest.mark.parametrize(("method", "jac", "hess"),
                         [("secant", False, False), ("newton", True, False),
                          ("halley", True, True)])
def test_root_scalar_against_scipy_and_grad(rng, method, jac, hess):
    x, a = pt.dscalar("x"), pt.dscalar("a")
    x_star, ok = root_scalar(x**3 - a, x, method=method, jac=jac, hess=hess)
    fn = compile_py([x, a], [x_star, ok])
    got, success = fn(1.0, 5.0)
    assert success
    np.testing.assert_allclose(got, 5.0 ** (1 / 3))
    # d/da a^(1/3) = a^(-2/3) / 3
    g = compile_py([x, a], grad(x_star, a))(1.0, 5.0)
    np.testing.assert_allclose(g, 5.0 ** (-2 / 3) / 3)
    verify_grad(lambda x, a: root_scalar(x**3 - a, x, method=method, jac=jac, hess=hess)[0],
                [np.array(1.0), np.array(5.0)], rng=rng, eps=1e-6, mode="FAST_COMPILE")


def test_args_are_the_nearest_independent_variables():
    x, a = pt.dscalar("x"), pt.dscalar("a")
    shifted = a * 2.0
    const = pt.cast(pt.constant(1), "float64")  # no Constant itself, but only constants
    x_star, _ = minimize((x - shifted) ** 2 + const, x)
    assert x_star.owner.inputs == [x, shifted]


def test_connection_pattern_follows_the_stationarity_condition():
    x = pt.dscalar("x")
    a, b, n = pt.dscalar("a"), pt.dscalar("b"), pt.lscalar("n")
    # b enters the objective but not its gradient in x; n is an integer
    obj = (x - a) ** 2 + b**2 + pt.cast(n, "float64")
    op = MinimizeOp(x, a, b, n, objective=obj)
    assert op.connection_pattern() == [[True, False], [True, False], [False, False],
                                       [False, False]]
    x_star, _ = op(x, a, b, n)
    with pytest.raises(DisconnectedInputError):
        grad(x_star, b)
    g = compile_py([x, a, b, n], grad(x_star, [a, b], disconnected_inputs="ignore"),
                   on_unused_input="ignore")
    np.testing.assert_allclose(g(0.0, 1.0, 2.0, 3), [1.0, 0.0], atol=1e-6)


def test_repeated_and_constant_args_move_into_the_inner_graph():
    x, a, b = pt.dscalar("x"), pt.dscalar("a"), pt.dscalar("b")
    op = MinimizeOp(x, a, b, objective=(x - a) ** 2 + (x - 3 * b) ** 2)
    c = pt.dscalar("c")
    node = op.make_node(x, c, c)
    fn = function([x, c], node.outputs)
    [inner] = [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, ScipyWrapperOp)]
    assert inner.inputs == [inner.inputs[0], inner.inputs[1]] and len(inner.inputs) == 2
    np.testing.assert_allclose(fn(0.0, 1.0)[0], 2.0, atol=1e-6)
    node = op.make_node(x, pt.constant(1.0), c)
    fn = function([x, c], node.outputs)
    [inner] = [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, ScipyWrapperOp)]
    assert len(inner.inputs) == 2 and not any(isinstance(v, Constant) for v in inner.inputs[1:])
    np.testing.assert_allclose(fn(0.0, 1.0)[0], 2.0, atol=1e-6)


def test_zero_dimensional_x_keeps_its_shape():
    x, a = pt.dscalar("x"), pt.dscalar("a")
    for solver in (minimize, root):
        x_star, _ = solver((x - a) ** 3 + (x - a) if solver is root else (x - a) ** 2, x)
        assert x_star.type.ndim == 0
        got = compile_py([x, a], x_star)(5.0, 2.0)
        assert np.shape(got) == ()
        np.testing.assert_allclose(got, 2.0, atol=1e-6)


def test_bad_input_is_a_clear_error():
    x = pt.dvector("x")
    with pytest.raises(ValueError, match="objective must be a scalar"):
        minimize(x**2, x)
    with pytest.raises(ValueError, match="method 'newton-raphson' is not a method"):
        minimize((x**2).sum(), x, method="newton-raphson")
    with pytest.raises(ValueError, match="method 'brent' is not a method"):
        root(x**2, x, method="brent")
    with pytest.raises(TypeError, match="optimizer_kwargs must be a dict"):
        minimize((x**2).sum(), x, optimizer_kwargs=[1])
    with pytest.raises(ValueError, match="must be scalars"):
        minimize_scalar((x**2).sum(), x)
    with pytest.raises(TypeError, match="input 1"):
        RootOp(x, pt.dscalar("a"), equations=x).make_node(x, pt.dvector("b"))


def test_pushforward_matches_the_jacobian(rng):
    x, a = pt.dvector("x"), pt.dvector("a")
    da = pt.dvector("da")
    x_star, _ = minimize(((x - a) ** 2).sum() + (x**4).sum(), x,
                         optimizer_kwargs={"tol": 1e-12})
    forward = pushforward(x_star, a, da, use_op_pushforward=True)
    fn = compile_py([x, a, da], [forward, pt.dot(jacobian(x_star, a), da)])
    got, expected = fn(np.zeros(3), rng.normal(size=3), rng.normal(size=3))
    np.testing.assert_allclose(got, expected, rtol=1e-8)
    s, c = pt.dscalars("s", "c")
    root_s, _ = root_scalar(s**3 - c, s)
    tangent = compile_py([s, c], pushforward(root_s, c, pt.constant(2.0),
                                             use_op_pushforward=True))(1.0, 5.0)
    np.testing.assert_allclose(tangent, 2 * 5.0 ** (-2 / 3) / 3)


def test_vectorized_over_a_batch_of_parameters():
    a, x, y = pt.dscalars("a", "x", "y")
    eqs = pt.stack([a * x**2 - y - 1, x - a * y**2 + 1])
    (x_star, y_star), _ = root(eqs, [x, y], optimizer_kwargs={"tol": 1e-10})
    solution = pt.stack([x_star, y_star])
    d_sum_da = grad(solution.sum(), a)
    batch = pt.dvector("batch")
    batched_solution, batched_grad = vectorize_graph([solution, d_sum_da], {a: batch})
    fn = compile_py([batch, x, y], [batched_solution, batched_grad])
    values = np.linspace(1.0, 10.0, 4)
    got, got_grad = fn(values, 1.0, 1.0)
    root_term = np.sqrt(4 * values + 1) + 1  # the root with x, y > 0, reached from (1, 1)
    np.testing.assert_allclose(got, np.stack([-1 + root_term**2 / (4 * values),
                                              root_term / (2 * values)], axis=1), rtol=1e-8)
    one = compile_py([a, x, y], d_sum_da)
    np.testing.assert_allclose(got_grad, [one(v, 1.0, 1.0) for v in values], rtol=1e-8)


def test_a_compiled_function_pickles_with_its_optimizer():
    x, a = pt.dvector("x"), pt.dvector("a")
    x_star, _ = minimize(((x - a) ** 2).sum(), x)
    fn = compile_py([x, a], x_star)
    np.testing.assert_allclose(fn(np.zeros(2), np.ones(2)), np.ones(2), atol=1e-6)
    again = pickle.loads(pickle.dumps(fn))
    np.testing.assert_allclose(again(np.zeros(2), np.array([2.0, 3.0])), [2.0, 3.0], atol=1e-6)
