"""The reverse-mode driver on toy Ops: accumulation, connectivity, errors, legacy Ops, hooks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from grad_toys import (
    Cut,
    LegacyGrad,
    LegacyLOp,
    RoundToInt,
    Scale,
    TwoStreams,
    Undefined,
    ev,
)

import opgraph.tensor as pt
from opgraph.gradient import (
    DisconnectedInputError,
    DisconnectedType,
    NullType,
    NullTypeGradError,
    grad,
    pullback,
)


def test_chain_rule_through_scalar_ops():
    x = pt.dscalar("x")
    cost = Scale(3.0)(Scale(2.0)(x))
    g = grad(cost, x)
    assert float(ev(g, {x: 1.5})) == pytest.approx(6.0)


def test_several_clients_are_summed():
    x = pt.dscalar("x")
    prod, _ = TwoStreams()(Scale(2.0)(x), Scale(3.0)(x))  # 6 x^2
    g = grad(prod, x)
    assert float(ev(g, {x: 2.0})) == pytest.approx(24.0)


def test_wrt_structure_follows_the_argument():
    x, y = pt.dscalar("x"), pt.dscalar("y")
    prod, _ = TwoStreams()(x, y)
    single = grad(prod, x)
    as_list = grad(prod, [x, y])
    as_tuple = grad(prod, (x, y))
    assert not isinstance(single, list)
    assert isinstance(as_list, list) and len(as_list) == 2
    assert isinstance(as_tuple, list) and len(as_tuple) == 2
    gx, gy = ev(as_list, {x: 2.0, y: 5.0})
    assert (float(gx), float(gy)) == (5.0, 2.0)


def test_multi_output_node_with_one_output_used_gets_zeros_for_the_other():
    x, y = pt.dscalar("x"), pt.dscalar("y")
    op = TwoStreams()
    _, sq = op(x, y)
    gy = grad(sq, y)
    assert float(ev(gy, {x: 3.0, y: 4.0})) == pytest.approx(8.0)
    # the unused output's cotangent is a zero, never None
    assert float(ev(op.seen[0], {x: 3.0, y: 4.0})) == 0.0


def test_connection_pattern_makes_input_disconnected():
    x, y = pt.dscalar("x"), pt.dscalar("y")
    _, sq = TwoStreams()(x, y)
    with pytest.raises(DisconnectedInputError, match="x"):
        grad(sq, x)
    zero = grad(sq, x, disconnected_inputs="ignore")
    assert float(ev(zero, {x: 1.0})) == 0.0


def test_disconnected_options():
    x, w = pt.dscalar("x"), pt.dscalar("w")
    cost = Scale(2.0)(x)
    with pytest.raises(DisconnectedInputError, match="w"):
        grad(cost, [x, w])
    with pytest.warns(UserWarning, match="not part of the computational graph"):
        grad(cost, [x, w], disconnected_inputs="warn")
    gx, gw = grad(cost, [x, w], disconnected_inputs="ignore", return_disconnected="none")
    assert gw is None and gx is not None
    _, gw = grad(cost, [x, w], disconnected_inputs="ignore", return_disconnected="disconnected")
    assert isinstance(gw.type, DisconnectedType)
    _, gw = grad(cost, [x, w], disconnected_inputs="ignore", return_disconnected="zero")
    assert gw.type.dtype == "float64" and float(ev(gw, {w: 5.0})) == 0.0


def test_pullback_returning_disconnected():
    x = pt.dscalar("x")
    with pytest.raises(DisconnectedInputError):
        grad(Cut()(x), x)


def test_bad_options_and_arguments():
    x = pt.dscalar("x")
    v = pt.dvector("v")
    cost = Scale(2.0)(x)
    with pytest.raises(ValueError, match="disconnected_inputs"):
        grad(cost, x, disconnected_inputs="maybe")
    with pytest.raises(ValueError, match="return_disconnected"):
        grad(cost, x, return_disconnected="zeros")
    with pytest.raises(ValueError, match="null_gradients"):
        grad(cost, x, null_gradients="ignore")
    with pytest.raises(TypeError, match="scalar"):
        grad(Scale(2.0)(v), v)
    with pytest.raises(TypeError, match="wrt"):
        grad(cost, 3.0)
    with pytest.raises(ValueError, match="known_grads"):
        grad(None, x)


def test_null_gradient_errors_name_op_and_input():
    a, b, c = pt.dscalar("a"), pt.dscalar("b"), pt.dscalar("c")
    u = Undefined()(a, b)
    prod, _ = TwoStreams()(u, Scale(2.0)(c))
    with pytest.raises(NullTypeGradError, match=r"input 0 \(a\) of the Undefined op"):
        grad(prod, a)
    with pytest.raises(NullTypeGradError, match=r"input 1 \(b\).*not implemented"):
        grad(prod, b)
    g = grad(prod, a, null_gradients="return")
    assert isinstance(g.type, NullType)
    # the undefined gradient is not needed for c: no error
    gc = grad(prod, c)
    assert float(ev(gc, {a: 1.0, b: 2.0, c: 0.5})) == pytest.approx(6.0)


def test_null_cotangent_propagates_to_connected_inputs():
    a, b = pt.dscalar("a"), pt.dscalar("b")
    u = Undefined()(a, b)
    cost = Scale(2.0)(u)
    with pytest.raises(NullTypeGradError, match="Undefined"):
        grad(cost, a)


def test_integer_output_gives_zero_gradient_without_pullback():
    x = pt.dscalar("x")
    cost = RoundToInt()(x)
    g = grad(cost, x)
    assert g.type.dtype == "float64"
    assert float(ev(g, {x: 1.3})) == 0.0


def test_integer_wrt_gets_the_float_gradient():
    """As in PyTensor: d(x * float(n))/dn is x, the gradient over floats."""
    n = pt.lscalar("n")
    x = pt.dscalar("x")
    prod, _ = TwoStreams()(x, pt.cast(n, "float64"))
    gx, gn = grad(prod, [x, n])
    assert gn.type.dtype == "float64"
    assert float(ev(gn, {x: 2.0, n: 3})) == 2.0
    assert float(ev(gx, {x: 2.0, n: 3})) == 3.0


def test_integer_valued_path_gives_float_zero():
    n = pt.lscalar("n")
    x = pt.dscalar("x")
    gn = grad(x * pt.cast(n * 2, "float64"), n)
    assert gn.type.dtype == "float64"
    assert float(ev(gn, {x: 2.0, n: 3})) == 0.0


def test_known_grads_seed_intermediate_variables():
    x = pt.dvector("x")
    y = Scale(2.0)(x)
    g = pt.dvector("g")
    gx = grad(None, x, known_grads={y: g})
    np.testing.assert_allclose(ev(gx, {x: np.ones(3), g: np.arange(3.0)}), 2 * np.arange(3.0))
    # with a cost too: the known gradient replaces what the cost would give that variable
    s = pt.dscalar("s")
    z = Scale(3.0)(s)
    cost = Scale(5.0)(z)
    gs = grad(cost, s, known_grads={z: pt.constant(1.0)})
    assert float(ev(gs, {s: 1.0})) == pytest.approx(3.0)


def test_pullback_is_lop():
    x = pt.dvector("x")
    y = Scale(4.0)(x)
    u = pt.dvector("u")
    gx = pullback(y, x, u)
    np.testing.assert_allclose(ev(gx, {x: np.ones(2), u: np.array([1.0, -2.0])}), [4.0, -8.0])


def test_consider_constant_stops_backpropagation():
    x = pt.dscalar("x")
    z = Scale(3.0)(x)
    cost = Scale(2.0)(z)
    with pytest.raises(DisconnectedInputError):
        grad(cost, x, consider_constant=[z])
    gz = grad(cost, z, consider_constant=[z])
    assert float(ev(gz, {x: 1.0})) == 2.0


def test_only_needed_pullbacks_are_called():
    x, w = pt.dscalar("x"), pt.dscalar("w")
    sx, sw = Scale(2.0), Scale(5.0)
    prod, _ = TwoStreams()(sx(x), sw(w))
    grad(prod, x)
    assert sx.calls == 1
    assert sw.calls == 0


def test_add_names():
    x = pt.dscalar("x")
    mid = Scale(2.0)(x)
    mid.name = "mid"
    cost = Scale(3.0)(mid)
    cost.name = "c"
    assert grad(cost, x).name == "(dc/dx)"
    cost2 = Scale(3.0)(Scale(2.0)(x))
    assert grad(cost2, x).name is None


def test_deep_graph_without_recursion():
    x = pt.dscalar("x")
    y = x
    for _ in range(5000):
        y = Scale(1.0)(y)
    g = grad(y, x)
    assert float(ev(g, {x: 2.0})) == 1.0


def test_legacy_grad_and_l_op_warn_and_work():
    x = pt.dscalar("x")
    with pytest.warns(DeprecationWarning, match="grad"):
        g2 = grad(LegacyGrad()(x), x)
    with pytest.warns(DeprecationWarning, match="L_op"):
        g3 = grad(LegacyLOp()(x), x)
    assert float(ev(g2, {x: 3.0})) == pytest.approx(6.0)
    assert float(ev(g3, {x: 2.0})) == pytest.approx(12.0)


def test_new_style_ops_do_not_warn():
    x = pt.dscalar("x")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        grad(Scale(2.0)(x), x)
