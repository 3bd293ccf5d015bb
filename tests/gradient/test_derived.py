"""jacobian, hessian, hessian-vector products, gradient-flow ops and verify_grad itself."""

from __future__ import annotations

import numpy as np
import pytest
from grad_toys import Scale

import opgraph.tensor as pt
from opgraph.autodiff.evaluate import compile_callable
from opgraph.gradient import (
    DisconnectedInputError,
    GradClip,
    GradientError,
    NullTypeGradError,
    ZeroGrad,
    disconnected_grad,
    grad,
    grad_clip,
    grad_scale,
    hessian,
    hessian_vector_product,
    jacobian,
    numeric_jacobian,
    undefined_grad,
    verify_grad,
    zero_grad,
)
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op


def _f(x, A):
    return pt.tanh(pt.dot(A, x)) * x[0] + x**2


def test_jacobian_loop_matches_finite_differences():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(3, 3))
    x = pt.tensor(dtype="float64", shape=(3,), name="x")
    J = jacobian(_f(x, A), x)
    xv = rng.normal(size=3)
    got = compile_callable([x], [J])(xv)[0]
    f = compile_callable([x], [_f(x, A)])
    want = numeric_jacobian(lambda v: f(v)[0], [xv], 1e-6)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_jacobian_shapes_and_list_wrt():
    x = pt.tensor(dtype="float64", shape=(2, 3), name="x")
    y = pt.dvector("y")
    e = (x * 2.0).sum(axis=0) + y.sum()
    jx, jy = jacobian(e, [x, y])
    fn = compile_callable([x, y], [jx, jy])
    gx, gy = fn(np.ones((2, 3)), np.ones(4))
    assert gx.shape == (3, 2, 3) and gy.shape == (3, 4)
    np.testing.assert_allclose(gx[1], [[0, 2, 0], [0, 2, 0]])
    np.testing.assert_allclose(gy, np.ones((3, 4)))


def test_jacobian_of_scalar_is_grad():
    x = pt.dvector("x")
    j = jacobian((x**2).sum(), x)
    np.testing.assert_allclose(compile_callable([x], [j])(np.arange(3.0))[0], [0, 2, 4])


def test_hessian_matches_finite_differences():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(3, 3))
    x = pt.tensor(dtype="float64", shape=(3,), name="x")
    cost = (pt.tanh(pt.dot(A, x)) ** 2).sum() + (x**3).sum()
    H = hessian(cost, x)
    g = grad(cost, x)
    xv = rng.normal(size=3)
    got = compile_callable([x], [H])(xv)[0]
    gf = compile_callable([x], [g])
    want = numeric_jacobian(lambda v: gf(v)[0], [xv], 1e-6)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got, got.T, atol=1e-10)


@pytest.mark.parametrize("use_rop", [True, False])
def test_hessian_vector_product(use_rop):
    rng = np.random.default_rng(2)
    A = rng.normal(size=(3, 3))
    x = pt.tensor(dtype="float64", shape=(3,), name="x")
    p = pt.dvector("p")
    cost = (pt.tanh(pt.dot(A, x)) ** 2).sum() + (x**3).sum()
    hv = hessian_vector_product(cost, x, p, use_rop=use_rop)
    H = hessian(cost, x)
    xv, pv = rng.normal(size=3), rng.normal(size=3)
    hv_val, H_val = compile_callable([x, p], [hv, H])(xv, pv)
    np.testing.assert_allclose(hv_val, H_val @ pv, rtol=1e-10, atol=1e-12)


def test_zero_grad_and_consider_constant():
    x = pt.dvector("x")
    cost = (zero_grad(x) * x).sum()
    g = grad(cost, x)
    np.testing.assert_allclose(compile_callable([x], [g])(np.array([1.0, 3.0]))[0], [1.0, 3.0])
    assert ZeroGrad() == ZeroGrad()
    gz = grad(zero_grad(x).sum(), x)  # connected, zero
    np.testing.assert_allclose(compile_callable([x], [gz])(np.ones(2))[0], [0.0, 0.0])


def test_disconnected_grad_cuts_the_path():
    x = pt.dvector("x")
    with pytest.raises(DisconnectedInputError):
        grad(disconnected_grad(x).sum(), x)
    g = grad((disconnected_grad(x) * x).sum(), x)
    np.testing.assert_allclose(compile_callable([x], [g])(np.array([2.0, 5.0]))[0], [2.0, 5.0])


def test_undefined_grad_errors_only_when_needed():
    x, y = pt.dvector("x"), pt.dvector("y")
    cost = (undefined_grad(x) * y).sum()
    with pytest.raises(NullTypeGradError, match="UndefinedGrad"):
        grad(cost, x)
    gy = grad(cost, y)
    np.testing.assert_allclose(compile_callable([x, y], [gy])(np.ones(2), np.ones(2))[0], [1, 1])


def test_grad_clip_and_scale():
    x = pt.dvector("x")
    g = grad((grad_clip(x, -1.0, 1.0) * np.array([0.5, 3.0, -4.0])).sum(), x)
    np.testing.assert_allclose(compile_callable([x], [g])(np.zeros(3))[0], [0.5, 1.0, -1.0])
    s = grad((grad_scale(x, 3.0) ** 2).sum(), x)
    np.testing.assert_allclose(compile_callable([x], [s])(np.array([1.0, 2.0]))[0], [6.0, 12.0])
    with pytest.raises(ValueError, match="upper_bound"):
        GradClip(1.0, -1.0)
    fwd = compile_callable([x], [grad_clip(x, -1, 1), grad_scale(x, 3.0)])(np.array([5.0]))
    assert [float(v[0]) for v in fwd] == [5.0, 5.0]


