"""verify_grad for every differentiable tensor op (random float64 inputs), Rop against Lop.

Graphs are evaluated through ``function()`` when a linker plugin is installed,
else through each node's ``perform`` (the core session has no plugin).
"""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.autodiff.evaluate import compile_callable
from opgraph.gradient import Lop, Rop, verify_grad

RNG = np.random.default_rng(42)


def rand(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, size=shape)


def pos(*shape):
    return RNG.uniform(0.5, 2.0, size=shape)


def distinct(*shape):
    """Values far apart, so max/min/sort have a unique, stable winner."""
    n = int(np.prod(shape))
    return (RNG.permutation(n).astype("float64") * 0.37 + 0.1).reshape(shape)


# (id, function of symbolic inputs, input values)
ELEMWISE = [
    ("exp", lambda x: pt.exp(x), [rand(3, 4)]),
    ("log", lambda x: pt.log(x), [pos(3, 4)]),
    ("log1p", lambda x: pt.log1p(x), [pos(5)]),
    ("expm1", lambda x: pt.expm1(x), [rand(5)]),
    ("tanh", lambda x: pt.tanh(x), [rand(3, 4)]),
    ("sin_cos", lambda x: pt.sin(x) * pt.cos(x), [rand(6)]),
    ("tan", lambda x: pt.tan(x), [rand(6)]),
    ("sqrt", lambda x: pt.sqrt(x), [pos(2, 3)]),
    ("sigmoid", lambda x: pt.sigmoid(x), [rand(5)]),
    ("softplus", lambda x: pt.softplus(x), [rand(5) * 3]),
    ("arcsin_arccos_arctan", lambda x: pt.arcsin(x) + pt.arccos(x) * pt.arctan(x),
     [rand(5) * 0.8]),
    ("sinh_cosh", lambda x: pt.sinh(x) + pt.cosh(x), [rand(4)]),
    ("arcsinh_arctanh", lambda x: pt.arcsinh(x) + pt.arctanh(x), [rand(4) * 0.8]),
    ("abs", lambda x: abs(x), [pos(4) * np.array([1, -1, 1, -1])]),
    ("neg_sqr", lambda x: -pt.sqr(x), [rand(4)]),
    ("reciprocal", lambda x: pt.reciprocal(x), [pos(4)]),
    ("pow_const", lambda x: x**3, [rand(4)]),
    ("pow", lambda x, y: x**y, [pos(3, 2), rand(3, 2)]),
    ("add_broadcast", lambda x, y: x + y, [rand(3, 4), rand(4)]),
    ("mul_row_col", lambda x, y: x * y, [rand(3, 1), rand(1, 4)]),
    ("sub_scalar", lambda x, y: x - y, [rand(3, 4), rand()]),
    ("true_div", lambda x, y: x / y, [rand(3, 4), pos(3, 4)]),
    ("maximum_minimum", lambda x, y: pt.maximum(x, y) + pt.minimum(x, y) * x,
     [distinct(3, 2), distinct(3, 2) + 0.05]),
    ("arctan2", lambda x, y: pt.arctan2(x, y), [rand(4), pos(4)]),
    ("clip", lambda x: pt.clip(x, -0.5, 0.5), [np.array([-0.9, -0.2, 0.3, 0.8])]),
    ("switch", lambda x, y: pt.switch(x > 0, x * y, y**2), [rand(3, 4), rand(3, 4)]),
    ("chain_broadcast", lambda x, w, b: pt.tanh(x * w + b) ** 2,
     [rand(2, 3), rand(1, 3), rand()]),
]

REDUCTIONS = [
    ("sum_all", lambda x: x.sum(), [rand(3, 4)]),
    ("sum_axis0", lambda x: x.sum(axis=0), [rand(3, 4)]),
    ("sum_axis_neg1_keepdims", lambda x: x.sum(axis=-1, keepdims=True), [rand(3, 4)]),
    ("sum_axes_0_2", lambda x: x.sum(axis=(0, 2)), [rand(2, 3, 4)]),
    ("mean_axis1", lambda x: x.mean(axis=1), [rand(3, 4)]),
    ("mean_keepdims", lambda x: x.mean(axis=0, keepdims=True), [rand(3, 4)]),
    ("prod", lambda x: x.prod(axis=1), [pos(3, 4)]),
    ("max_axis", lambda x: x.max(axis=1), [distinct(3, 4)]),
    ("min_all", lambda x: x.min(), [distinct(3, 4)]),
    ("var_std", lambda x: x.var(axis=0) + x.std(axis=0), [rand(5, 3)]),
]

