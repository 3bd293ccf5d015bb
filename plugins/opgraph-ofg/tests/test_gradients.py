"""Gradients of OpFromGraph: default (itself an OpFromGraph), overrides, markers, Rop."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import compile_vm, finite_difference
from opgraph_ofg import OpFromGraph

import opgraph.tensor as pt
from opgraph.compile import shared
from opgraph.gradient import (
    DisconnectedInputError,
    DisconnectedType,
    NullType,
    NullTypeGradError,
    Rop,
    grad,
)

XV = np.array([0.3, -0.7, 1.1])
YV = np.array([1.5, 0.2, -0.4])


def _block():
    x, y = pt.vectors("x", "y")
    return x, y, [pt.tanh(x * y) + pt.exp(x), x * y * y]


def test_default_gradient_matches_finite_differences():
    x, y, outs = _block()
    op = OpFromGraph([x, y], outs)
    a, b = op(x, y)
    cost = (a * b).sum() + (a**2).sum()
    fn = compile_vm([x, y], cost)
    gfn = compile_vm([x, y], grad(cost, [x, y]))
    for got, want in zip(gfn(XV, YV), finite_difference(fn, [XV, YV])):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_gradient_is_a_cached_opfromgraph():
    x, y, outs = _block()
    op = OpFromGraph([x, y], outs)
    a, _ = op(x, y)
    gx = grad(a.sum(), x)
    owners = [v.owner.op for v in _ancestor_vars(gx) if v.owner is not None]
    lops = [o for o in owners if isinstance(o, OpFromGraph) and o is not op]
    assert lops
    first = op._pullback_parts()[0]
    grad(a.sum(), y)
    assert op._pullback_parts()[0] is first


def _ancestor_vars(v):
    from opgraph.graph.basic import ancestors

    return list(ancestors([v]))


def test_second_derivative_through_gradient_op():
    x = pt.scalar("x")
    op = OpFromGraph([x], [x**3])
    g = grad(op(x), x)
    h = grad(g, x)
    fn = compile_vm([x], [g, h])
    np.testing.assert_allclose(fn(2.0), [12.0, 12.0])


def test_whole_callable_override_and_call_counts():
    calls = []
    x, y = pt.vectors("x", "y")

    def exact(inputs, outputs, output_grads):
        calls.append(1)
        xi, yi = inputs
        (g,) = output_grads
        return [g * yi, g * xi]

    op = OpFromGraph([x, y], [x * y], pullback=exact)
    assert len(calls) == 1  # frozen representation
    cost = op(x, y).sum() * 3
    gx, gy = grad(cost, [x, y])
    assert len(calls) == 2  # first use
    grad(op(y, x).sum(), [x])
    assert len(calls) == 2  # cached
    fn = compile_vm([x, y], [gx, gy])
    got = fn(XV, YV)
    np.testing.assert_allclose(got[0], 3 * YV)
    np.testing.assert_allclose(got[1], 3 * XV)


def test_per_input_override_numeric_scaling():
    x, y = pt.vectors("x", "y")

    def double_dy(inputs, outputs, output_grads):
        return 2 * output_grads[0] * inputs[0]

    op = OpFromGraph([x, y], [x * y], lop_overrides=[None, double_dy])
    gx, gy = grad(op(x, y).sum(), [x, y])
    got = compile_vm([x, y], [gx, gy])(XV, YV)
    np.testing.assert_allclose(got[0], YV)
    np.testing.assert_allclose(got[1], 2 * XV)


def test_override_by_opfromgraph_instances():
    x, y = pt.vectors("x", "y")
    g = pt.vector("g")
    out = pt.vector("out")
    dx_op = OpFromGraph([x, y, out, g], [g * y * 10])
    op = OpFromGraph([x, y], [x * y], pullback=[dx_op, None])
    gx, gy = grad(op(x, y).sum(), [x, y])
    got = compile_vm([x, y], [gx, gy])(XV, YV)
    np.testing.assert_allclose(got[0], 10 * YV)
    np.testing.assert_allclose(got[1], XV)
    whole = OpFromGraph([x, y, out, g], [g * y, g * x * 0])
    op2 = OpFromGraph([x, y], [x * y], pullback=whole)
    gx, gy = grad(op2(x, y).sum(), [x, y])
    got = compile_vm([x, y], [gx, gy])(XV, YV)
    np.testing.assert_allclose(got[0], YV)
    np.testing.assert_allclose(got[1], 0 * XV)


def test_null_and_disconnected_pullback_entries():
    x, y = pt.vectors("x", "y")
    op = OpFromGraph([x, y], [x * y], pullback=[NullType("no way")(), DisconnectedType()()])
    cost = op(x, y).sum()
    with pytest.raises(NullTypeGradError):
        grad(cost, x)
    with pytest.raises(DisconnectedInputError):
        grad(cost, y)
    gy = grad(cost, y, disconnected_inputs="ignore")
    np.testing.assert_allclose(compile_vm([x, y], gy)(XV, YV), np.zeros(3))


def test_gradient_with_respect_to_shared_variable():
    x = pt.vector("x")
    s = shared(np.array([1.0, 2.0, 3.0]), name="s")
    op = OpFromGraph([x], [pt.sin(x * s)])
    cost = op(x).sum()
    gs = grad(cost, s)
    fn = compile_vm([x], gs)
    np.testing.assert_allclose(fn(XV), XV * np.cos(XV * s.get_value()))


def test_override_errors():
    x, y = pt.scalars("xy")
    with pytest.raises(ValueError, match="one entry per input \\(2\\); got 3"):
        OpFromGraph([x, y], [x * y], pullback=[None, None, None])
    with pytest.raises(ValueError, match="one entry per output \\(1\\); got 2"):
        OpFromGraph([x, y], [x * y], pushforward=[None, None])
    with pytest.raises(TypeError, match="expected None, 'default', a callable"):
        OpFromGraph([x, y], [x * y], pullback=[3, None])
    with pytest.raises(ValueError, match="alias"):
        OpFromGraph([x, y], [x * y], pullback=[None, None], lop_overrides=[None, None])
    with pytest.raises(TypeError, match="takes 1 positional"):
        OpFromGraph([x, y], [x * y], pullback=[lambda i: i[0], None])
    with pytest.raises(ValueError, match="returned 1 values; expected 2"):
        OpFromGraph([x, y], [x * y], pullback=lambda i, o, g: [g[0]])


def test_theano_two_argument_callable_warns():
    x, y = pt.scalars("xy")
    with pytest.warns(DeprecationWarning, match="2 arguments"):
        op = OpFromGraph([x, y], [x * y], pullback=lambda inputs, grads: [grads[0], grads[0]])
    gx, gy = grad(op(x, y), [x, y])
    np.testing.assert_allclose(compile_vm([x, y], [gx, gy])(2.0, 3.0), [1.0, 1.0])


# -- pushforward -----------------------------------------------------------------------------


def test_default_pushforward_matches_finite_differences():
    x, y, outs = _block()
    op = OpFromGraph([x, y], outs)
    a, b = op(x, y)
    ex, ey = pt.vectors("ex", "ey")
    ta, tb = Rop([a, b], [x, y], [ex, ey])
    fn = compile_vm([x, y, ex, ey], [ta, tb])
    vx, vy = np.array([1.0, 0.5, -1.0]), np.array([0.2, -0.3, 0.7])
    got = fn(XV, YV, vx, vy)
    f = compile_vm([x, y], [a, b])
    eps = 1e-6
    hi = f(XV + eps * vx, YV + eps * vy)
    lo = f(XV - eps * vx, YV - eps * vy)
    for g, h, lo_ in zip(got, hi, lo):
        np.testing.assert_allclose(g, (h - lo_) / (2 * eps), rtol=1e-5, atol=1e-7)


def test_pushforward_overrides_callable_and_markers():
    x, y = pt.vectors("x", "y")

    def tangent_a(inputs, outputs, tangents):
        return tangents[0] * 100

    op = OpFromGraph([x, y], [x * y, x + y, x - y],
                     rop_overrides=[tangent_a, DisconnectedType()(), NullType("undefined")()])
    a, b, c = op(x, y)
    ex, ey = pt.vectors("ex", "ey")
    ta = Rop(a, [x, y], [ex, ey])
    np.testing.assert_allclose(compile_vm([x, y, ex, ey], ta)(XV, YV, XV, YV), 100 * XV)
    with pytest.raises(DisconnectedInputError):
        Rop(b, [x, y], [ex, ey])
    tb = Rop(b, [x, y], [ex, ey], disconnected_outputs="ignore")
    np.testing.assert_allclose(compile_vm([x, y, ex, ey], tb)(XV, YV, XV, YV), np.zeros(3))
    with pytest.raises(NullTypeGradError):
        Rop(c, [x, y], [ex, ey])


def test_rop_with_disconnected_override_keeps_other_outputs():
    x = pt.vector("x")
    op = OpFromGraph([x], [x * 2, pt.exp(x)], pushforward=[None, DisconnectedType()()])
    a, b = op(x)
    ex = pt.vector("ex")
    ta, tb = Rop([a, b], x, ex, disconnected_outputs="ignore")
    fn = compile_vm([x, ex], [ta, tb])
    got = fn(XV, np.ones(3))
    np.testing.assert_allclose(got[0], 2 * np.ones(3))
    np.testing.assert_allclose(got[1], np.zeros(3))


def test_pushforward_whole_callable_and_legacy_two_argument_form():
    x = pt.vector("x")
    op = OpFromGraph([x], [x * 3], pushforward=lambda i, o, t: [t[0] * 3])
    ex = pt.vector("ex")
    t = Rop(op(x), x, ex)
    np.testing.assert_allclose(compile_vm([x, ex], t)(YV, XV), 3 * XV)
    with pytest.warns(DeprecationWarning):
        legacy = OpFromGraph([x], [x * 3], rop_overrides=lambda inputs, evals: [evals[0] * 4])
    t = Rop(legacy(x), x, ex)
    np.testing.assert_allclose(compile_vm([x, ex], t)(YV, XV), 4 * XV)


def test_default_pullback_adds_paths_through_an_output_that_feeds_another():
    # out3 is computed from out1 and out2: their cotangents and out3's must add up.
    x, y = pt.dscalars("x", "y")
    o1, o2 = x + y, x * y
    op = OpFromGraph([x, y], [o1, o2, o1 * o2])
    for pick, expected in [
        (lambda outs: pt.add(*outs), lambda a, b: (1 + b + 2 * a * b + b**2,
                                                   1 + a + a**2 + 2 * a * b)),
        (lambda outs: outs[0] + outs[2], lambda a, b: (1 + 2 * a * b + b**2,
                                                       1 + a**2 + 2 * a * b)),
        (lambda outs: outs[2], lambda a, b: (2 * a * b + b**2, a**2 + 2 * a * b)),
    ]:
        gx, gy = grad(pick(op(x, y)), [x, y])
        got = compile_vm([x, y], [gx, gy])(2.0, 3.0)
        np.testing.assert_allclose(got, expected(2.0, 3.0))
