"""Stabilize (accurate where the plain form over/underflows) and specialize rewrites."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import EDGE, assert_same, compile_pair, op_counts

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.config import config
from opgraph.tensor.products import Dot
from opgraph.tensor.reduction import Sum

NOFUSE = get_mode("FAST_RUN").excluding("fusion", "inplace", "blas")  # Sum stays Sum
RNG = np.random.default_rng(1)


def _counts(fn):
    return {k: v for k, v in op_counts(fn).items() if k != "DimShuffle"}


# -- stabilize: the rewritten graph is accurate where the plain one is not ---------------

# (name, build, input values, exact reference, op that must appear)
ACCURACY = [
    ("log(1+x)", lambda x: pt.log(1 + x), np.array([1e-20, -1e-18, 1e-10, 3.0]),
     lambda v: np.log1p(v), "Log1p"),
    ("exp(x)-1", lambda x: pt.exp(x) - 1, np.array([1e-20, -1e-18, 1e-10, -2.0]),
     lambda v: np.expm1(v), "Expm1"),
    ("log(sigmoid(x))", lambda x: pt.log(pt.sigmoid(x)), np.array([-800.0, -40.0, 0.0, 50.0]),
     lambda v: -np.logaddexp(0, -v), "Softplus"),
]


@pytest.mark.parametrize("name, build, values, exact, op", ACCURACY, ids=[a[0] for a in ACCURACY])
def test_stabilized_form_is_accurate_where_plain_form_is_not(name, build, values, exact, op):
    x = pt.vector("x")
    fast, ref = compile_pair([x], build(x), NOFUSE)
    assert op in _counts(fast)
    with np.errstate(all="ignore"):
        got, plain = fast(values), ref(values)
    np.testing.assert_allclose(got, exact(values), rtol=1e-12)
    assert not np.allclose(plain, exact(values), rtol=1e-6, atol=0)  # plain form fails
    assert_same(fast, ref, RNG.uniform(0.1, 2, size=8), rtol=1e-12)


def _lse(v, axis, keepdims=False):
    m = np.max(v, axis=axis, keepdims=True)
    m = np.where(np.isinf(m), 0, m)
    out = np.log(np.sum(np.exp(v - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


@pytest.mark.parametrize("axis, keepdims", [(1, False), (1, True), (0, False), (None, False),
                                            ((0, 1), True)])
def test_user_written_logsumexp_is_stabilized(axis, keepdims):
    x = pt.matrix("x")
    out = pt.log(pt.sum(pt.exp(x), axis=axis, keepdims=keepdims))
    fast, ref = compile_pair([x], out, NOFUSE)
    counts = _counts(fast)
    assert counts.get("Maximum") == 1 and counts.get("Exp") == 1 and counts.get("Log") == 1
    assert fast.maker.fgraph.outputs[0].type == out.type
    big = np.array([[1000.0, 1000.0, -3.0], [-1000.0, -1001.0, -np.inf], [0.5, -0.2, 2.0]])
    np_axis = axis if axis is not None else (0, 1)
    np.testing.assert_allclose(fast(big), _lse(big, np_axis, keepdims),
                               rtol=1e-12)
    with np.errstate(all="ignore"):
        assert not np.all(np.isfinite(ref(big)))  # exp(1000) overflowed
    small = RNG.normal(size=(3, 3))
    assert_same(fast, ref, small, rtol=1e-12)


def test_logsumexp_edge_values_match_plain_form():
    x = pt.matrix("x")
    fast, ref = compile_pair([x], pt.log(pt.sum(pt.exp(x), axis=1)), NOFUSE)
    edge = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 1.0], [0.0, -0.0],
                     [-1.0, -2.0]])
    assert_same(fast, ref, edge, rtol=1e-12)


def test_stable_logsumexp_is_not_rewritten_again():
    x = pt.matrix("x")
    fast, _ref = compile_pair([x], pt.logsumexp(x, axis=1), NOFUSE)
    assert _counts(fast).get("Maximum") == 1 and _counts(fast).get("Exp") == 1


def test_log_softmax_is_accurate_on_underflow():
    x = pt.matrix("x")
    fast, ref = compile_pair([x], pt.log(pt.softmax(x, axis=-1)), NOFUSE)
    assert _counts(fast) == {"LogSoftmax": 1}
    v = np.array([[0.0, -800.0, 10.0], [1.0, 2.0, 3.0]])
    shifted = v - v.max(axis=1, keepdims=True)
    exact = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(fast(v), exact, rtol=1e-12)
    with np.errstate(all="ignore"):
        assert np.isneginf(ref(v)[0, 1])
    assert_same(fast, ref, RNG.normal(size=(2, 3)), rtol=1e-12)


# -- specialize: pow -----------------------------------------------------------------------

# exponent -> expected ops; negative / fractional exponents need float outputs
POW_CASES = [
    (2, {"Sqr": 1}), (3, {"Sqr": 1, "Mul": 1}), (4, {"Sqr": 2}), (0.5, {"Sqrt": 1}),
    (-1, {"Reciprocal": 1}), (-2, {"Sqr": 1, "Reciprocal": 1}),
    (-0.5, {"Sqrt": 1, "Reciprocal": 1}), (1, {}),
]


@pytest.mark.parametrize("exponent, expected", POW_CASES, ids=[str(c[0]) for c in POW_CASES])
def test_pow_with_small_constant_exponent(exponent, expected):
    x = pt.vector("x")
    out = x**exponent
    fast, ref = compile_pair([x], out, NOFUSE)
    assert _counts(fast) == expected
    assert fast.maker.fgraph.outputs[0].type == out.type
    assert_same(fast, ref, RNG.uniform(0.1, 3, size=8), rtol=1e-14)
    edge = EDGE
    if exponent == -0.5:  # IEEE pow: (-0.0)**-0.5 = inf, (-inf)**-0.5 = 0; 1/sqrt gives -inf, nan
        edge = np.array([v for v in EDGE if not (v == 0 and np.signbit(v)) and v != -np.inf])
    assert_same(fast, ref, edge, rtol=1e-14)


def test_pow_of_ints_keeps_int_dtype_and_skips_negative_exponents():
    x = pt.vector("x", dtype="int32")
    fast, ref = compile_pair([x], x**3, NOFUSE)
    assert _counts(fast) == {"Sqr": 1, "Mul": 1}
    assert_same(fast, ref, np.array([0, -3, 7, 1200], dtype="int32"))


# -- specialize: sums and dots with a factor moved out -------------------------------------


def _input_of_sum(fn):
    (node,) = [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, Sum)]
    return node.inputs[0]


@pytest.mark.parametrize("build, axis_desc", [
    (lambda x, r: pt.sum(x * 2.5), "all"),
    (lambda x, r: pt.sum(3.0 * x, axis=1), "rows"),
    (lambda x, r: pt.sum(x * r, axis=0), "row factor over axis 0"),
    (lambda x, r: pt.sum(x / r, axis=0), "row divisor"),
    (lambda x, r: pt.sum(-x, axis=0), "neg"),
], ids=["c*x", "c*x axis1", "x*row", "x/row", "neg"])
def test_sum_of_mul_multiplies_the_reduced_result(build, axis_desc):
    """A factor leaves the sum under fast_math only (an inf factor times a 0 term is NaN
    in NumPy, inf times the sum is not); a negation always does (exact)."""
    x, r = pt.matrix("x"), pt.row("r")
    out = build(x, r)
    inputs = [v for v in (x, r) if v in _graph_inputs(out)]
    fast, ref = compile_pair(inputs, out, NOFUSE)
    moved = _input_of_sum(fast) is fast.maker.fgraph.inputs[0]
    assert moved == (axis_desc == "neg")
    with config.change_flags(fast_math=True):
        fast, ref = compile_pair(inputs, out, NOFUSE)
    assert _input_of_sum(fast) is fast.maker.fgraph.inputs[0]  # the sum reads x itself
    assert fast.maker.fgraph.outputs[0].type == out.type
    vals = [RNG.normal(size=(3, 4)), RNG.uniform(0.5, 2, size=(1, 4))][: len(inputs)]
    assert_same(fast, ref, *vals, rtol=1e-12)
    edge = np.array([[0.0, -1.0, np.inf, np.nan], [1.0, -np.inf, 2.0, 0.0], [1, 2, 3, 4.0]])
    assert_same(fast, ref, *[edge, np.ones((1, 4))][: len(inputs)], rtol=1e-12)


def test_sum_of_mul_keeps_factors_that_vary_along_the_axis():
    x, r = pt.matrix("x"), pt.row("r")
    fast, _ = compile_pair([x, r], pt.sum(x * r, axis=1), NOFUSE)
    assert _input_of_sum(fast).owner is not None  # x * r still computed first


def _dot_neg(m, v):
    return pt.dot(-m, v)


@pytest.mark.parametrize("build", [
    lambda m, v: pt.dot(m * 2.0, v), _dot_neg,
    lambda m, v: pt.dot(m, v / 3.0), lambda m, v: pt.dot(v * 2.0, v),
], ids=["c*M", "-M", "v/c", "vv"])
def test_dot_scalar_factor_moves_to_the_product(build):
    """Under fast_math only, except a negation (see test_sum_of_mul_...)."""
    m, v = pt.matrix("m"), pt.vector("v")
    out = build(m, v)
    inputs = [t for t in (m, v) if t in _graph_inputs(out)]
    fast, ref = compile_pair(inputs, out, NOFUSE)
    (dot,) = [n for n in fast.maker.fgraph.apply_nodes if isinstance(n.op, Dot)]
    moved = all(i in fast.maker.fgraph.inputs for i in dot.inputs)
    assert moved == (build is _dot_neg)
    with config.change_flags(fast_math=True):
        fast, ref = compile_pair(inputs, out, NOFUSE)
    (dot,) = [n for n in fast.maker.fgraph.apply_nodes if isinstance(n.op, Dot)]
    assert all(i in fast.maker.fgraph.inputs for i in dot.inputs)
    vals = [RNG.normal(size=(3, 4)), RNG.normal(size=4)][-len(inputs):]
    assert_same(fast, ref, *vals, rtol=1e-12)


def test_vector_dots_stay_dot():
    """np.dot beats sum(x * y) at every size measured (see specialize.py): keep Dot."""
    u, v = pt.vector("u"), pt.vector("v")
    fast, ref = compile_pair([u, v], pt.dot(u, v), NOFUSE)
    assert _counts(fast) == {"Dot": 1}
    assert_same(fast, ref, RNG.normal(size=5), RNG.normal(size=5))


def _graph_inputs(out):
    from opgraph.graph.basic import graph_inputs

    return set(graph_inputs([out]))


@pytest.mark.parametrize("shapes", [((3, 4), (4,)), ((4,), (4, 3)), ((4,), (4,))],
                         ids=["Mv", "vM", "vv"])
def test_vector_products_compile_to_one_dot_of_vectors(shapes):
    """pt.dot builds PyTensor 3's row/column-matrix graph; canonicalize gives back the
    Dot of vectors (no reshaping nodes left), with the same values, also under a factor."""
    a, b = (pt.tensor("float64", shape=(None,) * len(s)) for s in shapes)
    out = pt.dot(a, b)
    assert out.owner.op.__class__.__name__ == "DimShuffle"  # the squeeze, as in PyTensor
    fast, ref = compile_pair([a, b], out, NOFUSE.excluding("blas"))
    (node,) = fast.maker.fgraph.apply_nodes
    assert isinstance(node.op, Dot) and node.inputs == fast.maker.fgraph.inputs
    vals = [RNG.normal(size=s) for s in shapes]
    assert_same(fast, ref, *vals, rtol=1e-12)
    fast, ref = compile_pair([a, b], pt.dot(a, b / 3.0), NOFUSE.excluding("blas"))
    assert not any(n.op.__class__.__name__ == "DimShuffle"
                   for n in fast.maker.fgraph.apply_nodes)
    assert_same(fast, ref, *vals, rtol=1e-12)


def test_outer_product_with_a_unit_side_is_a_product():
    """(1, 1) by (1, m) (the gradient of a vector product) is a broadcast product."""
    a, b = pt.tensor("float64", shape=(1, 1)), pt.tensor("float64", shape=(1, None))
    fast, ref = compile_pair([a, b], pt.dot(a, b), NOFUSE.excluding("blas"))
    assert _counts(fast) == {"Mul": 1}
    assert_same(fast, ref, np.array([[2.5]]), RNG.normal(size=(1, 5)), rtol=1e-15)
