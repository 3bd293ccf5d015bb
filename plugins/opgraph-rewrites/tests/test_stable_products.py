"""The exp/sigmoid product rewrite: sigmoids recognised, gradient products kept finite.

Every case compares the rewritten graph with the unrewritten one at ordinary
inputs, and with an exact form at inputs where the plain graph over/underflows.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair, op_counts
from hypothesis import given, settings
from hypothesis import strategies as st
from opgraph_rewrites.stable_products import linear_key

import opgraph.tensor as pt
from opgraph.autodiff.reverse import grad
from opgraph.compile.mode import get_mode
from opgraph.tensor.special import softmax

NOFUSE = get_mode("FAST_RUN").excluding("fusion", "inplace")
FAST_COMPILE = get_mode("FAST_COMPILE")
ORDINARY = np.linspace(-6.0, 6.0, 25)
EXTREME = np.array([-1e3, -745.0, -40.0, 40.0, 745.0, 1e3])


def _sig(v):
    v = np.asarray(v, dtype=float)
    e = np.exp(-np.abs(v))
    return np.where(v >= 0, 1 / (1 + e), e / (1 + e))


def _ops(fn):
    return {k: v for k, v in op_counts(fn).items() if k not in ("DimShuffle", "Second", "Alloc")}


# (name, build, exact)
SIGMOIDS = [
    ("1/(1+exp(-x))", lambda x: 1 / (1 + pt.exp(-x)), _sig),
    ("1/(exp(-x)+1)", lambda x: 1 / (pt.exp(-x) + 1), _sig),
    ("reciprocal(1+exp(-x))", lambda x: pt.reciprocal(1 + pt.exp(-x)), _sig),
    ("(1+exp(-x))**-1", lambda x: (1 + pt.exp(-x)) ** -1, _sig),
    ("exp(x)/(1+exp(x))", lambda x: pt.exp(x) / (1 + pt.exp(x)), _sig),
    ("1/(1+exp(x))", lambda x: 1 / (1 + pt.exp(x)), lambda v: _sig(-v)),
    ("exp(x)*sigmoid(-x)", lambda x: pt.exp(x) * pt.sigmoid(-x), _sig),
    ("exp(-x)*sigmoid(x)", lambda x: pt.exp(-x) * pt.sigmoid(x), lambda v: _sig(-v)),
    ("1-sigmoid(x)", lambda x: 1 - pt.sigmoid(x), lambda v: _sig(-v)),
    ("2/(1+exp(-x))", lambda x: 2 / (1 + pt.exp(-x)), lambda v: 2 * _sig(v)),
]


@pytest.mark.parametrize("mode", [NOFUSE, FAST_COMPILE], ids=["FAST_RUN", "FAST_COMPILE"])
@pytest.mark.parametrize("name, build, exact", SIGMOIDS, ids=[s[0] for s in SIGMOIDS])
def test_written_out_sigmoid_becomes_one_sigmoid(name, build, exact, mode):
    x = pt.dvector("x")
    fast, ref = compile_pair([x], build(x), mode)
    ops = _ops(fast)
    assert ops.get("Sigmoid") == 1 and "Exp" not in ops, ops
    np.testing.assert_allclose(fast(ORDINARY), ref(ORDINARY), rtol=1e-12)
    np.testing.assert_allclose(fast(EXTREME), exact(EXTREME), rtol=1e-12, atol=0)


def test_sigmoid_of_a_sum_with_a_broadcast_scalar():
    # the tutorial's form: 1 / (1 + exp(-dot(x, w) - b)) with a scalar b
    x = pt.dmatrix("x")
    w = pt.dvector("w")
    b = pt.dscalar("b")
    fast, ref = compile_pair([x, w, b], 1 / (1 + pt.exp(-pt.dot(x, w) - b)), NOFUSE)
    assert _ops(fast).get("Sigmoid") == 1
    rng = np.random.default_rng(0)
    xv, wv = rng.standard_normal((5, 3)), rng.standard_normal(3)
    np.testing.assert_allclose(fast(xv, wv, 0.3), ref(xv, wv, 0.3), rtol=1e-12)
    np.testing.assert_allclose(fast(xv * 1e3, wv, 0.3), _sig(xv @ wv * 1e3 + 0.3), rtol=1e-12)


def test_sigmoid_factors_cancel():
    x = pt.dvector("x")
    out = pt.sigmoid(x) * pt.sigmoid(-x) / pt.sigmoid(-x)
    fast, ref = compile_pair([x], out, NOFUSE)
    assert _ops(fast).get("Sigmoid") == 1
    np.testing.assert_allclose(fast(ORDINARY), ref(ORDINARY), rtol=1e-12)
    np.testing.assert_allclose(fast(EXTREME), _sig(EXTREME), rtol=1e-12)


def test_bounded_form_of_a_gradient_product():
    # exp(-x) / (1 + exp(-x))**2 = sigmoid(x) * sigmoid(-x): inf/inf for x << 0 when plain
    x = pt.dvector("x")
    out = pt.exp(-x) / (1 + pt.exp(-x)) ** 2
    fast, ref = compile_pair([x], out, NOFUSE)
    assert "Exp" not in _ops(fast)
    np.testing.assert_allclose(fast(ORDINARY), ref(ORDINARY), rtol=1e-12)
    np.testing.assert_allclose(fast(EXTREME), _sig(EXTREME) * _sig(-EXTREME), rtol=1e-12,
                               atol=0)


def test_exp_over_sum_of_exp_becomes_softmax_along_the_summed_axis():
    x = pt.dmatrix("x")
    out = pt.exp(x) / pt.sum(pt.exp(x), axis=1, keepdims=True)
    fast, ref = compile_pair([x], out, NOFUSE)
    assert _ops(fast).get("Softmax") == 1
    v = np.random.default_rng(2).standard_normal((3, 4))
    np.testing.assert_allclose(fast(v), ref(v), rtol=1e-12)
    big = v * 1e3
    e = np.exp(big - big.max(axis=1, keepdims=True))
    np.testing.assert_allclose(fast(big), e / e.sum(axis=1, keepdims=True), rtol=1e-12)
    # summing over another axis than the one broadcast back is not a softmax
    x2 = pt.dmatrix("x2")
    other = pt.exp(x2) / pt.sum(pt.exp(x2), axis=0, keepdims=True)
    fast2, ref2 = compile_pair([x2], other, NOFUSE)
    np.testing.assert_allclose(fast2(v), ref2(v), rtol=1e-12)
    assert _ops(fast2).get("Softmax") == 1  # axis 0 is recognised as such
    assert softmax(x2, axis=0).owner.op.axis == 0


def test_log1mexp_gradient_product():
    x = pt.dvector("x")
    out = pt.exp(x) / (1 - pt.exp(x))
    fast, ref = compile_pair([x], out, NOFUSE)
    assert "Expm1" in _ops(fast)
    neg = -np.logspace(-12, 2, 15)
    np.testing.assert_allclose(fast(neg[5:]), ref(neg[5:]), rtol=1e-9)
    np.testing.assert_allclose(fast(neg), 1 / np.expm1(-neg), rtol=1e-12)


def test_x_minus_x_times_sigmoid():
    x = pt.dvector("x")
    y = pt.dvector("y")
    out = y * pt.sigmoid(x) - y * pt.sigmoid(x) * pt.sigmoid(x)
    fast, ref = compile_pair([x, y], out, NOFUSE)
    yv = np.full_like(ORDINARY, 3.0)
    np.testing.assert_allclose(fast(ORDINARY, yv), ref(ORDINARY, yv), rtol=1e-12)
    exact = 3.0 * _sig(EXTREME) * _sig(-EXTREME)
    np.testing.assert_allclose(fast(EXTREME, np.full(6, 3.0)), exact, rtol=1e-12, atol=0)


def test_float32_and_integer_graphs_keep_their_types():
    x = pt.fvector("x")
    out = 1 / (1 + pt.exp(-x))
    fast, ref = compile_pair([x], out, NOFUSE)
    assert fast.maker.fgraph.outputs[0].type == out.type
    v = np.linspace(-5, 5, 7, dtype="float32")
    np.testing.assert_allclose(fast(v), ref(v), rtol=1e-6)
    i = pt.ivector("i")
    iout = i * i
    fast_i, ref_i = compile_pair([i], iout, NOFUSE)
    iv = np.arange(4, dtype="int32")
    np.testing.assert_array_equal(fast_i(iv), ref_i(iv))
    assert fast_i(iv).dtype == np.int32


def test_linear_key_sees_arguments_up_to_sign():
    a = pt.dvector("a")
    b = pt.dvector("b")
    k1, s1 = linear_key(a - b)
    k2, s2 = linear_key(b - a)
    k3, s3 = linear_key(-a + b)
    k4, s4 = linear_key(-(a - b))
    assert k1 == k2 == k3 == k4
    assert s1 == -s2 and s2 == s3 == s4
    assert linear_key(a)[0] != linear_key(b)[0]
    assert linear_key(-a) == (linear_key(a)[0], -linear_key(a)[1])


_FACTORS = [
    lambda a: pt.exp(a),
    lambda a: pt.exp(-a),
    lambda a: pt.sigmoid(a),
    lambda a: pt.sigmoid(-a),
    lambda a: 1 + pt.exp(a),
    lambda a: 1 + pt.exp(-a),
    lambda a: 1 - pt.sigmoid(a),
]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, len(_FACTORS) - 1), st.sampled_from([1, -1])),
             min_size=1, max_size=5),
    st.floats(-8, 8),
    st.sampled_from(["FAST_RUN", "FAST_COMPILE"]),
)
def test_random_products_keep_their_value_and_gradient(picks, value, mode):
    a = pt.dvector("a")
    out = None
    for k, e in picks:
        f = _FACTORS[k](a)
        out = (f if e > 0 else 1 / f) if out is None else (out * f if e > 0 else out / f)
    g = grad(pt.sum(out), a)
    fast, ref = compile_pair([a], [out, g], NOFUSE if mode == "FAST_RUN" else FAST_COMPILE)
    v = np.array([value, -value, 0.5])
    for got, want in zip(fast(v), ref(v)):
        # a cancelled product is exact where the plain one leaves rounding residue
        scale = max(float(np.max(np.abs(want))), 1.0)
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-12 * scale)


def test_product_distributes_over_a_sum_that_divides_by_its_sigmoids():
    # sigmoid(t)*sigmoid(-t)*((1-y)/sigmoid(-t) - y/sigmoid(t)) = (1-y)*sigmoid(t) - y*sigmoid(-t)
    t = pt.dvector("t")
    y = pt.dvector("y")
    s, sn = pt.sigmoid(t), pt.sigmoid(-t)
    out = s * sn * ((1 - y) / sn - y / s)
    fast, ref = compile_pair([t, y], out, NOFUSE)
    yv = np.tile([0.0, 1.0], 3)
    tv = np.repeat([-3.0, 0.5, 4.0], 2)
    np.testing.assert_allclose(fast(tv, yv), ref(tv, yv), rtol=1e-12)
    tv = np.repeat([-1e3, 800.0, 1e3], 2)
    np.testing.assert_allclose(fast(tv, yv), (1 - yv) * _sig(tv) - yv * _sig(-tv), rtol=1e-12)
    # a sum that does not divide by the product's sigmoids is left alone
    plain = s * (y + t)
    fast2, _ = compile_pair([t, y], plain, NOFUSE)
    assert _ops(fast2).get("Add") == 1 and _ops(fast2).get("Mul") == 1