LINALG_SHAPE = [
    ("dot_mm", lambda a, b: pt.dot(a, b), [rand(3, 4), rand(4, 2)]),
    ("dot_mv", lambda a, b: pt.dot(a, b), [rand(3, 4), rand(4)]),
    ("dot_vm", lambda a, b: pt.dot(a, b), [rand(3), rand(3, 4)]),
    ("dot_vv", lambda a, b: pt.dot(a, b), [rand(4), rand(4)]),
    ("matmul_batched", lambda a, b: pt.matmul(a, b), [rand(2, 3, 4), rand(2, 4, 2)]),
    ("outer", lambda a, b: pt.outer(a, b), [rand(3), rand(4)]),
    ("reshape", lambda x: pt.reshape(x, (4, 3)) * np.arange(12.0).reshape(4, 3),
     [rand(3, 4)]),
    ("flatten", lambda x: x.flatten() * np.arange(12.0), [rand(3, 4)]),
    ("transpose", lambda x: x.T * np.arange(12.0).reshape(4, 3), [rand(3, 4)]),
    ("dimshuffle_expand", lambda x: x.dimshuffle("x", 1, 0) * np.arange(6.0).reshape(1, 3, 2),
     [rand(2, 3)]),
    ("dimshuffle_drop", lambda x: x.dimshuffle(1) * np.arange(3.0), [rand(1, 3)]),
]

INDEXING = [
    ("subtensor_slice", lambda x: x[1:3, ::2], [rand(4, 5)]),
    ("subtensor_int", lambda x: x[1] * x[-1, 2], [rand(4, 5)]),
    ("advanced_subtensor1", lambda x: x[[0, 2, 0]], [rand(4, 3)]),
    ("inc_subtensor", lambda x, y: pt.inc_subtensor(x[1:3], y), [rand(4, 3), rand(2, 3)]),
    ("set_subtensor", lambda x, y: pt.set_subtensor(x[1:3, 0], y) * 2.0,
     [rand(4, 3), rand(2)]),
    ("inc_subtensor_broadcast", lambda x, y: pt.inc_subtensor(x[:, 1], y), [rand(4, 3), rand()]),
    ("advanced_inc_subtensor1", lambda x, y: pt.inc_subtensor(x[[0, 2, 0]], y),
     [rand(4, 3), rand(3, 3)]),
    ("concatenate_axis0", lambda x, y: pt.concatenate([x, y], axis=0), [rand(2, 3), rand(4, 3)]),
    ("concatenate_axis1", lambda x, y: pt.concatenate([x, y, x], axis=1),
     [rand(2, 3), rand(2, 1)]),
    ("stack", lambda x, y: pt.stack([x, y]), [rand(3), rand(3)]),
    ("split", lambda x: pt.split(x, [2, 3], 2, axis=0)[1] * 3.0, [rand(5, 2)]),
    ("split_both", lambda x: pt.concatenate(pt.split(x, [2, 3], 2, axis=0)[::-1]),
     [rand(5, 2)]),
]

SPECIAL = [
    ("softmax", lambda x: pt.softmax(x, axis=-1), [rand(3, 4) * 3]),
    ("softmax_axis0", lambda x: pt.softmax(x, axis=0), [rand(3, 4) * 3]),
    ("log_softmax", lambda x: pt.log_softmax(x, axis=-1), [rand(3, 4) * 3]),
    ("logsumexp", lambda x: pt.logsumexp(x, axis=1), [rand(3, 4) * 3]),
    ("logsumexp_keepdims", lambda x: pt.logsumexp(x, axis=0, keepdims=True), [rand(3, 4)]),
]

ALL = ELEMWISE + REDUCTIONS + LINALG_SHAPE + INDEXING + SPECIAL


@pytest.mark.parametrize(("fun", "values"), [c[1:] for c in ALL], ids=[c[0] for c in ALL])
def test_verify_grad(fun, values):
    verify_grad(fun, values, rng=np.random.default_rng(0))


def test_large_softmax_inputs_stay_finite():
    """The stable forms: gradients of huge logits are finite."""
    x = pt.dmatrix("x")
    from opgraph.gradient import grad

    g = grad((pt.log_softmax(x, axis=-1) * np.array([[1.0, 2.0, 3.0]])).sum(), x)
    g2 = grad(pt.logsumexp(x, axis=1).sum(), x)
    vals = compile_callable([x], [g, g2])(np.array([[1000.0, -1000.0, 0.0]]))
    assert all(np.isfinite(v).all() for v in vals)


