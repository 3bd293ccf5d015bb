"""The small PyTensor-named rewrites of basic_more and the PyTensor names of existing
jobs: each fires, and values, dtypes, errors and gradients stay those of the
unrewritten graph."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair, op_counts

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.gradient import grad
from opgraph.graph.rewriting.utils import rewrite_graph
from opgraph.graph.traversal import io_toposort
from opgraph.tensor.reduction import CAReduce


def test_join_empty_and_join_1():
    x = pt.matrix("x", shape=(None, 3))
    out = pt.join(0, x, pt.zeros((0, 3)), 2 * x)
    fast, ref = compile_pair([x], [out, grad(out.sum(), x)])
    assert op_counts(fast)["Join"] == 1
    value = np.arange(6.0).reshape(2, 3)
    for got, want in zip(fast(value), ref(value)):
        np.testing.assert_array_equal(got, want)


def test_useless_split_keeps_its_size_check():
    v, n = pt.vector("v"), pt.lscalar("n")
    (piece,) = pt.split(v, [n], 1, axis=0)
    fast, ref = compile_pair([v, n], piece * 2)
    assert op_counts(fast)["Split"] == 0
    np.testing.assert_array_equal(fast(np.arange(3.0), 3), ref(np.arange(3.0), 3))
    with pytest.raises(ValueError):
        ref(np.arange(3.0), 2)
    with pytest.raises(ValueError):
        fast(np.arange(3.0), 2)


@pytest.mark.parametrize("dtypes, casts", [
    (("int32", "int64", "int8"), 1),  # lossless first cast: one cast
    (("int32", "int64", "int32"), 0),  # back to the input dtype: none
    (("float32", "float64", "float16"), 1),
    (("int64", "int32", "int64"), 2),  # first cast loses values: both stay
    (("int32", "float64", "int8"), 2),  # into an int after a float: both stay
    (("float32", "complex64", "complex128"), 1),  # exact upcast, then by value
    (("int16", "float32", "float64"), 1),
    (("int32", "float64", "float32"), 1),  # one rounding of the same value
    (("int64", "float64", "float32"), 2),  # the first cast rounds: both stay
    (("float64", "complex64", "complex128"), 2),
])
def test_cast_cast(dtypes, casts):
    d0, d1, d2 = dtypes
    x = pt.vector("x", dtype=d0)
    out = pt.cast(pt.cast(x, d1), d2)
    fast, ref = compile_pair([x], out, get_mode("FAST_RUN").excluding("fusion"))
    assert sum(n for k, n in op_counts(fast).items() if k == "Cast") == casts
    info = np.iinfo(d0) if d0.startswith("int") else np.finfo(d0)
    value = np.array([0, 1, -1, 100, 300, 16777217, info.max, info.min], dtype=d0) \
        if d0 != "int16" else np.array([0, 1, -1, 300, info.max, info.min], dtype=d0)
    got, want = fast(value), ref(value)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_alloc_unary_and_reductions():
    v = pt.vector("v")
    m = pt.matrix("m")
    out = pt.exp(pt.alloc(v, 3, v.shape[0])).sum(axis=(0, 1)) + m.sum(axis=[]).sum() \
        + (m * m).prod(axis=(1, 0))
    fast, ref = compile_pair([v, m], [out, grad(out, v), grad(out, m)],
                             get_mode("FAST_RUN").excluding("fusion"))
    counts = op_counts(fast)
    assert counts["Sqr"] >= 1  # m * m
    vals = (np.array([0.1, -0.2]), np.array([[0.5, 2.0], [1.5, -0.5]]))
    for got, want in zip(fast(*vals), ref(*vals)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_reductions_over_all_or_no_axis_become_one_form():
    m = pt.matrix("m")
    out = rewrite_graph(m.sum(axis=(0, 1)) + m.prod(axis=[]).sum(), include=("canonicalize",))
    reductions = [n.op for n in io_toposort([m], [out]) if isinstance(n.op, CAReduce)]
    assert [op.axis for op in reductions] == [None]  # the prod over no axis is gone


@pytest.mark.parametrize("name, build, absent", [
    ("local_log1p", lambda x: pt.log(1 + x), "Log"),
    ("local_expm1", lambda x: pt.exp(x) - 1, "Exp"),
    ("logsigm_to_softplus", lambda x: pt.log(pt.sigmoid(x)), "Sigmoid"),
])
def test_pytensor_names_select_the_standard_entries(name, build, absent):
    x = pt.vector("x")
    mode = get_mode("FAST_RUN").excluding("fusion")
    on, _ = compile_pair([x], build(x), mode)
    off, ref = compile_pair([x], build(x), mode.excluding(name))
    assert op_counts(on)[absent] == 0
    assert op_counts(off)[absent] >= 1
    value = np.array([-0.5, 0.0, 0.25, 4.0])
    np.testing.assert_allclose(on(value), ref(value), rtol=1e-12)
