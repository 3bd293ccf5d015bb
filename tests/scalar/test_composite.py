"""Composite: evaluation (scalars and arrays), equality, cloning, nesting, re-typing, gradients."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.scalar as ps
from opgraph.autodiff.undefined import is_disconnected, is_null
from opgraph.graph.op import HasInnerGraph

from .scalar_eval import evaluate


def _graph():
    x, y = ps.float64("x"), ps.float64("y")
    e = ps.exp(x)
    return [x, y], [ps.add(ps.mul(e, y), 2.0), ps.tanh(e)]


def test_impl_matches_composed_impls():
    ins, outs = _graph()
    comp = ps.Composite(ins, outs)
    assert comp.nin == 2 and comp.nout == 2
    for a, b in [(0.5, -1.0), (-3.0, 2.0)]:
        got = comp.impl(np.float64(a), np.float64(b))
        expected = evaluate(outs, dict(zip(ins, (a, b))))
        assert got == tuple(expected)
        assert all(isinstance(v, np.float64) for v in got)


def test_array_evaluation_broadcasts_like_elemwise():
    ins, outs = _graph()
    comp = ps.Composite(ins, outs)
    a, b = np.linspace(-1, 1, 4), np.arange(3.0).reshape(3, 1)
    r0, r1 = comp.ufunc(a, b)
    np.testing.assert_allclose(r0, np.exp(a) * b + 2.0)
    np.testing.assert_allclose(r1, np.broadcast_to(np.tanh(np.exp(a)), (3, 4)))
    assert r0.dtype == r1.dtype == np.float64 and r1.shape == (3, 4)


def test_output_that_is_an_input_is_copied():
    x, y = ps.float64("x"), ps.float64("y")
    comp = ps.Composite([x, y], [x, ps.add(x, y)])
    a = np.arange(3.0)
    r0, _ = comp.ufunc(a, np.ones(3))
    assert r0 is not a and np.array_equal(r0, a)


def test_perform_writes_declared_dtypes():
    x = ps.int8("x")
    comp = ps.Composite([x], [ps.add(x, x)])
    node = comp.make_node(ps.int8("a"))
    storage = [[None]]
    comp.perform(node, [np.int8(100)], storage)
    assert storage[0][0] == np.int8(-56) and storage[0][0].dtype == np.int8


def test_equality_by_inner_graph_not_names():
    c1 = ps.Composite(*_graph())
    c2 = ps.Composite(*_graph())
    assert c1 == c2 and hash(c1) == hash(c2)
    x, y = ps.float64("x"), ps.float64("y")
    assert ps.Composite([x, y], [ps.add(x, y)]) != ps.Composite([x, y], [ps.add(y, x)])
    assert ps.Composite([x, y], [ps.add(x, 1.0)]) != ps.Composite([x, y], [ps.add(x, 2.0)])
    f = ps.float32("f")
    assert ps.Composite([x], [ps.exp(x)]) != ps.Composite([f], [ps.exp(f)])
    assert ps.Composite([x], [ps.exp(x)]) != ps.exp


def test_compact_name():
    x, y = ps.float64("x"), ps.float64("y")
    assert str(ps.Composite([x, y], [ps.add(ps.exp(x), y)])) == "Composite{(exp(i0) + i1)}"
    big = x
    for _ in range(200):
        big = ps.add(ps.mul(big, big), y)
    name = str(ps.Composite([x, y], [big]))
    assert name.startswith("Composite{") and len(name) < 300


def test_clone_and_inner_graph():
    ins, outs = _graph()
    comp = ps.Composite(ins, outs)
    assert isinstance(comp, HasInnerGraph)
    assert comp.inner_inputs[0] is not ins[0]  # the constructor copies the graph
    cl = comp.clone()
    assert cl == comp and cl.inner_outputs[0] is not comp.inner_outputs[0]
    assert comp.fgraph.outputs == comp.inner_outputs


def test_nested_composite():
    x, y = ps.float64("x"), ps.float64("y")
    inner = ps.Composite([x, y], [ps.mul(x, y)])
    a, b = ps.float64("a"), ps.float64("b")
    outer = ps.Composite([a, b], [ps.exp(inner(a, b)), ps.add(inner(b, a), a)])
    assert outer.impl(np.float64(2.0), np.float64(3.0)) == (np.exp(6.0), 8.0)
    r0, r1 = outer.ufunc(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    np.testing.assert_allclose(r1, [4.0, 10.0])
    np.testing.assert_allclose(r0, np.exp([3.0, 8.0]))
    text = str(outer)
    assert "Composite" in text


def test_make_node_with_other_dtypes_retypes_the_graph():
    x = ps.float64("x")
    comp = ps.Composite([x], [ps.mul(x, x)])
    out = comp(ps.float32("f"))
    assert out.type == ps.float32
    assert out.owner.op != comp and isinstance(out.owner.op, ps.Composite)
    assert comp(ps.float64("d")).owner.op is comp


def test_connection_pattern():
    x, y = ps.float64("x"), ps.float64("y")
    comp = ps.Composite([x, y], [ps.exp(x), ps.add(x, y)])
    node = comp.make_node(x, y)
    assert comp.connection_pattern(node) == [[True, True], [False, True]]


def test_pullback_matches_finite_differences():
    ins, outs = _graph()
    comp = ps.Composite(ins, outs)
    a, b = ps.float64("a"), ps.float64("b")
    g0, g1 = ps.float64("g0"), ps.float64("g1")
    ga, gb = comp.pullback([a, b], comp(a, b), [g0, g1])
    point = {a: 0.3, b: -1.2, g0: 0.7, g1: -0.4}

    def f(av, bv):
        r0, r1 = comp.impl(np.float64(av), np.float64(bv))
        return 0.7 * r0 - 0.4 * r1

    eps = 1e-6
    fd_a = (f(0.3 + eps, -1.2) - f(0.3 - eps, -1.2)) / (2 * eps)
    fd_b = (f(0.3, -1.2 + eps) - f(0.3, -1.2 - eps)) / (2 * eps)
    np.testing.assert_allclose(evaluate([ga, gb], point), [fd_a, fd_b], rtol=1e-6)
    # only the first output has a cotangent: b still reached through it
    ga, gb = comp.pullback([a, b], comp(a, b), [None, g1])
    assert is_disconnected(gb) and not is_disconnected(ga)


def test_pushforward_matches_finite_differences():
    ins, outs = _graph()
    comp = ps.Composite(ins, outs)
    a, b, ta = ps.float64("a"), ps.float64("b"), ps.float64("ta")
    t0, t1 = comp.pushforward([a, b], comp(a, b), [ta, None])
    eps = 1e-6
    up = comp.impl(np.float64(0.3 + eps), np.float64(2.0))
    down = comp.impl(np.float64(0.3 - eps), np.float64(2.0))
    got = evaluate([t0, t1], {a: 0.3, b: 2.0, ta: 1.0})
    np.testing.assert_allclose(got, [(u - d) / (2 * eps) for u, d in zip(up, down)], rtol=1e-6)


def test_pullback_through_undefined_gradient_is_null():
    x, y = ps.float64("x"), ps.float64("y")
    comp = ps.Composite([x, y], [ps.exp(ps.int_div(x, y))])
    a, b = ps.float64("a"), ps.float64("b")
    ga, gb = comp.pullback([a, b], [comp(a, b)], [ps.float64("g")])
    assert is_null(ga) and is_null(gb)


def test_bad_construction():
    x = ps.float64("x")
    with pytest.raises(TypeError, match="input 0 must be a scalar Variable"):
        ps.Composite([1.0], [x])
    with pytest.raises(TypeError, match="is a Constant"):
        ps.Composite([ps.constant(1.0)], [x])
    y = ps.float64("y")
    with pytest.raises(ValueError, match="neither an input nor a constant"):
        ps.Composite([x], [ps.add(x, y)])
    with pytest.raises(TypeError, match="takes 1 inputs"):
        ps.Composite([x], [ps.exp(x)])(x, x)


# -------------------------------------------------------------------- random graphs

_UNARY = [ps.exp, ps.tanh, ps.neg, ps.sin, ps.sqr, ps.sigmoid, ps.abs]
_BINARY = [ps.add, ps.sub, ps.mul, ps.maximum, ps.minimum]


@st.composite
def _programs(draw):
    steps = draw(
        st.lists(
            st.tuples(st.booleans(), st.integers(0, 6), st.integers(0, 50), st.integers(0, 50)),
            min_size=1, max_size=12,
        )
    )
    return steps


@settings(max_examples=40, deadline=None)
@given(_programs(), st.lists(st.floats(-2, 2), min_size=3, max_size=3))
def test_random_composites_agree_with_walking_the_graph(steps, values):
    ins = [ps.float64(f"x{i}") for i in range(3)]
    pool = list(ins)
    for unary, k, i, j in steps:
        if unary:
            pool.append(_UNARY[k % len(_UNARY)](pool[i % len(pool)]))
        else:
            pool.append(_BINARY[k % len(_BINARY)](pool[i % len(pool)], pool[j % len(pool)]))
    outs = [pool[-1], pool[len(pool) // 2]]
    comp = ps.Composite(ins, outs)
    expected = evaluate(outs, dict(zip(ins, values)))
    np.testing.assert_allclose(comp.impl(*map(np.float64, values)), expected, rtol=1e-12)
    arrays = [np.array([v, v / 2]) for v in values]
    r0, r1 = comp.ufunc(*arrays)
    np.testing.assert_allclose(r0[0], expected[0], rtol=1e-12)
    np.testing.assert_allclose(r1[0], expected[1], rtol=1e-12)
    assert comp == ps.Composite(ins, outs)
