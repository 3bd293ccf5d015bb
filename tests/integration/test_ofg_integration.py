"""OpFromGraph with everything installed: its rewrites through the rewrite database."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile import function, shared
from opgraph.gradient import grad

OpFromGraph = pytest.importorskip("opgraph_ofg").OpFromGraph

XV = np.array([0.5, -1.5, 2.0])
YV = np.array([1.0, 3.0, -0.25])
MODES = ["FAST_COMPILE", "FAST_RUN"]


def _ofg_nodes(fn):
    return [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, OpFromGraph)]


@pytest.mark.parametrize("mode", MODES)
def test_inline_is_expanded_and_matches_not_inlined(mode):
    x, y = pt.vectors("x", "y")
    s = shared(np.array([1.0, 2.0, 3.0]))
    results = []
    for inline in (False, True):
        a, b = pt.vectors("a", "b")
        op = OpFromGraph([a, b], [pt.tanh(a * b) + s, a - b], inline=inline)
        p, q = op(x, y)
        fn = function([x, y], p * q + op(y, x)[0], mode=mode)
        assert bool(_ofg_nodes(fn)) is not inline
        results.append(fn(XV, YV))
    np.testing.assert_allclose(results[0], results[1])


@pytest.mark.parametrize("mode", MODES)
def test_nested_inline_and_not(mode):
    x = pt.vector("x")
    a = pt.vector("a")
    inner = OpFromGraph([a], [pt.exp(a)], inline=True)
    middle = OpFromGraph([a], [inner(a) * 2], inline=False)
    outer = OpFromGraph([a], [middle(a) + middle(a * 3)], inline=True)
    fn = function([x], outer(x), mode=mode)
    assert {type(n.op).__name__ for n in _ofg_nodes(fn)} == {"OpFromGraph"}
    np.testing.assert_allclose(fn(XV), 2 * np.exp(XV) + 2 * np.exp(3 * XV))


def test_merge_leaves_one_node():
    x, y = pt.vectors("x", "y")
    a, b = pt.vectors("a", "b")
    op1 = OpFromGraph([a, b], [a * b + 1])
    c, d = pt.vectors("c", "d")
    op2 = OpFromGraph([c, d], [c * d + 1])
    fn = function([x, y], op1(x, y) * op2(x, y), mode="FAST_RUN")
    assert len(_ofg_nodes(fn)) == 1
    np.testing.assert_allclose(fn(XV, YV), (XV * YV + 1) ** 2)


def test_unused_outputs_and_inputs_dropped_in_fast_run():
    x, y, z = pt.vectors("x", "y", "z")
    a, b, c = pt.vectors("a", "b", "c")
    op = OpFromGraph([a, b, c], [a * b, c * 2, a - b])
    p, _, r = op(x, y, z)
    fn = function([x, y, z], p + r, mode="FAST_RUN", on_unused_input="ignore")
    (node,) = _ofg_nodes(fn)
    assert (len(node.inputs), len(node.outputs)) == (2, 2)
    np.testing.assert_allclose(fn(XV, YV, XV), XV * YV + XV - YV)


def test_inplace_on_inputs_in_fast_run_chain():
    x = pt.vector("x")
    a = pt.vector("a")
    op = OpFromGraph([a], [pt.sin(a) * 2 + a])
    h = x
    for _ in range(4):
        h = op(h)
    fn = function([x], h, mode="FAST_RUN")
    flags = [bool(n.op.destroy_map) for n in fn.maker.fgraph.toposort()
             if isinstance(n.op, OpFromGraph)]
    assert flags[0] is False and all(flags[1:])
    want = XV.copy()
    for _ in range(4):
        want = np.sin(want) * 2 + want
    xv = XV.copy()
    np.testing.assert_allclose(fn(xv), want)
    np.testing.assert_array_equal(xv, XV)


@pytest.mark.parametrize("inline", [False, True])
def test_gradient_compiled_in_fast_run(inline):
    x, y = pt.vectors("x", "y")
    a, b = pt.vectors("a", "b")
    op = OpFromGraph([a, b], [pt.exp(a) * b], inline=inline)
    gx, gy = grad(op(x, y).sum(), [x, y])
    fn = function([x, y], [gx, gy], mode="FAST_RUN")
    got = fn(XV, YV)
    np.testing.assert_allclose(got[0], np.exp(XV) * YV)
    np.testing.assert_allclose(got[1], np.exp(XV))


def test_doc_override_example_in_every_mode():
    x, y, z = pt.scalars("xyz")
    e = x + y * z

    def rescale_dy(inps, outputs, out_grads):
        return inps[2] * 2

    op = OpFromGraph([x, y, z], [e], pullback=[None, rescale_dy, None])
    dx, dy, dz = grad(op(x, y, z), [x, y, z])
    for mode in MODES:
        fn = function([x, y, z], [dx, dy, dz], mode=mode)
        np.testing.assert_allclose(fn(2.0, 3.0, 4.0), [1.0, 8.0, 3.0])
