"""The per-call speed rewrites (issue 27 part 6): fusion of neighbouring Elemwise nodes,
reshapes/shapes of static lengths, sums of fills, Elemwise on expanded scalars, outer
products as ``mul``, small row sums kept as Sum.  Each keeps values (against the graph
without rewrites, on random and extreme inputs) and the errors of the unrewritten graph."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import EDGE, compile_pair, op_counts

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.gradient import grad
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.shape import Reshape, Shape

FAST_RUN = "FAST_RUN"


def nodes(fn):
    return list(fn.maker.fgraph.toposort())


def elemwise_nodes(fn, ndim=None):
    return [n for n in nodes(fn) if isinstance(n.op, Elemwise)
            and (ndim is None or n.outputs[0].type.ndim == ndim)]


def same(fast, ref, *values, rtol=1e-12):
    with np.errstate(all="ignore"):
        got, want = fast(*values), ref(*values)
    if not isinstance(got, list):
        got, want = [got], [want]
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=0, equal_nan=True)


def samples(rng, n):
    """Random vectors and the extreme values, in vectors of length n."""
    out = [rng.normal(size=n), rng.normal(size=n) * 1e150, rng.normal(size=n) * 1e-150]
    edge = np.resize(EDGE, n)
    out += [edge, edge[::-1].copy()]
    return out


# -- fusion of neighbours --------------------------------------------------------------------


def test_gradient_reads_of_one_intermediate_fuse_into_one_node():
    # PyMC's normal logp and its gradient: (y - mu) / sigma read by four sums
    y = pt.vector("y", shape=(8,))
    mu, sigma = pt.scalar("mu"), pt.scalar("sigma")
    z = (y - mu) / sigma
    logp = (-0.5 * z**2 - pt.log(sigma)).sum()
    outs = [logp, *grad(logp, [mu, sigma, y])]
    fast, ref = compile_pair([y, mu, sigma], outs)
    assert len(elemwise_nodes(fast, ndim=1)) == 1  # one multi-output Composite over (8,)
    rng = np.random.default_rng(0)
    for v in samples(rng, 8):
        for m, s in [(0.3, 1.7), (-2.0, 1e-3), (1e10, 1e200), (0.0, -1.0), (np.nan, 1.0)]:
            same(fast, ref, v, np.float64(m), np.float64(s))


def test_siblings_sharing_an_input_fuse():
    x = pt.vector("x")
    e = pt.exp(x)
    outs = [e * 2.0, e + 1.0, pt.sqrt(x)]
    fast, ref = compile_pair([x], outs)
    assert len(elemwise_nodes(fast)) == 1
    rng = np.random.default_rng(1)
    for v in samples(rng, 7):
        same(fast, ref, v)


def test_no_merge_across_another_path():
    # u feeds v directly and through a sum: merging u and v would make a cycle
    x = pt.vector("x")
    u = pt.exp(x)
    v = u * u.sum() + 1.0
    fast, ref = compile_pair([x], [v, u])
    assert len(elemwise_nodes(fast, ndim=1)) == 2
    rng = np.random.default_rng(2)
    for val in samples(rng, 5):
        same(fast, ref, val)


def test_nodes_of_lengths_not_tied_stay_apart():
    # exp(x) and exp(y): one fused loop would broadcast x against y
    x, y = pt.vector("x"), pt.vector("y")
    fast, ref = compile_pair([x, y], [pt.exp(x), pt.exp(y) * 2.0])
    assert len(elemwise_nodes(fast)) == 2
    same(fast, ref, np.arange(3.0), np.arange(5.0))


def test_a_length_mismatch_still_raises():
    x, y = pt.vector("x"), pt.vector("y")
    s = x + y
    fast, ref = compile_pair([x, y], [s * 2.0, pt.exp(s), s.sum()])
    for fn in (fast, ref):
        with pytest.raises(ValueError):
            fn(np.ones(3), np.ones(4))
    same(fast, ref, np.arange(4.0), np.ones(4))


def test_fusion_excluded_leaves_the_nodes():
    x = pt.vector("x")
    e = pt.exp(x)
    fast, _ref = compile_pair([x], [e * 2.0, e + 1.0], get_mode(FAST_RUN).excluding("fusion"))
    assert len(elemwise_nodes(fast)) == 3


# -- reshapes and shapes of static lengths ----------------------------------------------------


def test_reshape_of_a_length1_slice_to_a_scalar_is_an_index():
    v = pt.vector("v", shape=(5,))
    s = v[2:3].reshape(())
    out = pt.exp(s) + s.dimshuffle("x") * v
    fast, ref = compile_pair([v], [out, s])
    assert not [n for n in nodes(fast) if isinstance(n.op, Reshape)]
    for val in samples(np.random.default_rng(3), 5):
        same(fast, ref, val)


def test_reshape_adding_and_dropping_ones_with_a_minus_one():
    x = pt.matrix("x", shape=(3, 1))
    out = x.T.reshape((-1, 3)) * 2.0  # (1, 3) again: a transpose only
    fast, ref = compile_pair([x], out)
    assert not [n for n in nodes(fast) if isinstance(n.op, Reshape)]
    same(fast, ref, np.array([[1.0], [np.inf], [-2.5]]))


def test_reshape_that_can_fail_is_kept_and_raises():
    v = pt.vector("v")  # length known only at run time
    s = v.reshape(())
    fast, ref = compile_pair([v], s * 2.0)
    assert [n for n in nodes(fast) if isinstance(n.op, Reshape)]
    for fn in (fast, ref):
        with pytest.raises(ValueError):
            fn(np.ones(2))
    same(fast, ref, np.array([3.0]))


def test_shape_of_a_static_value_used_elsewhere_is_a_constant():
    x = pt.matrix("x", shape=(2, 3))
    y = pt.exp(x)
    out = y.reshape((-1, y.shape[-1])) + y
    fast, ref = compile_pair([x], out)
    assert not [n for n in nodes(fast) if isinstance(n.op, Shape | Reshape)]
    same(fast, ref, np.arange(6.0).reshape(2, 3) - 3.0)


def test_dimshuffle_swapping_a_length1_axis_is_dropped():
    v = pt.vector("v", shape=(1,))
    out = v.dimshuffle(()).dimshuffle("x") + 1.0
    fast, ref = compile_pair([v], out)
    assert not [n for n in nodes(fast) if isinstance(n.op, DimShuffle)]
    same(fast, ref, np.array([np.nan]))
    same(fast, ref, np.array([-4.0]))


# -- sums of fills -----------------------------------------------------------------------------


def test_sum_of_fill_of_a_value_computed_anyway_is_its_product():
    x = pt.vector("x", shape=(10,))
    y = pt.exp(x)
    out = [pt.second(y, np.array([-1.0])).sum(), y.sum()]
    fast, ref = compile_pair([x], out)
    assert op_counts(fast)["Second"] == 0
    for val in samples(np.random.default_rng(4), 10):
        same(fast, ref, val)


def test_sum_of_fill_gradient_of_a_scalar_parameter():
    # d/dsigma of sum(-log(sigma)) over 10 terms: the fill of the logp, summed
    x = pt.vector("x", shape=(10,))
    sigma = pt.scalar("sigma")
    logp = (-0.5 * (x / sigma) ** 2 - pt.log(sigma)).sum()
    fast, ref = compile_pair([x, sigma], [logp, grad(logp, sigma)])
    assert op_counts(fast)["Second"] == 0
    for val in samples(np.random.default_rng(5), 10):
        for s in (2.0, 1e-200, np.inf):
            same(fast, ref, val, np.float64(s))


def test_sum_of_fill_of_an_unknown_length_is_kept():
    x = pt.vector("x")
    out = pt.second(pt.exp(x), np.array([2.0])).sum()
    fast, ref = compile_pair([x], out)
    same(fast, ref, np.ones(6))
    same(fast, ref, np.ones(0))


# -- Elemwise on expanded scalars ----------------------------------------------------------------


def test_checks_on_an_expanded_scalar_run_on_the_scalar():
    s = pt.scalar("s")
    v = pt.vector("v", shape=(4,))
    e = pt.exp(s).dimshuffle("x")
    out = pt.switch(e > np.array([0.0]), v / e, -np.inf) + pt.sqr(e)
    fast, ref = compile_pair([s, v], out)
    assert not [n for n in elemwise_nodes(fast, ndim=1) if n.outputs[0].type.shape == (1,)]
    for val in samples(np.random.default_rng(6), 4):
        for sv in (0.5, -800.0, 800.0, np.nan, -np.inf):
            same(fast, ref, np.float64(sv), val)


def test_expanded_length1_slices_are_squeezed():
    v = pt.vector("v", shape=(3,))
    out = pt.exp(-v[0:1].dimshuffle("x", 0)) * pt.ones((4, 4))
    fast, ref = compile_pair([v], out)
    same(fast, ref, np.array([0.5, 1.0, 2.0]))
    same(fast, ref, np.array([-800.0, np.nan, 0.0]))


# -- outer products ---------------------------------------------------------------------------


def test_outer_product_of_one_column_is_a_mul():
    x = pt.matrix("x", shape=(5, 1))
    d = -2.0 * pt.dot(x, x.T) + pt.sqr(x) + pt.sqr(x).T
    fast, ref = compile_pair([x], [d, grad(pt.exp(-d).sum(), x)])
    names = {type(n.op).__name__ for n in nodes(fast)}
    assert not names & {"Dot", "Dot22", "Dot22Scalar", "Gemm", "Ger", "MatMul"}
    rng = np.random.default_rng(7)
    same(fast, ref, rng.normal(size=(5, 1)), rtol=1e-10)
    same(fast, ref, np.array([[0.0], [1e200], [-1e-200], [np.inf], [np.nan]]), rtol=1e-10)


def test_batched_outer_product_is_a_mul_with_equal_values():
    a = pt.tensor3("a", shape=(2, 3, 1))
    b = pt.tensor3("b", shape=(2, 1, 4))
    fast, ref = compile_pair([a, b], pt.matmul(a, b))
    assert not [n for n in nodes(fast) if "Dot" in type(n.op).__name__
                or "MatMul" in type(n.op).__name__]
    rng = np.random.default_rng(8)
    av, bv = rng.normal(size=(2, 3, 1)), rng.normal(size=(2, 1, 4))
    np.testing.assert_array_equal(fast(av, bv), av * bv)
    np.testing.assert_array_equal(fast(av, bv), ref(av, bv))


def test_large_or_unknown_outer_product_stays_a_product():
    x, y = pt.matrix("x", shape=(None, 1)), pt.matrix("y", shape=(1, None))
    big_x, big_y = pt.matrix("bx", shape=(100, 1)), pt.matrix("by", shape=(1, 100))
    for a, b in ((x, y), (big_x, big_y)):
        fast, ref = compile_pair([a, b], pt.dot(a, b))
        assert op_counts(fast)["Mul"] == 0
        same(fast, ref, np.ones((100, 1)) * 3.0, np.arange(100.0).reshape(1, 100))


def test_product_with_an_unknown_inner_length_is_kept():
    x = pt.matrix("x", shape=(3, 1))
    y = pt.matrix("y", shape=(None, 4))
    fast, ref = compile_pair([x, y], pt.dot(x, y))
    for fn in (fast, ref):
        with pytest.raises(ValueError):
            fn(np.ones((3, 1)), np.ones((3, 4)))  # a mul would broadcast this
    same(fast, ref, np.ones((3, 1)) * 2.0, np.arange(4.0).reshape(1, 4))


# -- small row sums --------------------------------------------------------------------------


def test_small_static_row_sums_stay_sums():
    m = pt.matrix("m", shape=(3, 30))
    fast, ref = compile_pair([m], [m.sum(axis=1), m.sum(axis=0)])
    counts = op_counts(fast)
    assert counts["Gemv"] == 0 and counts["Add"] == 2  # the two Sums (by scalar op)
    same(fast, ref, np.random.default_rng(9).normal(size=(3, 30)))
