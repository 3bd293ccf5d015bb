"""local_pow_to_nested_squaring: x ** n by repeated squaring in one Composite, values
within a few ulps of pow (edges exact), gradients equal."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers_rw import compile_pair
from opgraph.tensor.rewriting import math as m

import opgraph.tensor as pt
from opgraph.compile.database import optdb
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.gradient import grad
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out
from opgraph.scalar.composite import Composite

XS = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -1.7, 3.0, 1e20, -1e-20, np.inf, -np.inf, np.nan])


def _run(inputs, out, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = function(inputs, out, mode=Mode(linker="vm", optimizer=None))
    with np.errstate(all="ignore"):
        return fn(*args)


@pytest.mark.parametrize("n, n_inner", [(5, 3), (15, 6), (16, 4), (-15, 6), (-16, 4), (63, 10)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_and_gradient(n, n_inner, dtype):
    x = pt.vector("x", dtype=dtype)
    out = x ** np.asarray(n, dtype=dtype)
    fg = FunctionGraph([x], [out], clone=True)
    in2out(m.local_pow_to_nested_squaring).rewrite(fg)
    comps = [nd for nd in fg.apply_nodes if isinstance(getattr(nd.op, "scalar_op", None),
                                                       Composite)]
    assert len(comps) == 1
    assert len(comps[0].op.scalar_op.fgraph.apply_nodes) == n_inner
    xs = XS.astype(dtype)
    got, want = _run(fg.inputs, fg.outputs[0], xs), _run([x], out, xs)
    assert got.dtype == want.dtype
    # 1e20 ** -16 is subnormal; 1 / (1e20 ** 16) overflows first and gives 0 (as the C
    # backend flushes subnormals anyway): equal up to the smallest normal number
    np.testing.assert_allclose(got, want, rtol=64 * np.finfo(dtype).eps,
                               atol=np.finfo(dtype).tiny, equal_nan=True)
    normal = np.isfinite(want) & (np.abs(want) >= np.finfo(dtype).tiny)
    np.testing.assert_array_equal(np.signbit(got[normal]), np.signbit(want[normal]))
    ok = np.array([0.5, -1.1, 1.3], dtype=dtype)
    g_new, g_old = grad(fg.outputs[0].sum(), fg.inputs[0]), grad(out.sum(), x)
    np.testing.assert_allclose(_run(fg.inputs, g_new, ok), _run([x], g_old, ok),
                               rtol=64 * np.finfo(dtype).eps)


@pytest.mark.parametrize("exponent", [2.0, 4.0, 2.5, 1000.0])
def test_other_exponents_left_alone(exponent):
    x = pt.dvector("x")
    out = x ** exponent
    fg = FunctionGraph([x], [out], clone=True)
    in2out(m.local_pow_to_nested_squaring).rewrite(fg)
    assert fg.outputs[0].owner.op == out.owner.op


def test_in_fast_run_under_its_name():
    assert optdb["specialize"]["local_pow_to_nested_squaring"] is m.local_pow_to_nested_squaring
    x = pt.dvector("x")
    fast, ref = compile_pair([x], x ** 9, get_mode("FAST_RUN").excluding("fusion"))
    (node,) = fast.maker.fgraph.apply_nodes
    assert isinstance(node.op.scalar_op, Composite)
    np.testing.assert_allclose(fast(XS[:9]), ref(XS[:9]), rtol=1e-14)
