"""local_join_to_repeat and extract_diag_of_transpose: each fires on its own, is
registered under PyTensor's name, and keeps values (edges included) and gradients."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers_rw import compile_pair, op_counts
from opgraph.tensor.rewriting import basic as b

import opgraph.tensor as pt
from opgraph.compile.database import optdb
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.gradient import grad
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out
from opgraph.printing import pprint

RNG = np.random.default_rng(3)


def _rewritten(rewriter, inputs, out):
    fg = FunctionGraph(inputs, [out], clone=True)
    in2out(rewriter).rewrite(fg)
    assert pprint(fg.outputs[0]) != pprint(out), f"{rewriter.name} did not fire"
    return fg


def _run(inputs, outs, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = function(inputs, outs, mode=Mode(linker="vm", optimizer=None))
    return fn(*args)


def _same(rewriter, x, out, value):
    fg = _rewritten(rewriter, [x], out)
    np.testing.assert_array_equal(_run(fg.inputs, fg.outputs[0], value), _run([x], out, value))
    g_new = grad((fg.outputs[0] * fg.outputs[0]).sum(), fg.inputs[0])
    g_old = grad((out * out).sum(), x)
    np.testing.assert_allclose(_run(fg.inputs, g_new, value), _run([x], g_old, value),
                               rtol=1e-15)
    return fg


EDGE_MATRIX = np.array([[np.inf, -0.0, 1.0], [np.nan, -np.inf, 2.5]])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_join_to_repeat(axis):
    x = pt.dmatrix("x")
    out = pt.join(axis, x, x, x)
    fg = _same(b.local_join_to_repeat, x, out, EDGE_MATRIX)
    assert not any(type(n.op).__name__ == "Join" for n in fg.apply_nodes)
    fast, _ = compile_pair([x], out)
    assert op_counts(fast)["Join"] == 0


def test_join_of_different_tensors_stays():
    x, y = pt.dvector("x"), pt.dvector("y")
    fast, _ = compile_pair([x, y], pt.join(0, x, y, x))
    assert op_counts(fast)["Join"] == 1


@pytest.mark.parametrize("offset, axes, shape", [(0, (0, 1), (4, 6)), (2, (0, 1), (4, 6)),
                                                 (-1, (0, 1), (5, 3)), (1, (-2, -1), (3, 4, 5)),
                                                 (0, (0, 2), (3, 4, 5))])
def test_extract_diag_of_transpose(offset, axes, shape):
    pytest.importorskip("opgraph_linalg")
    x = pt.tensor("x", shape=shape, dtype="float64")
    out = pt.diagonal(pt.swapaxes(x, *axes), offset=offset, axis1=axes[0], axis2=axes[1])
    value = RNG.normal(size=shape)
    value.flat[::7] = np.inf
    fg = _same(b.extract_diag_of_transpose, x, out, value)
    assert not any(type(n.op).__name__ == "DimShuffle" for n in fg.apply_nodes)


def test_extract_diag_of_other_permutation_stays():
    pytest.importorskip("opgraph_linalg")
    x = pt.tensor("x", shape=(3, 4, 5), dtype="float64")
    out = pt.diagonal(x.transpose(2, 0, 1), axis1=0, axis2=1)
    fg = FunctionGraph([x], [out], clone=True)
    in2out(b.extract_diag_of_transpose).rewrite(fg)
    assert pprint(fg.outputs[0]) == pprint(out)


@pytest.mark.parametrize("name, phases", [
    ("local_join_to_repeat", ("canonicalize",)),
    ("extract_diag_of_transpose", ("canonicalize", "stabilize", "specialize"))])
def test_registered_under_pytensor_names(name, phases):
    for phase in phases:
        assert optdb[phase][name] is getattr(b, name)


def test_join_read_by_a_reduction_is_left_to_local_reduce_join():
    x = pt.lvector("x")
    out = pt.sum(pt.stack([x, x]), axis=0)
    fast, ref = compile_pair([x], out)
    assert op_counts(fast)["Join"] == 0 and op_counts(fast)["Alloc"] == 0
    assert op_counts(fast)["Sum"] == 0  # x + x, elementwise
    v = np.array([1, -2, 3], dtype="int64")
    np.testing.assert_array_equal(fast(v), ref(v))
