"""PyTensor-named rewrites of ``opgraph.tensor.rewriting.math``: each fires on its own
(``in2out``), is registered under its name, and keeps values (edges included) and
gradients of the unrewritten graph."""

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
from opgraph.gradient import grad
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out
from opgraph.printing import pprint

MODE = get_mode("FAST_RUN").excluding("fusion")

CASES = [  # (name, build, scalar op that must be gone)
    ("local_one_minus_erf", lambda x, y: 1 - pt.erf(x), "Erf"),
    ("local_one_plus_erf", lambda x, y: 1 + pt.erf(x), "Erf"),
    ("local_erf_minus_one", lambda x, y: pt.erf(x) - 1, "Erf"),
    ("local_one_minus_erfc", lambda x, y: 1 - pt.erfc(x), "Erfc"),
    ("local_erf_neg_minus_one", lambda x, y: pt.erfc(-x) - 1, "Erfc"),
    ("local_sum_of_neg_to_neg_of_sum", lambda x, y: pt.sum(-(x * y)), None),
    ("local_abs_lift", lambda x, y: pt.abs(x * y) + pt.abs(x / y), None),
    ("local_abs_merge", lambda x, y: pt.abs(x) * pt.abs(y) + pt.abs(x) / pt.abs(y), None),
    ("local_add_neg_to_sub", lambda x, y: x + (-y), "Add"),
    ("local_neg_div_neg", lambda x, y: -((-x) / y) + -(2.0 / y), "Neg"),
    ("local_div_by_one", lambda x, y: x / 1.0, "TrueDiv"),
    ("local_add_remove_zeros", lambda x, y: x + 0.0 + y, None),
    ("local_div_to_reciprocal", lambda x, y: 1.0 / x, "TrueDiv"),
    ("local_mul_specialize", lambda x, y: pt.mul(x, 1.0, y) + pt.mul(x, -1.0), None),
]


def _apply(rewriter, inputs, out):
    fg = FunctionGraph(inputs, [out], clone=True)
    in2out(rewriter).rewrite(fg)
    return fg


def _run(inputs, out, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = function(inputs, out, mode=Mode(linker="vm", optimizer=None),
                      on_unused_input="ignore")
    with np.errstate(all="ignore"):
        return fn(*args)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rewrite_alone_keeps_values_and_gradients(case):
    name, build, _gone = case
    x, y = pt.dvector("x"), pt.dvector("y")
    out = build(x, y)
    fg = _apply(getattr(m, name), [x, y], out)
    new = fg.outputs[0]
    assert pprint(new) != pprint(out), f"{name} did not fire"
    xs = np.concatenate([EDGE, np.linspace(-3, 3, 7)])
    ys = np.concatenate([EDGE[::-1], np.linspace(2, -2, 7)])
    got = _run(fg.inputs, new, xs, ys)
    want = _run([x, y], out, xs, ys)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15, equal_nan=True)
    gx, gy = fg.inputs
    g_new = grad(new.sum(), [gx, gy], disconnected_inputs="ignore")
    g_old = grad(out.sum(), [x, y], disconnected_inputs="ignore")
    xs, ys = np.linspace(0.5, 2, 5), np.linspace(-1.5, -0.25, 5)
    for g, r in zip(_run(fg.inputs, g_new, xs, ys), _run([x, y], g_old, xs, ys)):
        np.testing.assert_allclose(g, r, rtol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_registered_under_its_name(case):
    name, build, gone = case
    assert any(name in optdb[phase] for phase in ("canonicalize", "stabilize", "specialize"))
    x, y = pt.dvector("x"), pt.dvector("y")
    if gone is not None:
        fast, _ = compile_pair([x, y], build(x, y), MODE)
        assert op_counts(fast)[gone] == 0


def test_erf_rules_gain_precision_in_the_tail():
    x = pt.dvector("x")
    fast, ref = compile_pair([x], 1 - pt.erf(x), MODE)
    xs = np.array([6.0, 10.0])
    got = fast(xs)
    assert np.all(got > 0)  # erfc(6) = 2.15e-17: 1 - erf(6) rounds it to 0
    assert np.all(ref(xs) == 0)


def test_excluding_the_name_keeps_the_graph():
    x, y = pt.dvector("x"), pt.dvector("y")
    fast, _ = compile_pair([x, y], x + (-y), MODE.excluding("local_add_neg_to_sub",
                                                            "canonicalize_add"))
    assert op_counts(fast)["Sub"] == 0


BOUND = [  # (PyTensor name, build, op gone (or "+op": the op that appears), tag's phase)
    ("local_log1p_plusminus_exp", lambda x: pt.log1p(pt.exp(x)) + pt.log1p(-pt.exp(-x * x)),
     "Log1p", "stabilize"),
    ("local_reciprocal_1_plus_exp", lambda x: pt.reciprocal(1 + pt.exp(x)), "Reciprocal",
     "stabilize"),
    ("local_opt_alloc", lambda x: pt.sum(pt.alloc(x.sum(), 3, 4)), "Alloc", "canonicalize"),
]


@pytest.mark.parametrize("case", BOUND, ids=[c[0] for c in BOUND])
def test_bound_names_do_the_job_and_are_tags(case):
    name, build, gone, _phase = case
    x = pt.dvector("x")
    out = build(x)
    fg = _apply(getattr(m, name), [x], out)
    assert pprint(fg.outputs[0]) != pprint(out), f"{name} did not fire"
    xs = np.array([-30.0, -2.0, -0.5, 0.0, 0.5, 2.0, 5.0])
    got, want = _run(fg.inputs, fg.outputs[0], xs), _run([x], out, xs)
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12)
    fast, _ = compile_pair([x], out, MODE)
    kept, _ = compile_pair([x], out, MODE.excluding(name))
    appears = gone.startswith("+")
    label = gone.lstrip("+")
    assert (op_counts(fast)[label] > 0) == appears
    assert (op_counts(kept)[label] > 0) != appears


def test_local_log_erfc_is_the_special_plugins_rewrite():
    x = pt.dvector("x")
    assert m.local_log_erfc is optdb["stabilize"]["special_log_erfc"]
    out = pt.log(pt.erfc(x))
    fg = _apply(m.local_log_erfc, [x], out)
    xs = np.array([-3.0, 0.0, 1.0, 5.0, 30.0])
    got, want = _run(fg.inputs, fg.outputs[0], xs), _run([x], out, xs)
    np.testing.assert_allclose(got[:4], want[:4], rtol=1e-12)
    assert np.isfinite(got[4]) and want[4] == -np.inf  # erfc(30) underflows to 0


def test_mul_specialize_leaves_a_zero_factor():
    x = pt.dvector("x")
    fg = _apply(m.local_mul_specialize, [x], pt.mul(x, 0.0))
    assert pprint(fg.outputs[0]) == pprint(pt.mul(fg.inputs[0], 0.0))
    fg = _apply(m.local_mul_specialize, [x], pt.mul(x, -1.0, 1.0))
    assert _run(fg.inputs, fg.outputs[0], np.array([np.inf, 2.0])).tolist() == [-np.inf, -2.0]