@pytest.mark.parametrize(
    ("fun", "values"),
    [c[1:] for c in ALL if c[0] not in {"max_axis", "min_all", "clip", "abs",
                                         "maximum_minimum", "switch"}],
    ids=[c[0] for c in ALL if c[0] not in {"max_axis", "min_all", "clip", "abs",
                                            "maximum_minimum", "switch"}],
)
def test_rop_agrees_with_lop(fun, values):
    """u^T (J v) from forward mode equals (u^T J) v from reverse mode."""
    rng = np.random.default_rng(1)
    xs = [pt.tensor(dtype="float64", shape=tuple(1 if s == 1 else None for s in np.shape(v)))
          for v in values]
    y = fun(*xs)
    vs = [x.type() for x in xs]
    u = y.type()
    jv = Rop(y, xs, vs)
    ujs = Lop(y, xs, u)
    fn = compile_callable([*xs, *vs, u], [y, jv, *ujs])
    v_vals = [rng.normal(size=np.shape(v)) for v in values]
    out_shape = compile_callable(xs, [y])(*values)[0].shape
    u_val = rng.normal(size=out_shape)
    args = [np.array(a, copy=True) for a in (*values, *v_vals, u_val)]
    _, jv_val, *uj_vals = fn(*args)
    left = float(np.sum(u_val * jv_val))
    right = float(sum(np.sum(a * b) for a, b in zip(uj_vals, v_vals)))
    assert left == pytest.approx(right, rel=1e-8, abs=1e-10)


def _composite_elemwise():
    import opgraph.scalar as ps
    from opgraph.scalar import Composite

    a, b = ps.float64("a"), ps.float64("b")
    comp = Composite([a, b], [ps.exp(a) * b + ps.sin(b) / (ps.sqr(a) + 1.0)])
    return pt.Elemwise(comp)


def _composite_two_outputs():
    import opgraph.scalar as ps
    from opgraph.scalar import Composite

    a, b = ps.float64("a"), ps.float64("b")
    return pt.Elemwise(Composite([a, b], [ps.tanh(a * b), a - ps.exp(b)]))


EXTRA = [
    ("composite", lambda x, y: _composite_elemwise()(x, y), [rand(3, 4), rand(3, 4)]),
    ("composite_broadcast", lambda x, y: _composite_elemwise()(x, y), [rand(3, 4), rand(4)]),
    ("composite_two_outputs", lambda x, y: (lambda o: o[0] * 2.0 + o[1] * o[1])(
        _composite_two_outputs()(x, y)), [rand(3), rand(3)]),
    ("composite_one_output_used", lambda x, y: _composite_two_outputs()(x, y)[1],
     [rand(3), rand(3)]),
    ("ifelse_then", lambda x, y: pt.ifelse(x.sum() > -100.0, x * y, y**2),
     [rand(3), rand(3)]),
    ("ifelse_else", lambda x, y: pt.ifelse(x.sum() > 100.0, x * y, y**2), [rand(3), rand(3)]),
]


@pytest.mark.parametrize(("fun", "values"), [c[1:] for c in EXTRA], ids=[c[0] for c in EXTRA])
def test_verify_grad_composite_and_ifelse(fun, values):
    verify_grad(fun, values, rng=np.random.default_rng(3))


@pytest.mark.parametrize(("fun", "values"), [c[1:] for c in EXTRA[:3]],
                         ids=[c[0] for c in EXTRA[:3]])
def test_rop_agrees_with_lop_composite(fun, values):
    test_rop_agrees_with_lop(fun, values)


PERFORM_SUBSET = ["tanh", "add_broadcast", "sum_axes_0_2", "dot_mv", "subtensor_slice",
                  "concatenate_axis1", "softmax", "logsumexp"]


@pytest.mark.parametrize("case", PERFORM_SUBSET)
def test_verify_grad_with_perform_evaluator(case):
    """The linker-free path the core session uses, exercised even when a linker exists."""
    _, fun, values = next(c for c in ALL if c[0] == case)
    verify_grad(fun, values, mode="perform")


