"""Scalar pullbacks and pushforwards against central finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.scalar as ps
from opgraph.autodiff.undefined import is_disconnected, is_null

from .scalar_eval import evaluate

RNG = np.random.default_rng(1)

# name -> sampler of valid float64 points (away from kinks and domain edges)
UNARY = {
    "neg": "real", "abs": "nonzero", "exp": "real", "exp2": "real", "expm1": "real",
    "log": "pos", "log2": "pos", "log10": "pos", "log1p": "pos", "sqrt": "pos", "sqr": "real",
    "reciprocal": "pos", "sin": "real", "cos": "real", "tan": "small", "arcsin": "unit",
    "arccos": "unit", "arctan": "real", "sinh": "small", "cosh": "small", "tanh": "small",
    "arcsinh": "real", "arccosh": "ge1", "arctanh": "unit", "sigmoid": "real",
    "softplus": "real", "identity": "real", "deg2rad": "real", "rad2deg": "real",
}
BINARY = {
    "add": ("real", "real"), "sub": ("real", "real"), "mul": ("real", "real"),
    "true_div": ("real", "nonzero"), "mod": ("pos", "pos"), "pow": ("pos", "small"),
    "maximum": ("real", "real"), "minimum": ("real", "real"), "arctan2": ("real", "nonzero"),
}


def _sample(domain: str) -> float:
    if domain == "pos":
        return float(RNG.uniform(0.5, 3.0))
    if domain == "unit":
        return float(RNG.uniform(-0.8, 0.8))
    if domain == "ge1":
        return float(RNG.uniform(1.5, 4.0))
    if domain == "small":
        return float(RNG.uniform(-1.2, 1.2))
    if domain == "nonzero":
        return float(RNG.uniform(0.5, 3.0) * RNG.choice([-1, 1]))
    return float(RNG.uniform(-3, 3))


def _fd(op, point, i, eps=1e-6):
    up, down = list(point), list(point)
    up[i] += eps
    down[i] -= eps
    f = lambda p: float(op.impl(*[np.float64(v) for v in p]))
    return (f(up) - f(down)) / (2 * eps)


def _check_pullback_and_pushforward(op, point):
    xs = [ps.float64(f"x{i}") for i in range(len(point))]
    out = op(*xs)
    gz = ps.float64("gz")
    grads = op.pullback(xs, [out], [gz])
    assert len(grads) == len(xs)
    givens = {**dict(zip(xs, point)), gz: 1.0}
    tangents = [ps.float64(f"t{i}") for i in range(len(xs))]
    (jvp,) = op.pushforward(xs, [out], tangents)
    direction = RNG.normal(size=len(xs))
    for i, g in enumerate(grads):
        assert g.type == ps.float64
        np.testing.assert_allclose(evaluate(g, givens), _fd(op, point, i), rtol=1e-5, atol=1e-6)
    fd_dir = sum(d * _fd(op, point, i) for i, d in enumerate(direction))
    got = evaluate(jvp, {**givens, **dict(zip(tangents, direction))})
    np.testing.assert_allclose(got, fd_dir, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradients(name):
    for _ in range(3):
        _check_pullback_and_pushforward(getattr(ps, name), [_sample(UNARY[name])])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradients(name):
    for _ in range(3):
        point = [_sample(d) for d in BINARY[name]]
        if name in ("maximum", "minimum") and abs(point[0] - point[1]) < 1e-3:
            point[1] += 0.5
        _check_pullback_and_pushforward(getattr(ps, name), point)


def test_variadic_mul_and_clip_gradients():
    _check_pullback_and_pushforward(ps.mul, [0.5, -1.5, 2.0])
    _check_pullback_and_pushforward(ps.add, [0.5, -1.5, 2.0, 4.0])
    for x in [-2.0, 0.3, 2.0]:
        _check_pullback_and_pushforward(ps.clip, [x, -1.0, 1.0])


def test_switch_gradient():
    c, a, b, gz = ps.bool("c"), ps.float64("a"), ps.float64("b"), ps.float64("gz")
    out = ps.switch(c, a, b)
    gc, ga, gb = ps.switch.pullback([c, a, b], [out], [gz])
    # connected, with a zero gradient (PyTensor's: the branch taken is locally constant)
    assert not is_disconnected(gc) and evaluate([gc], {c: True}) == [0.0]
    assert evaluate([ga, gb], {c: True, a: 1.0, b: 2.0, gz: 3.0}) == [3.0, 0.0]
    assert evaluate([ga, gb], {c: False, a: 1.0, b: 2.0, gz: 3.0}) == [0.0, 3.0]


def test_mixed_precision_gradient_has_input_dtype():
    x, y, gz = ps.float32("x"), ps.float64("y"), ps.float64("gz")
    out = ps.mul(x, y)
    gx, gy = ps.mul.pullback([x, y], [out], [gz])
    assert gx.type == ps.float32 and gy.type == ps.float64


@pytest.mark.parametrize("name, want", [("exp", np.exp(3.0)), ("sqrt", 0.5 / np.sqrt(3.0)),
                                        ("sigmoid", np.exp(-3.0) / (1 + np.exp(-3.0)) ** 2)])
def test_discrete_input_of_float_op_gets_the_float_gradient(name, want):
    """As in PyTensor: exp(int) is differentiated as exp over floats."""
    x = ps.int16("x")
    op = getattr(ps, name)
    out = op(x)
    gz = out.type("gz")
    (g,) = op.pullback([x], [out], [gz])
    assert g.type.dtype.startswith("float")
    assert evaluate(g, {x: 3, gz: 1.0}) == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("name", ["neg", "floor"])
def test_discrete_input_of_integer_valued_op_gets_float_zero(name):
    x = ps.int16("x")
    op = getattr(ps, name)
    out = op(x)
    (g,) = op.pullback([x], [out], [out.type("gz")])
    assert g.type.dtype == "float64"  # floatX
    assert evaluate(g, {x: 3}) == 0.0


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "round_half_to_even", "sign",
                                  "round_half_away_from_zero"])
def test_piecewise_constant_ops_have_zero_gradient(name):
    x, gz = ps.float64("x"), ps.float64("gz")
    op = getattr(ps, name)
    (g,) = op.pullback([x], [op(x)], [gz])
    assert g.type == ps.float64 and evaluate(g, {x: 1.3}) == 0.0


@pytest.mark.parametrize("name", ["eq", "neq", "lt", "le", "gt", "ge"])
def test_comparisons_have_zero_gradients(name):
    x, y, gz = ps.float64("x"), ps.float32("y"), ps.bool("gz")
    op = getattr(ps, name)
    gx, gy = op.pullback([x, y], [op(x, y)], [gz])
    assert evaluate([gx, gy], {x: 1.0, y: 2.0}) == [0.0, 0.0]
    assert gx.type == ps.float64 and gy.type == ps.float32


def test_int_div_gradient_is_undefined_for_floats():
    x, y, gz = ps.float64("x"), ps.int8("y"), ps.float64("gz")
    gx, gy = ps.int_div.pullback([x, y], [ps.int_div(x, y)], [gz])
    assert is_null(gx) and "int_div" in gx.type.why_null
    assert evaluate(gy, {y: 3}) == 0.0


def test_second_gradient_is_disconnected_from_first_input():
    x, y, gz = ps.float64("x"), ps.float64("y"), ps.float64("gz")
    gx, gy = ps.second.pullback([x, y], [ps.second(x, y)], [gz])
    assert is_disconnected(gx) and gy is gz


def test_cast_gradient_goes_back_to_input_dtype():
    x, gz = ps.float32("x"), ps.float64("gz")
    out = ps.cast(x, "float64")
    (g,) = out.owner.op.pullback([x], [out], [gz])
    assert g.type == ps.float32 and evaluate(g, {x: 1.0, gz: 2.5}) == np.float32(2.5)
    out = ps.cast(x, "int32")
    (g,) = out.owner.op.pullback([x], [out], [ps.int32("g")])
    assert evaluate(g, {x: 1.0}) == 0.0


def test_pushforward_with_disconnected_tangents():
    x, y = ps.float64("x"), ps.float64("y")
    out = ps.mul(x, y)
    t = ps.float64("t")
    (jvp,) = ps.mul.pushforward([x, y], [out], [t, None])
    assert evaluate(jvp, {x: 2.0, y: 3.0, t: 1.0}) == 3.0
    (none,) = ps.mul.pushforward([x, y], [out], [None, None])
    assert is_disconnected(none)
