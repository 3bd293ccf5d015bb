"""PyTensor's gradient API under its current names: pushforward, pullback, subgraph_grad, ..."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.autodiff.evaluate import compile_callable
from opgraph.gradient import (
    DisconnectedGrad,
    DisconnectedInputError,
    UndefinedGrad,
    ZeroGrad,
    disconnected_grad_,
    grad,
    numeric_grad,
    pullback,
    pushforward,
    pushforward_through_pullback,
    subgraph_grad,
    undefined_grad_,
    zero_grad,
    zero_grad_,
)
from opgraph.scalar import float64 as scalar_float64


def ev(outputs, inputs, *values):
    return compile_callable(inputs, outputs)(*values)


@pytest.mark.parametrize("use_op", [True, False])
def test_pushforward_both_ways_and_structure(use_op):
    m, v = pt.dmatrix("m"), pt.dvector("v")
    tm, tv = pt.dmatrix("tm"), pt.dvector("tv")
    outs = pushforward((m, v, pt.exp(m) * v), [m, v], [tm, tv], use_op_pushforward=use_op)
    assert isinstance(outs, tuple) and len(outs) == 3
    mv, vv = np.array([[0.1, 0.2]]), np.array([0.3, -0.4])
    tmv, tvv = np.array([[1.0, 2.0]]), np.array([3.0, 4.0])
    got = ev(list(outs), [m, v, tm, tv], mv, vv, tmv, tvv)
    np.testing.assert_allclose(got[0], tmv)
    np.testing.assert_allclose(got[1], tvv)
    np.testing.assert_allclose(got[2], np.exp(mv) * tmv * vv + np.exp(mv) * tvv)
    listed = pushforward([m], [m], [tm], use_op_pushforward=use_op)
    assert isinstance(listed, list)


@pytest.mark.parametrize("use_op", [True, False])
def test_pushforward_rejects_mismatched_tangent(use_op):
    with pytest.raises(ValueError, match="eval_points"):
        pushforward(0.0, [pt.dmatrix()], [pt.dvector()], use_op_pushforward=use_op)


def test_pushforward_through_zero_grad_is_zero_not_disconnected():
    x, t = pt.dvector("x"), pt.dvector("t")
    for out in (pushforward(zero_grad(x), x, t), pushforward_through_pullback(zero_grad(x), x, t),
                pushforward(zero_grad(x), x, t, use_op_pushforward=True)):
        got = ev([out], [x, t], np.ones(3), np.arange(3.0))[0]
        np.testing.assert_array_equal(got, np.zeros(3))


def test_pushforward_disconnected_output_still_raises():
    x, w = pt.dvector("x"), pt.dvector("w")
    with pytest.raises(DisconnectedInputError):
        pushforward(w * 2.0, x, pt.dvector())


def test_pullback_with_cotangents_keyword_on_scalars():
    a = scalar_float64("a")
    out = a**2
    g = scalar_float64("g")
    res = pullback(out, wrt=a, cotangents=g)
    assert res.type == g.type
    assert float(ev([res], [a, g], 3.0, 1.5)[0]) == pytest.approx(9.0)


def test_subgraph_grad_chains_pieces_like_one_grad():
    x = pt.dvector("x")
    w1, w2 = pt.dvector("w1"), pt.dvector("w2")
    h = pt.tanh(x * w1)
    cost2 = (h * w2).sum() ** 2
    cost1 = (w1**2).sum()
    full = grad(cost1 + cost2, [w1, w2])
    g2, end2 = subgraph_grad(wrt=[w2], end=[h], cost=cost2)
    g1, _ = subgraph_grad(wrt=[w1], end=[x], start=dict(zip([h], end2)), cost=cost1)
    vals = [np.array([0.1, 0.2]), np.array([1.5, -0.5]), np.array([0.3, 0.7])]
    want = ev(full, [x, w1, w2], *vals)
    got = ev([g1[0], g2[0]], [x, w1, w2], *vals)
    np.testing.assert_allclose(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1])
    with pytest.raises(ValueError, match="needs a cost"):
        subgraph_grad([w1], [h])
    details = subgraph_grad([w2], [h], cost=cost2, details=True)
    assert len(details) == 4 and details[2] is None


def test_numeric_grad_and_max_err():
    ng = numeric_grad(lambda a, b: float((a**2).sum() + (a * b).sum()),
                      [np.array([1.0, 2.0]), np.array([3.0, -1.0])], eps=1e-7)
    np.testing.assert_allclose(ng.gf[0], [5.0, 3.0], atol=1e-5)
    np.testing.assert_allclose(ng.gf[1], [1.0, 2.0], atol=1e-5)
    arg, pos, abs_err, _ = ng.max_err([np.array([5.0, 3.0]), np.array([1.0, 2.5])], 1e-4, 1e-4)
    assert (arg, pos) == (1, 1) and abs_err == pytest.approx(0.5, abs=1e-4)
    single = numeric_grad(lambda a: float(np.sin(a).sum()), np.array([0.0, 1.0]))
    np.testing.assert_allclose(single.gf, np.cos([0.0, 1.0]), atol=1e-5)


def test_gradient_identity_instances():
    assert isinstance(zero_grad_, ZeroGrad)
    assert isinstance(disconnected_grad_, DisconnectedGrad)
    assert isinstance(undefined_grad_, UndefinedGrad)
    x = pt.dvector()
    assert zero_grad(x).owner.op == zero_grad_


def test_grad_of_itself_and_disconnected_depend_on_the_variable():
    x, y = pt.dscalar("x"), pt.dscalar("y")
    gx = grad(x, x)
    assert x in gx.owner.inputs  # fill(x, 1): a function of x, as in PyTensor
    gy = grad(x, y, disconnected_inputs="ignore")
    assert y in gy.owner.inputs
    assert float(ev([gy], [y], 2.0)[0]) == 0.0


def test_known_grads_lower_rank_broadcasts():
    v = pt.dvector("v")
    y = v * 2.0
    (g,) = grad(None, [v], known_grads={y: pt.constant(1.5)})
    np.testing.assert_allclose(ev([g], [v], np.ones(3))[0], [3.0, 3.0, 3.0])
    with pytest.raises(ValueError, match="has 2 dimensions"):
        grad(None, [v], known_grads={y: pt.dmatrix()})


def test_gradient_wrt_integer_input_is_the_float_gradient():
    i = pt.ivector("i")
    cost = (pt.cast(i, "float64") * 2.5).sum()
    g = grad(cost, i)
    assert g.type.dtype.startswith("float")
    np.testing.assert_allclose(ev([g], [i], np.array([1, 2], dtype="int32"))[0], [2.5, 2.5])


def test_tensor_constructor_pytensor_spelling():
    x = pt.tensor("x", dtype="float32", shape=(2, None))
    assert x.name == "x" and x.type.dtype == "float32" and x.type.shape == (2, None)
    y = pt.tensor("float64", (3,), "y")
    assert y.name == "y" and y.type.shape == (3,)
    with pytest.raises(TypeError, match="both by position and by keyword"):
        pt.tensor("float64", (3,), shape=(3,))


def test_max_and_argmax_and_tensor_namespace_grad():
    x = pt.dmatrix("x")
    mx, am = pt.max_and_argmax(x, axis=1)
    val = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    got = ev([mx, am], [x], val)
    np.testing.assert_array_equal(got[0], [5.0, 7.0])
    np.testing.assert_array_equal(got[1], [1, 0])
    assert pt.grad is grad
