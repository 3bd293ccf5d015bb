"""logit/sigmoid, log-diff/add-exp and polygamma rewrites under PyTensor's names: each
fires alone, keeps values (edges included) and gradients, and is registered."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers_rw import compile_pair, op_counts
from opgraph.tensor.rewriting import math as m

import opgraph.tensor as pt
from opgraph.compile.database import optdb
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.gradient import grad
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out
from opgraph.printing import pprint
from opgraph.tensor.special import logit

MODE = get_mode("FAST_RUN").excluding("fusion")
XS = np.array([-np.inf, -40.0, -2.0, -0.5, 0.0, 0.25, 0.5, 1.0, 3.0, 40.0, np.inf, np.nan])
YS = np.array([-np.inf, -1.0, 0.5, -0.5, -np.inf, 0.75, 2.0, 1.0, -3.0, 39.0, 1.0, 0.0])

CASES = [  # (name, build, phase, op gone, or "+op": the op that must appear)
    ("local_logit_sigmoid", lambda x, y: logit(pt.sigmoid(x)), "canonicalize", "Sigmoid"),
    ("local_sigmoid_logit", lambda x, y: pt.sigmoid(logit(x)), "canonicalize", "Sigmoid"),
    ("logdiffexp_to_log1mexpdiff", lambda x, y: pt.log(pt.exp(x) - pt.exp(y)), "stabilize",
     "+Log1mexp"),
    ("local_log_add_exp", lambda x, y: pt.log(pt.exp(x) + pt.exp(y)), "stabilize",
     "+Maximum"),
    ("local_polygamma_to_digamma", lambda x, y: pt.polygamma(0, x), "specialize",
     "Polygamma"),
    ("local_polygamma_to_tri_gamma", lambda x, y: pt.polygamma(1, x), "specialize",
     "Polygamma"),
]


def _run(inputs, out, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = function(inputs, out, mode=Mode(linker="vm", optimizer=None),
                      on_unused_input="ignore")
    with np.errstate(all="ignore"):
        return fn(*args)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_alone_keeps_values_and_gradients(case):
    name, build, _phase, _gone = case
    x, y = pt.dvector("x"), pt.dvector("y")
    out = build(x, y)
    fg = FunctionGraph([x, y], [out], clone=True)
    in2out(getattr(m, name)).rewrite(fg)
    new = fg.outputs[0]
    assert pprint(new) != pprint(out), f"{name} did not fire"
    got, want = _run(fg.inputs, new, XS, YS), _run([x, y], out, XS, YS)
    if name == "local_logit_sigmoid":  # sigmoid(40) rounds to 1: inf before, 40 after
        want = np.where(np.isfinite(XS), np.where(np.isinf(want), XS, want), want)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300, equal_nan=True)
    xs, ys = np.array([0.1, 0.3, 0.6, 0.9, 0.95]), np.array([-1.0, 0.0, -0.2, 0.5, 0.7])
    g_new = grad(new.sum(), list(fg.inputs), disconnected_inputs="ignore")
    g_old = grad(out.sum(), [x, y], disconnected_inputs="ignore")
    for g, r in zip(_run(fg.inputs, g_new, xs, ys), _run([x, y], g_old, xs, ys)):
        np.testing.assert_allclose(g, r, rtol=1e-10)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_registered_and_runs_in_fast_run(case):
    name, build, phase, gone = case
    assert name in optdb[phase]
    x, y = pt.dvector("x"), pt.dvector("y")
    fast, _ = compile_pair([x, y], build(x, y), MODE)
    if gone.startswith("+"):
        assert op_counts(fast)[gone[1:]] > 0
    else:
        assert op_counts(fast)[gone] == 0


def test_stable_forms_are_finite_where_the_original_overflows():
    x, y = pt.dvector("x"), pt.dvector("y")
    fast, ref = compile_pair([x, y], pt.log(pt.exp(x) + pt.exp(y)), MODE)
    xs, ys = np.array([800.0, -800.0]), np.array([800.0, -801.0])
    np.testing.assert_allclose(fast(xs, ys), [800 + np.log(2), -800 + np.log1p(np.exp(-1))])
    with np.errstate(all="ignore"):
        assert not np.all(np.isfinite(ref(xs, ys)))
    fast, _ = compile_pair([x, y], pt.log(pt.exp(x) - pt.exp(y)), MODE)
    np.testing.assert_allclose(fast(np.array([800.0]), np.array([799.0])),
                               800 + np.log1p(-np.exp(-1)))
    fast, _ = compile_pair([x], logit(pt.sigmoid(x)), MODE)
    np.testing.assert_array_equal(fast(np.array([40.0])), [40.0])


def test_sigmoid_logit_keeps_nan_outside_the_unit_interval():
    x = pt.dvector("x")
    fast, _ = compile_pair([x], pt.sigmoid(logit(x)), MODE)
    got = fast(np.array([-0.5, 0.0, 0.5, 1.0, 1.5]))
    np.testing.assert_array_equal(np.isnan(got), [True, False, False, False, True])
    np.testing.assert_allclose(got[1:4], [0.0, 0.5, 1.0])
