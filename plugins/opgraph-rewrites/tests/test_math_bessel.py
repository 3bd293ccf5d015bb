"""local_log_kv and local_log_iv: the logarithm of a modified Bessel function without
overflow; where the original is finite the values agree, and the gradients too."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from opgraph.tensor.rewriting import math as m

import opgraph.tensor as pt
from opgraph.compile.database import optdb
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.gradient import grad
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out

pytest.importorskip("opgraph_special")
scipy_special = pytest.importorskip("scipy.special")


def _rewritten(rewriter, x, out, scaled):
    fg = FunctionGraph([x], [out], clone=True)
    in2out(rewriter).rewrite(fg)
    names = [getattr(getattr(n.op, "scalar_op", None), "name", "") for n in fg.apply_nodes]
    assert scaled in names, f"{rewriter.name} did not fire"
    return fg.inputs[0], fg.outputs[0]


def _run(x, out, xs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = function([x], out, mode=Mode(linker="vm", optimizer=None))
    with np.errstate(all="ignore"):
        return np.array([fn(v) for v in xs])


@pytest.mark.parametrize("name, fn, scaled", [("local_log_kv", pt.kv, "kve"),
                                              ("local_log_iv", pt.iv, "ive")])
def test_values_and_gradients(name, fn, scaled):
    x = pt.dscalar("x")
    out = pt.log(fn(4.5, x))
    nx, new = _rewritten(getattr(m, name), x, out, scaled)
    ordinary = np.array([0.1, 1.0, 7.5, 50.0])
    np.testing.assert_allclose(_run(nx, new, ordinary), _run(x, out, ordinary), rtol=1e-12)
    edges = np.array([0.0, -1.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(_run(nx, new, edges), _run(x, out, edges))
    g_new, g_old = grad(new, nx), grad(out, x)
    np.testing.assert_allclose(_run(nx, g_new, ordinary), _run(x, g_old, ordinary), rtol=1e-9)


def test_large_arguments_stay_finite():
    x = pt.dscalar("x")
    xk, kv_new = _rewritten(m.local_log_kv, x, pt.log(pt.kv(4.5, x)), "kve")
    xi, iv_new = _rewritten(m.local_log_iv, x, pt.log(pt.iv(4.5, x)), "ive")
    big = np.array([1000.0])
    np.testing.assert_allclose(_run(xk, kv_new, big),
                               np.log(scipy_special.kve(4.5, big)) - big, rtol=1e-14)
    np.testing.assert_allclose(_run(xi, iv_new, big),
                               np.log(scipy_special.ive(4.5, big)) + big, rtol=1e-14)


def test_registered_in_stabilize():
    assert optdb["stabilize"]["local_log_kv"] is m.local_log_kv
    assert optdb["stabilize"]["local_log_iv"] is m.local_log_iv