def test_grad_on_a_scalar_library_graph():
    import opgraph.scalar as ps
    from opgraph.autodiff.evaluate import perform_callable
    from opgraph.gradient import grad

    x, y = ps.float64("x"), ps.float64("y")
    cost = ps.exp(x) * y + x * x
    gx, gy = grad(cost, [x, y])
    assert isinstance(gx.type, ps.ScalarType)
    vx, vy = perform_callable([x, y], [gx, gy])(0.5, 2.0)
    assert float(vx) == pytest.approx(np.exp(0.5) * 2.0 + 1.0)
    assert float(vy) == pytest.approx(np.exp(0.5))


def test_integer_inputs_of_tensor_ops():
    """Integer inputs: the float gradient for float-valued math (as in PyTensor),
    disconnected for indices."""
    from opgraph.gradient import DisconnectedInputError, grad

    x = pt.dvector("x")
    n = pt.lvector("n")
    i = pt.lscalar("i")
    gn = grad((x * n).sum(), n)
    assert gn.type.dtype == "float64"
    got = compile_callable([x, n], [gn])(np.array([1.0, 2.0, 3.0]), np.arange(3))[0]
    np.testing.assert_allclose(got, [1.0, 2.0, 3.0])
    with pytest.raises(DisconnectedInputError):
        grad(x[i] * 2.0, i)
    gx = grad(x[i] * 2.0, x)
    np.testing.assert_allclose(compile_callable([x, i], [gx])(np.ones(3), 1)[0], [0, 2, 0])


def test_argmax_path_gives_zero_gradient():
    from opgraph.gradient import grad

    x = pt.dvector("x")
    cost = pt.cast(pt.argmax(x), "float64") + x.sum()
    g = grad(cost, x)
    np.testing.assert_allclose(compile_callable([x], [g])(np.array([1.0, 3.0]))[0], [1.0, 1.0])


@pytest.mark.parametrize("shape_y", [(2, 3), (1, 1), (1, 3), (2, 1)],
                         ids=["same", "scalar", "row", "column"])
def test_pow_gradient_where_the_base_is_zero(shape_y):
    """d(x**y)/dy at x == 0 is 0 (x**y is 0 near there for y > 0), not 0 * log(0) = nan;
    with broadcast exponents (PyTensor's TestPowBroadcast)."""
    x0 = pos(2, 3)
    x0[0, 1] = 0.0
    y0 = RNG.uniform(1.5, 3.0, size=shape_y)
    verify_grad(lambda x, y: x**y, [x0, y0], rng=RNG)
    x, y = pt.dvector("x"), pt.dvector("y")
    gy = compile_callable([x, y], [pt.grad((x**y).sum(), y)])([0.0, 2.0], [2.0, 2.0])[0]
    np.testing.assert_allclose(gy, [0.0, 4.0 * np.log(2.0)], rtol=1e-12)


def test_gradient_through_a_zero_factor_is_zero():
    """d/dlam of f(lam * 0) is 0 even where f' is infinite (the cotangent times the zero
    partial would be nan): PyTensor's value for PyMC's logcdf at a bound; forward stays IEEE."""
    lam = pt.dscalar("lam")
    zero = pt.constant(0.0)
    shifted = zero - pt.constant(0.0)  # a zero computed from constants
    cost = pt.log1mexp(-lam * zero) + pt.log(shifted / lam)
    g = pt.grad(cost, lam)
    value, grad_value = compile_callable([lam], [cost, g])(2.0)
    assert value == -np.inf and grad_value == 0.0
    # an input that is not a structural zero keeps IEEE's product: inf * 0 is nan
    x, z = pt.dscalars("x", "z")
    gz = compile_callable([x, z], [pt.grad(pt.log1mexp(-x * z), x)])(2.0, 0.0)[0]
    assert np.isnan(gz)
    fwd = compile_callable([x], [x * zero])(np.inf)[0]
    assert np.isnan(fwd)


def test_switch_condition_is_connected_with_zero_gradient():
    """A change point ``switch(x < tau, a, b)``: d/dtau is 0 and tau counts as connected,
    so ``disconnected_inputs="raise"`` (PyMC's "warn" for a MAP without Jacobians) is quiet."""
    tau, x = pt.dscalar("tau"), pt.dvector("x")
    cost = pt.switch(pt.lt(x, tau), 2.0 * x, x**2).sum()
    g = pt.grad(cost, [tau, x], disconnected_inputs="raise")
    gtau, gx = compile_callable([tau, x], g)(1.0, np.array([0.5, 2.0]))
    assert gtau == 0.0 and gtau.dtype == np.float64
    np.testing.assert_allclose(gx, [2.0, 4.0])
