"""pushforward (both routes) and pullback through the ops PyTensor's Rop tests use,
against finite differences of the compiled forward graph."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.autodiff.evaluate import compile_callable
from opgraph.gradient import pullback, pushforward
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op

RNG = np.random.default_rng(7)
T3 = RNG.uniform(size=3)
T10 = RNG.uniform(size=10)
W = RNG.uniform(size=(6, 6))


class BreakPushforward(Op):
    """Identity with an undefined gradient and no pushforward (legacy R_op -> None)."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0]

    def R_op(self, inputs, eval_points):
        return [None]


#: name -> (input shape, builder)
CASES = {
    "max_axis0": ((5, 4), lambda m: pt.max(m, axis=0)),
    "max_axis1": ((5, 4), lambda m: pt.max(m, axis=1)),
    "subtensor": ((6,), lambda x: x[:4]),
    "inc_subtensor_into_x": ((6,), lambda x: pt.inc_subtensor(x[:3], pt.constant(T3))),
    "inc_subtensor_x_into_t": ((6,), lambda x: pt.inc_subtensor(pt.constant(T10)[:4], x[:4])),
    "set_subtensor_into_x": ((6,), lambda x: pt.set_subtensor(x[:3], pt.constant(T3))),
    "set_subtensor_x_into_t": ((6,), lambda x: pt.set_subtensor(pt.constant(T10)[:4], x[:4])),
    "dimshuffle_sum": ((6,), lambda x: x[:4].dimshuffle("x", 0).sum(axis=0)),
    "join": ((6,), lambda x: pt.join(0, x, pt.constant(T10))),
    "dot": ((6,), lambda x: pt.dot(x, pt.constant(W))),
    "elemwise_pow": ((6,), lambda x: (x + 1) ** 2),
    "elemwise_int_path": ((6,), lambda x: x + pt.cast(x, "int32")),
    "flatten": ((5, 4), lambda m: m.flatten()),
    "sum_axis1": ((5, 4), lambda m: m.sum(axis=1)),
    "softmax": ((6,), lambda x: pt.special.softmax(x, axis=-1)),
    "alloc_sum": ((6,), lambda x: pt.alloc(x.sum(), 6)),
    "alloc_3d_flat": ((6,), lambda x: pt.alloc(x, 2, 3, 6).flatten()),
}


def _var(shape):
    return pt.tensor(dtype="float64", shape=(None,) * len(shape))


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("use_op", [True, False])
def test_pushforward_matches_directional_difference(name, use_op):
    shape, build = CASES[name]
    x, v = _var(shape), _var(shape)
    y = build(x)
    jvp = pushforward(y, x, v, use_op_pushforward=use_op)
    f = compile_callable([x], [y])
    g = compile_callable([x, v], [jvp])
    xv, vv = RNG.uniform(0.1, 1.0, size=shape), RNG.uniform(size=shape)
    eps = 1e-6
    want = (f(xv + eps * vv)[0] - f(xv - eps * vv)[0]) / (2 * eps)
    np.testing.assert_allclose(g(xv, vv)[0], want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CASES))
def test_pullback_matches_finite_differences(name):
    shape, build = CASES[name]
    x = _var(shape)
    y = build(x)
    u = pt.tensor(dtype="float64", shape=(None,) * y.type.ndim)
    vjp = pullback(y, x, u)
    f = compile_callable([x], [y])
    xv = RNG.uniform(0.1, 1.0, size=shape)
    uv = RNG.uniform(size=np.shape(f(xv)[0]))
    eps = 1e-6
    want = np.zeros(shape)
    for idx in np.ndindex(shape):
        e = np.zeros(shape)
        e[idx] = eps
        want[idx] = ((f(xv + e)[0] - f(xv - e)[0]) / (2 * eps) * uv).sum()
    np.testing.assert_allclose(compile_callable([x, u], [vjp])(xv, uv)[0], want,
                               rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["subtensor", "join", "softmax", "max_axis1", "flatten"])
def test_pushforward_through_an_op_without_one_raises(name):
    shape, build = CASES[name]
    x, v = _var(shape), _var(shape)
    y = build(BreakPushforward()(x))
    with pytest.raises(ValueError):
        pushforward(y, x, v, use_op_pushforward=True)


def test_argmax_has_no_tangent():
    m, v = pt.dmatrix(), pt.dmatrix()
    with pytest.raises(ValueError):
        pushforward(pt.argmax(m, axis=1), m, v, use_op_pushforward=True)