class _WrongGrad(Op):
    """y = x * w, whose pullback for w is off at one position (to test the report)."""

    def make_node(self, x, w):  # type: ignore[no-untyped-def]
        x, w = pt.as_tensor_variable(x), pt.as_tensor_variable(w)
        return Apply(self, [x, w], [x.type()])

    def perform(self, node, inputs, out):  # type: ignore[no-untyped-def]
        out[0][0] = np.asarray(inputs[0] * inputs[1])

    def pullback(self, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        x, w = inputs
        (g,) = cotangents
        bump = np.zeros((2, 3))
        bump[1, 2] = 1.0
        return [g * w, g * x + bump]


def test_verify_grad_reports_worst_mismatch_input_and_position():
    with pytest.raises(GradientError) as info:
        verify_grad(lambda x, w: _WrongGrad()(x, w),
                    [np.ones((2, 3)), np.full((2, 3), 2.0)], rng=np.random.default_rng(0))
    err = info.value
    assert isinstance(err, AssertionError)
    assert err.arg == 1 and err.err_pos == (1, 2) and err.shape == (2, 3)
    assert "argument 1" in str(err) and "(1, 2)" in str(err)
    assert err.abs_err == pytest.approx(1.0)


def test_verify_grad_accepts_correct_toy_op_and_checks_arguments():
    verify_grad(lambda x: Scale(3.0)(x), [np.ones(4)])
    with pytest.raises(TypeError, match="floats"):
        verify_grad(lambda x: x, [np.arange(3)])
    with pytest.raises(TypeError, match="list"):
        verify_grad(lambda x: x, np.ones(3))


def _mlp_like(x, W):
    return pt.tanh(pt.dot(W, x)) * x + pt.exp(x).sum() + pt.dot(x, W).sum(axis=0, keepdims=False)


def test_vectorized_jacobian_matches_the_loop_and_finite_differences():
    rng = np.random.default_rng(5)
    x, W = pt.dvector("x"), pt.dmatrix("W")  # sizes unknown statically
    xs = pt.tensor(dtype="float64", shape=(3,), name="xs")
    Ws = pt.tensor(dtype="float64", shape=(3, 3), name="Ws")
    jv_x, jv_W = jacobian(_mlp_like(x, W), [x, W], vectorize=True)
    jl_x, jl_W = jacobian(_mlp_like(xs, Ws), [xs, Ws], vectorize=False)
    xv, Wv = rng.normal(size=3), rng.normal(size=(3, 3))
    vx, vW = compile_callable([x, W], [jv_x, jv_W])(xv, Wv)
    lx, lW = compile_callable([xs, Ws], [jl_x, jl_W])(xv, Wv)
    assert vW.shape == (3, 3, 3)
    np.testing.assert_allclose(vx, lx, rtol=1e-12)
    np.testing.assert_allclose(vW, lW, rtol=1e-12)
    f = compile_callable([x, W], [_mlp_like(x, W)])
    num = numeric_jacobian(lambda a, b: f(a, b)[0], [xv, Wv], 1e-6)
    np.testing.assert_allclose(vx, num[0], rtol=1e-6, atol=1e-8)


def test_unknown_size_through_indexing_loops_over_rows():
    x = pt.dvector("x")
    J = jacobian(x[1:] * x[0], x)
    v = np.array([2.0, 3.0, 5.0])
    got = compile_callable([x], [J])(v)[0]
    want = np.array([[3.0, 2.0, 0.0], [5.0, 0.0, 2.0]])
    np.testing.assert_allclose(got, want)


def test_vectorize_falls_back_to_the_loop_when_size_is_static():
    x = pt.tensor(dtype="float64", shape=(4,), name="x")
    J = jacobian(x[1:] ** 2, x, vectorize=True)
    got = compile_callable([x], [J])(np.arange(4.0))[0]
    want = np.zeros((3, 4))
    want[[0, 1, 2], [1, 2, 3]] = [2.0, 4.0, 6.0]
    np.testing.assert_allclose(got, want)


def test_hessian_vector_product_ignores_the_values_a_fill_only_shapes():
    """H p of sum(x**2 - y**2) is (2 p_x, -2 p_y) whatever x and y hold, NaN included: the
    tangent of fill(x, 1) (the gradient's seed) is disconnected, not a zero that meets
    NaN (PyTensor's TestHessianVectorProduct.test_multiple_wrt)."""
    x, y, px, py = (pt.dvector(n) for n in ("x", "y", "px", "py"))
    hx, hy = hessian_vector_product((x**2 - y**2).sum(), wrt=[x, y], p=[px, py])
    nan = np.full(3, np.nan)
    got = compile_callable([x, y, px, py], [hx, hy])(nan, nan, [1.0, 2.0, 3.0],
                                                       [3.0, 2.0, 1.0])
    np.testing.assert_allclose(got[0], [2.0, 4.0, 6.0])
    np.testing.assert_allclose(got[1], [-6.0, -4.0, -2.0])
