"""jacobian / hessian through OpFromGraph: its batching rule, and the row loop for overrides."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import compile_vm
from opgraph_ofg import OpFromGraph
from opgraph_ofg.batching import batch_opfromgraph

import opgraph.tensor as pt
from opgraph.autodiff.reverse import apply_nodes_above
from opgraph.gradient import Batched, NoBatchingRule, hessian, jacobian, vectorize_graph

XV = np.array([0.3, -0.7, 1.1])


def _ofg(**kwargs):
    a, b = pt.vectors("a", "b")
    return OpFromGraph([a, b], [a * pt.exp(b) + a[0]], **kwargs)


def _numeric_jacobian(f, x, eps=1e-6):
    return np.stack([(f(x + eps * e) - f(x - eps * e)) / (2 * eps)
                     for e in np.eye(x.size)], axis=-1)


def _f(v):
    return v * np.exp(v**2) + v[0]


def _ops(outputs):
    return [n.op for n in apply_nodes_above(outputs, set())]


def test_jacobian_of_ofg_output_uses_a_batched_ofg():
    x = pt.dvector("x")
    J = jacobian(_ofg()(x, x**2), x)
    ops = _ops([J])
    assert not any(isinstance(op, Batched) and isinstance(op.op, OpFromGraph) for op in ops)
    got = compile_vm([x], J)(XV)
    np.testing.assert_allclose(got, _numeric_jacobian(_f, XV), rtol=1e-6, atol=1e-8)


def test_hessian_through_ofg_matches_finite_differences():
    x = pt.dvector("x")
    cost = _ofg()(x, x).sum()
    H = compile_vm([x], hessian(cost, x))(XV)
    g = compile_vm([x], pt.grad(cost, x))
    want = _numeric_jacobian(lambda v: g(v), XV)
    np.testing.assert_allclose(H, want, rtol=1e-5, atol=1e-7)


def test_ofg_with_overrides_keeps_the_override_in_the_jacobian():
    def double_grad(inputs, outputs, cotangents):
        (gz,) = cotangents
        return [2.0 * gz * pt.exp(inputs[1]), pt.zeros_like(inputs[1])]

    op = _ofg(pullback=double_grad)
    x = pt.dvector("x")
    J = jacobian(op(x, pt.ones_like(x)), x)
    got = compile_vm([x], J)(XV)
    # the override (2 * exp(b) on the diagonal), not the true derivative (which has a[0])
    np.testing.assert_allclose(got, 2.0 * np.e * np.eye(3))


def test_batching_rule_directly_and_its_refusals():
    a, b = pt.dvectors("a", "b")
    op = OpFromGraph([a, b], [(a * b).sum() + b])
    node = op(a, b).owner
    A = pt.dmatrix("A")
    outs = batch_opfromgraph(node, [A, b], [1, 0])
    assert outs[0].type.ndim == 2 and isinstance(outs[0].owner.op, OpFromGraph)
    av, bv = np.arange(6.0).reshape(2, 3), np.array([1.0, -1.0, 2.0])
    got = compile_vm([A, b], outs[0])(av, bv)
    np.testing.assert_allclose(got, np.stack([(r * bv).sum() + bv for r in av]))
    with pytest.raises(NoBatchingRule, match="overrides"):
        over = OpFromGraph([a, b], [a + b], pullback=lambda i, o, g: [g[0], g[0]])
        batch_opfromgraph(over(a, b).owner, [A, b], [1, 0])


def test_vectorize_graph_with_an_ofg_whose_output_ignores_the_batch():
    a, b = pt.dvectors("a", "b")
    op = OpFromGraph([a, b], [b * 2.0, a + b])
    row = pt.dvector("row")
    c = pt.dvector("c")
    first, second = op(row, c)
    X = pt.dmatrix("X")
    v1, v2 = vectorize_graph([first, second], {row: X}, X.shape[0])
    got = compile_vm([X, c], [v1, v2])(np.ones((2, 3)), np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(got[0], [[2.0, 4.0, 6.0]] * 2)
    np.testing.assert_allclose(got[1], [[2.0, 3.0, 4.0]] * 2)
