"""dot_diag_to_elemwise, local_block_diag_dot_to_dot_block_diag, local_log_div and
local_sign_div: each fires on its own, is registered under PyTensor's name, and keeps
the values (edges included) and gradients of the unrewritten graph."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers_rw import EDGE, compile_pair, op_counts
from opgraph.tensor.rewriting import math as m

import opgraph.tensor as pt
from opgraph.compile.database import optdb
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.config import config
from opgraph.gradient import grad
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out
from opgraph.printing import pprint

pytest.importorskip("opgraph_linalg")

MODE = get_mode("FAST_RUN").excluding("fusion")
RNG = np.random.default_rng(7)


def _apply(rewriter, inputs, out):
    fg = FunctionGraph(inputs, [out], clone=True)
    in2out(rewriter).rewrite(fg)
    return fg


def _run(inputs, outs, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = function(inputs, outs, mode=Mode(linker="vm", optimizer=None),
                      on_unused_input="ignore")
    with np.errstate(all="ignore"):
        return fn(*args)


def _check(rewriter, inputs, out, values, rtol=1e-13):
    fg = _apply(rewriter, inputs, out)
    new = fg.outputs[0]
    assert pprint(new) != pprint(out), f"{rewriter.name} did not fire"
    np.testing.assert_allclose(_run(fg.inputs, new, *values), _run(inputs, out, *values),
                               rtol=rtol, atol=1e-300, equal_nan=True)
    g_new = grad(new.sum(), list(fg.inputs), disconnected_inputs="ignore")
    g_old = grad(out.sum(), inputs, disconnected_inputs="ignore")
    for a, b in zip(_run(fg.inputs, g_new, *values), _run(inputs, g_old, *values)):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-300, equal_nan=True)
    return fg


DIAG_CASES = {
    "diag_left_matrix": lambda d, X, v: pt.diag(d) @ X,
    "eye_left_vector": lambda d, X, v: (pt.eye(4) * d) @ v,
    "diag_right_matrix": lambda d, X, v: X.T @ pt.diag(d),
    "eye_col_right_vector": lambda d, X, v: v @ (pt.eye(4) * d[:, None]),
    "dot_both_diag": lambda d, X, v: pt.dot(pt.diag(d), pt.diag(v)),
}


@pytest.mark.parametrize("build", DIAG_CASES.values(), ids=DIAG_CASES.keys())
def test_dot_diag_to_elemwise(build):
    d, X, v = pt.dvector("d", shape=(4,)), pt.dmatrix("X", shape=(4, 3)), \
        pt.dvector("v", shape=(4,))
    out = build(d, X, v)
    big = np.array([1e300, -1e-300, 0.0, -2.0])
    values = (RNG.normal(size=4) * big + big, RNG.normal(size=(4, 3)) * 1e150,
              RNG.normal(size=4))
    fg = _check(m.dot_diag_to_elemwise, [d, X, v], out, values)
    assert not any(type(n.op).__name__ in ("MatMul", "Dot") for n in fg.apply_nodes)
    fast, _ = compile_pair([d, X, v], out, MODE)
    assert op_counts(fast)["MatMul"] + op_counts(fast)["Dot22"] + op_counts(fast)["Gemv"] == 0


def test_dot_diag_keeps_inf_in_its_row():
    d, X = pt.dvector("d", shape=(3,)), pt.dmatrix("X", shape=(3, 2))
    fast, ref = compile_pair([d, X], pt.diag(d) @ X, MODE)
    dv, Xv = np.array([1.0, 2.0, 3.0]), np.array([[np.inf, 1.0], [1.0, 1.0], [2.0, 2.0]])
    with np.errstate(all="ignore"):
        got = fast(dv, Xv)
        assert np.isnan(ref(dv, Xv)[1, 0])  # NumPy: 0 * inf in the sum
    np.testing.assert_array_equal(got, dv[:, None] * Xv)


def test_dot_diag_leaves_other_products():
    d, X = pt.dvector("d", shape=(4,)), pt.dmatrix("X", shape=(4, 4))
    out = (pt.eye(4, k=1) * d) @ X
    fg = _apply(m.dot_diag_to_elemwise, [d, X], out)
    assert pprint(fg.outputs[0]) == pprint(out)


@pytest.mark.parametrize("left", [True, False])
def test_block_diag_dot(left):
    a, b = pt.dmatrix("a", shape=(2, 3)), pt.dmatrix("b", shape=(3, 1))
    y = pt.dmatrix("y", shape=(4, 5) if left else (6, 5))
    bd = pt.linalg.block_diag(a, b)
    out = bd @ y if left else y @ bd
    values = (RNG.normal(size=(2, 3)), RNG.normal(size=(3, 1)),
              RNG.normal(size=y.type.shape))
    fg = _check(m.local_block_diag_dot_to_dot_block_diag, [a, b, y], out, values, rtol=1e-12)
    assert not any("BlockDiagonal" in str(n.op) for n in fg.apply_nodes)


LOG_SIGN = {
    "log_c_over_x": (m.local_log_div, lambda x: pt.log(3.0 / x)),
    "log_x_over_c": (m.local_log_div, lambda x: pt.log(x / 3.0)),
    "log_one_over_x": (m.local_log_div, lambda x: pt.log(1.0 / x)),
    "log_reciprocal": (m.local_log_div, lambda x: pt.log(pt.reciprocal(x))),
    "sign_x_over_c": (m.local_sign_div, lambda x: pt.sign(x / 3.0)),
    "sign_x_over_neg_c": (m.local_sign_div, lambda x: pt.sign(x / -2.0)),
}


@pytest.mark.parametrize("case", LOG_SIGN.values(), ids=LOG_SIGN.keys())
def test_log_sign_div(case):
    rewriter, build = case
    x = pt.dvector("x")
    out = build(x)
    fg = _apply(rewriter, [x], out)
    new = fg.outputs[0]
    assert pprint(new) != pprint(out), f"{rewriter.name} did not fire"
    # Not x = -0.0 or -inf: there the quotient is a signed zero, log(-0.0) = -inf while
    # log of a negative number is NaN (opgraph does not keep the sign of zeros).
    xs = np.concatenate([EDGE[(EDGE != 0) & (EDGE != -np.inf)], np.linspace(-3, 3, 8),
                         [1e-300, 1e300]])
    np.testing.assert_allclose(_run(fg.inputs, new, xs), _run([x], out, xs), rtol=1e-15,
                               equal_nan=True)
    pos = np.array([0.25, 1.0, 7.0])
    g_new, g_old = grad(new.sum(), fg.inputs[0]), grad(out.sum(), x)
    np.testing.assert_allclose(_run(fg.inputs, g_new, pos), _run([x], g_old, pos), rtol=1e-14)
    fast, _ = compile_pair([x], out, MODE)
    assert op_counts(fast)["TrueDiv"] + op_counts(fast)["Reciprocal"] == 0


def test_log_div_gains_precision():
    x = pt.dvector("x")
    fast, ref = compile_pair([x], pt.log(3.0 / x), MODE)
    xs = np.array([1e-310])
    with np.errstate(all="ignore"):
        assert np.isinf(ref(xs)[0])
    np.testing.assert_allclose(fast(xs), np.log(3.0) - np.log(xs), rtol=1e-15)


def test_sign_of_constant_over_x_only_under_fast_math():
    x = pt.dvector("x")
    out = pt.sign(3.0 / x)
    assert pprint(_apply(m.local_sign_div, [x], out).outputs[0]) == pprint(out)
    with config.change_flags(fast_math=True):
        assert "true_div" not in pprint(_apply(m.local_sign_div, [x], out).outputs[0])


@pytest.mark.parametrize("name", ["dot_diag_to_elemwise", "local_block_diag_dot_to_dot_block_diag",
                                  "local_log_div", "local_sign_div"])
def test_registered_under_pytensor_names(name):
    assert name in optdb["stabilize"]
    assert getattr(m, name) is optdb["stabilize"][name]


def _sumsqr(W, G):
    return pt.sqr(W.dimshuffle("x", 0, 1) * G.dimshuffle(0, "x", 1)).sum(axis=(1, 2))


def test_sumsqr2dot_by_name_only():
    W, G = pt.dmatrix("W"), pt.dmatrix("G")
    out = _sumsqr(W, G)
    w, g = RNG.normal(size=(4, 3)), RNG.normal(size=(5, 3))
    on, ref = compile_pair([W, G], out, MODE.including("local_sumsqr2dot"))
    off, _ = compile_pair([W, G], out, MODE)
    assert op_counts(on)["Dot22"] + op_counts(on)["Gemv"] + op_counts(on)["Dot"] >= 1
    assert op_counts(off)["Dot22"] + op_counts(off)["Gemv"] + op_counts(off)["Dot"] == 0
    np.testing.assert_allclose(on(w, g), ref(w, g), rtol=1e-13)
    np.testing.assert_allclose(on(w, g), np.square(g) @ np.square(w).sum(0), rtol=1e-13)
    assert "local_sumsqr2dot" in optdb["canonicalize"]


def test_sumsqr2dot_gradient():
    W, G = pt.dmatrix("W"), pt.dmatrix("G")
    out = _sumsqr(W, G)
    fg = _apply(m.local_sumsqr2dot, [W, G], out)
    w, g = RNG.normal(size=(2, 3)), RNG.normal(size=(4, 3))
    gn = grad(fg.outputs[0].sum(), list(fg.inputs))
    go = grad(out.sum(), [W, G])
    for a, b in zip(_run(fg.inputs, gn, w, g), _run([W, G], go, w, g)):
        np.testing.assert_allclose(a, b, rtol=1e-12)
