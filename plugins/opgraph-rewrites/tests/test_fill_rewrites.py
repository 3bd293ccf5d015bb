"""Fill (second) elimination: sinking, useless fills, fill -> alloc; and the
incremental equilibrium rounds that must still reach the same normal form."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import assert_same, compile_pair, op_counts

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.gradient import grad
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.utils import rewrite_graph
from opgraph.graph.rewriting.walking import neighbourhood, order_subset
from opgraph.tensor.basic import second

RNG = np.random.default_rng(7)


def _mlp_grad() -> tuple[list, list]:
    x, t = pt.matrix("x"), pt.matrix("t")
    w1, w2 = pt.matrix("w1"), pt.matrix("w2")
    b1, b2 = pt.vector("b1"), pt.vector("b2")
    h = pt.tanh(pt.dot(x, w1) + b1)
    out = pt.dot(h, w2) + b2
    loss = pt.mean((out - t) ** 2)
    params = [w1, b1, w2, b2]
    return [x, t, *params], [loss, *grad(loss, params)]


def _mlp_args() -> list[np.ndarray]:
    n = 5
    return [RNG.normal(size=(n, 4)), RNG.normal(size=(n, 3)), RNG.normal(size=(4, 6)),
            RNG.normal(size=6), RNG.normal(size=(6, 3)), RNG.normal(size=3)]


def test_mlp_gradient_has_no_fill_and_one_sqr():
    inputs, outputs = _mlp_grad()
    fast, ref = compile_pair(inputs, outputs, mode=get_mode("FAST_RUN").excluding("fusion", "blas"))
    counts = op_counts(fast)
    assert counts["Second"] == 0
    assert counts["Alloc"] == 0
    # the loss's own square and tanh's derivative 1 - tanh**2; no gradient reads the loss's
    assert counts["Sqr"] == 2
    fg = fast.maker.fgraph
    for node in fg.apply_nodes:
        if type(getattr(node.op, "scalar_op", None)).__name__ == "Sqr" \
                and node.inputs[0].owner is not None \
                and "Tanh" not in str(type(getattr(node.inputs[0].owner.op, "scalar_op", None))):
            users = [type(c.op).__name__ for c, _k in fg.clients[node.outputs[0]]]
            assert users == ["Sum"]
    args = _mlp_args()
    for a, b in zip(fast(*args), ref(*args)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    before, _ = compile_pair(inputs, outputs,
                             mode=get_mode("FAST_RUN").excluding("fusion", "fill"))
    assert op_counts(before)["Second"] >= 1  # the seed fill(cost, 1) and more
    assert len(fast.maker.fgraph.apply_nodes) < len(before.maker.fgraph.apply_nodes)


def test_mlp_gradient_fused_composites_have_no_second():
    inputs, outputs = _mlp_grad()
    fast, ref = compile_pair(inputs, outputs)
    for node in fast.maker.fgraph.apply_nodes:
        sop = getattr(node.op, "scalar_op", None)
        assert "second" not in str(sop)
    args = _mlp_args()
    for a, b in zip(fast(*args), ref(*args)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_fill_sinks_until_another_input_has_the_shape():
    x, z = pt.matrix("x"), pt.matrix("z")
    c = pt.scalar("c")
    out = second(pt.exp(x), c) * z  # exp(x) only gives the shape; z has it too
    fast, ref = compile_pair([x, z, c], out, mode=get_mode("FAST_RUN").excluding("fusion"))
    counts = op_counts(fast)
    assert counts["Exp"] == 0 and counts["Second"] == 0 and counts["Alloc"] == 0
    assert_same(fast, ref, RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4)), np.float64(1.5))


def test_fill_that_sets_the_shape_becomes_alloc_of_shape_only():
    x = pt.matrix("x")
    c = pt.scalar("c")
    out = second(pt.exp(x), c) + 1.0  # the fill alone gives the (3, 4) shape
    fast, ref = compile_pair([x, c], out, mode=get_mode("FAST_RUN").excluding("fusion"))
    counts = op_counts(fast)
    assert counts["Exp"] == 0  # x's value is not computed, only its shape
    assert counts["Second"] == 0 and counts["Alloc"] == 1
    assert_same(fast, ref, RNG.normal(size=(3, 4)), np.float64(-2.0))
    assert fast.maker.fgraph.outputs[0].type == out.type


def test_fill_kept_when_model_value_is_needed_anyway():
    x = pt.matrix("x")
    c = pt.scalar("c")
    e = pt.exp(x)
    out = [second(e, c) + 1.0, e]
    fast, ref = compile_pair([x, c], out, mode=get_mode("FAST_RUN").excluding("fusion"))
    assert op_counts(fast)["Exp"] == 1
    assert op_counts(fast)["Alloc"] == 0
    args = RNG.normal(size=(2, 3)), np.float64(0.5)
    for a, b in zip(fast(*args), ref(*args)):
        np.testing.assert_allclose(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_useless_fill_keeps_dtype_and_static_shape(dtype):
    x = pt.tensor(dtype=dtype, shape=(2, None), name="x")
    y = pt.tensor(dtype=dtype, shape=(None, None), name="y")
    out = second(x, x * y) + y  # x * y has x's shape (a static 2 and x's dimension 1)
    fg = FunctionGraph([x, y], [out], clone=True)
    rewrite_graph(fg, include=("canonicalize",))
    new = fg.outputs[0]
    assert new.type == out.type
    assert not any("second" in str(getattr(n.op, "scalar_op", "")) for n in fg.apply_nodes)
    fast, ref = compile_pair([x, y], out)
    xv = np.arange(6).reshape(2, 3).astype(dtype)
    assert_same(fast, ref, xv, xv[::-1].copy())


def test_fill_broadcasting_value_is_not_removed():
    x = pt.matrix("x")
    v = pt.row("v")
    out = second(x, v)  # v's first axis is 1: the fill really broadcasts
    fast, ref = compile_pair([x, v], out, mode=get_mode("FAST_RUN").excluding("fusion"))
    assert op_counts(fast)["Second"] + op_counts(fast)["Alloc"] == 1
    assert_same(fast, ref, RNG.normal(size=(3, 4)), RNG.normal(size=(1, 4)))
    assert fast(np.zeros((3, 4)), np.ones((1, 4))).shape == (3, 4)


def test_fill_edge_values():
    x, z = pt.vector("x"), pt.vector("z")
    out = second(pt.log(x), z) * z
    fast, ref = compile_pair([x, z], out)
    edge = np.array([0.0, -1.0, np.inf, np.nan, 2.0])
    assert_same(fast, ref, edge, edge[::-1].copy())


def test_neighbourhood_covers_touched_their_neighbours_and_single_client_chain():
    x = pt.vector("x")
    a = pt.exp(x)
    b = a + 1.0
    c = b * 2.0
    d = pt.sin(c)
    e = d + a
    fg = FunctionGraph([x], [e], clone=False)
    dirty = neighbourhood(fg, [b.owner])
    assert {a.owner, b.owner, c.owner, d.owner} <= set(dirty)
    order = order_subset(dirty)
    assert order.index(a.owner) < order.index(b.owner) < order.index(c.owner)
