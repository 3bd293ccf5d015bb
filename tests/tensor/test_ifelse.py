"""IfElse: the lazy thunk protocol (with a simulated VM), perform, shapes, gradients."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.graph.basic import Constant, io_toposort
from opgraph.ifelse import IfElse as PublicIfElse
from opgraph.ifelse import ifelse as public_ifelse
from opgraph.tensor.ifelse import IfElse, ifelse
from opgraph.tensor.type import TensorType

from .helpers import check_derivatives, evaluate
from .shape_checks import assert_infer_shape

rng = np.random.default_rng(5)


def run_lazy(outputs, givens):
    """A tiny VM honouring the lazy contract; returns (values, nodes that ran)."""
    inputs = list(givens)
    nodes = io_toposort(inputs, outputs)
    variables = {v for n in nodes for v in n.inputs + n.outputs} | set(inputs)
    storage_map = {v: [None] for v in variables}
    compute_map = {v: [False] for v in variables}
    for v in variables:
        if isinstance(v, Constant):
            storage_map[v][0], compute_map[v][0] = v.data, True
    for v, value in givens.items():
        storage_map[v][0], compute_map[v][0] = v.type.filter(value), True
    thunks = {n: n.op.make_thunk(n, storage_map, compute_map, []) for n in nodes}
    ran = []

    def compute(var):
        if compute_map[var][0]:
            return
        node = var.owner
        thunk = thunks[node]
        if getattr(thunk, "lazy", False):
            while True:
                needed = thunk()
                if not needed:
                    break
                for i in needed:
                    compute(node.inputs[i])
        else:
            for inp in node.inputs:
                compute(inp)
            thunk()
        ran.append(node)

    for o in outputs:
        compute(o)
    return [storage_map[o][0] for o in outputs], ran


def test_public_module_reexports():
    assert PublicIfElse is IfElse and public_ifelse is ifelse


def test_lazy_thunk_protocol_step_by_step():
    c, a, b = pt.scalar("c"), pt.vector("a"), pt.vector("b")
    out = ifelse(c, a, b)
    node = out.owner
    storage = {v: [None] for v in node.inputs + node.outputs}
    computed = {v: [False] for v in node.inputs + node.outputs}
    thunk = node.op.make_thunk(node, storage, computed, [])
    assert thunk.lazy is True
    assert thunk() == [0]  # the condition first
    storage[c][0], computed[c][0] = np.float64(0.0), True
    assert thunk() == [2]  # only the else branch
    bv = np.array([1.0, 2.0])
    storage[b][0], computed[b][0] = bv, True
    assert thunk() == []
    assert computed[out][0] is True
    np.testing.assert_array_equal(storage[out][0], bv)
    assert storage[out][0] is not bv  # not as_view: a copy


def test_lazy_run_skips_the_other_branch():
    c = pt.lscalar("c")
    x = pt.vector("x")
    expensive_then = pt.exp(x) * 2.0
    expensive_else = pt.log(x) - 1.0
    out = ifelse(c, expensive_then, expensive_else)
    xv = np.array([1.0, 2.0])
    (value,), ran = run_lazy([out], {c: 1, x: xv})
    np.testing.assert_allclose(value, np.exp(xv) * 2.0)
    assert expensive_else.owner not in ran and expensive_then.owner in ran
    (value,), ran = run_lazy([out], {c: 0, x: xv})
    np.testing.assert_allclose(value, np.log(xv) - 1.0)
    assert expensive_then.owner not in ran


def test_multiple_outputs_and_as_view():
    c = pt.scalar("c")
    a, b, d, e = pt.vectors("a", "b", "d", "e")
    outs = ifelse(c, [a, b], [d, e])
    assert isinstance(outs, list) and len(outs) == 2
    vals = {v: rng.standard_normal(3) for v in (a, b, d, e)}
    got = evaluate(outs, {c: 1.0, **vals})
    np.testing.assert_array_equal(got[0], vals[a])
    np.testing.assert_array_equal(got[1], vals[b])
    got, _ = run_lazy(outs, {c: 0.0, **vals})
    np.testing.assert_array_equal(got[0], vals[d])
    np.testing.assert_array_equal(got[1], vals[e])
    view = IfElse(1, as_view=True)
    assert view.view_map == {0: [1, 2]} and IfElse(1).view_map == {}
    node = view.make_node(c, a, b)
    cells = [[None]]
    av = np.ones(2)
    view.perform(node, [np.float64(1.0), av, np.zeros(2)], cells)
    assert cells[0][0] is av


def test_non_lazy_perform_and_fallback_thunk():
    c, a, b = pt.scalar("c"), pt.matrix("a"), pt.matrix("b")
    out = ifelse(c, a, b)
    av, bv = np.ones((2, 2)), np.zeros((2, 2))
    np.testing.assert_array_equal(evaluate(out, {c: 2.0, a: av, b: bv}), av)
    np.testing.assert_array_equal(evaluate(out, {c: 0.0, a: av, b: bv}), bv)
    node = out.owner
    storage = {v: [None] for v in node.inputs + node.outputs}
    for v, val in ((c, np.float64(1.0)), (a, av), (b, bv)):
        storage[v][0] = val
    thunk = node.op.make_thunk(node, storage, None, [])  # no compute_map: eager thunk
    thunk()
    np.testing.assert_array_equal(storage[out][0], av)


def test_types_and_static_shapes():
    c = pt.scalar("c")
    a = pt.tensor(dtype="float64", shape=(2, 3))
    b = pt.tensor(dtype="float64", shape=(2, None))
    out = ifelse(c, a, b)
    assert out.type == TensorType("float64", (2, None))
    f32 = pt.fvector("f")
    assert ifelse(c, f32, np.zeros(1)).type.dtype == "float32"  # constant adapts
    assert IfElse(2) == IfElse(2) and IfElse(2) != IfElse(2, as_view=True)
    assert IfElse(1, name="a") == IfElse(1, name="b")
    assert str(ifelse(c, a, a, name="pick").owner.op) == "if{pick}"


def test_infer_shape():
    c = pt.scalar("c")
    a, b = pt.matrix("a"), pt.matrix("b")
    out = ifelse(c, a, b)
    givens = {a: np.ones((2, 3)), b: np.ones((4, 5))}
    assert_infer_shape(out, {c: 1.0, **givens})
    assert_infer_shape(out, {c: 0.0, **givens})


def test_bad_input():
    c = pt.scalar("c")
    with pytest.raises(ValueError, match=r"then branch has 2 value.*else branch has 1"):
        ifelse(c, [pt.vector(), pt.vector()], [pt.vector()])
    with pytest.raises(TypeError, match=r"output 0.*dtype"):
        ifelse(c, pt.vector("a"), pt.lvector("b"))
    with pytest.raises(TypeError, match="same kind of type, dtype and number of dimensions"):
        ifelse(c, pt.vector("a"), pt.matrix("b"))
    with pytest.raises(TypeError, match=r"condition .* must be a real scalar"):
        ifelse(pt.vector("v"), pt.vector(), pt.vector())
    with pytest.raises(TypeError, match="takes the condition and 4"):
        IfElse(2)(c, pt.vector())
    with pytest.raises(ValueError, match="at least one"):
        ifelse(c, [], [])


def test_gradients_flow_into_the_taken_branch():
    from opgraph.gradient import grad

    c = pt.scalar("c")
    x, y = pt.vector("x"), pt.vector("y")
    cost = pt.sum(ifelse(c, x * 2.0, y * 3.0))
    gx, gy = grad(cost, [x, y])
    xv, yv = np.ones(2), np.ones(2)
    np.testing.assert_array_equal(evaluate(gx, {c: 1.0, x: xv, y: yv}), [2.0, 2.0])
    np.testing.assert_array_equal(evaluate(gy, {c: 1.0, x: xv, y: yv}), [0.0, 0.0])
    np.testing.assert_array_equal(evaluate(gx, {c: 0.0, x: xv, y: yv}), [0.0, 0.0])
    np.testing.assert_array_equal(evaluate(gy, {c: 0.0, x: xv, y: yv}), [3.0, 3.0])
    node = ifelse(c, x, y).owner
    grads = node.op.pullback(node.inputs, node.outputs, [x.type()])
    # The condition gets a zero gradient (as PyTensor), so grad() through it never fails.
    assert evaluate(grads[0], {c: 1.0}) == 0.0
    for cond in (1.0, 0.0):
        check_derivatives(
            lambda p, q, cond=cond: ifelse(pt.constant(cond), p * p, q + p),
            [rng.standard_normal(3), rng.standard_normal(3)],
            rng,
        )
