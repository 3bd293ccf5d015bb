"""f(g(x)) for partial inverses: the round trip removed, NaN kept outside the domain."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair, op_counts

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode

NOFUSE = get_mode("FAST_RUN").excluding("fusion", "inplace")
POINTS = np.array([-3.0, -1.0, -1e-8, -0.0, 0.0, 1e-8, 0.5, 1.0, 1.5, 3.0])

# (name, build, ops that must be gone, exact on POINTS)
PAIRS = [
    ("exp(softplus(x))", lambda x: pt.exp(pt.softplus(x)), {"Softplus"},
     lambda v: 1 + np.exp(v)),
    ("expm1(softplus(x))", lambda x: pt.expm1(pt.softplus(x)), {"Softplus", "Expm1"}, np.exp),
    ("exp(log1mexp(x))", lambda x: pt.exp(pt.log1mexp(x)), {"Log1mexp"},
     lambda v: np.where(v <= 0, -np.expm1(v), np.nan)),
    ("expm1(log1mexp(x))", lambda x: pt.expm1(pt.log1mexp(x)), {"Log1mexp", "Expm1"},
     lambda v: np.where(v <= 0, -np.exp(v), np.nan)),
    ("softplus(log(x))", lambda x: pt.softplus(pt.log(x)), {"Softplus", "Log"},
     lambda v: np.where(v >= 0, np.log1p(np.abs(v)), np.nan)),
    ("log1mexp(log(x))", lambda x: pt.log1mexp(pt.log(x)), {"Log1mexp", "Log"},
     lambda v: np.where(v >= 0, np.log1p(-np.abs(v)), np.nan)),
    ("log1mexp(log1mexp(x))", lambda x: pt.log1mexp(pt.log1mexp(x)), {"Log1mexp"},
     lambda v: np.where(v <= 0, v, np.nan)),
    ("log1p(expm1(x))", lambda x: pt.log1p(pt.expm1(x)), {"Log1p", "Expm1"}, lambda v: v),
    ("exp(log(x))", lambda x: pt.exp(pt.log(x)), {"Exp", "Log"},
     lambda v: np.where(v >= 0, np.abs(v), np.nan)),
    ("expm1(log(x))", lambda x: pt.expm1(pt.log(x)), {"Expm1", "Log"},
     lambda v: np.where(v >= 0, v - 1, np.nan)),
    ("exp(log1p(x))", lambda x: pt.exp(pt.log1p(x)), {"Exp", "Log1p"},
     lambda v: np.where(v >= -1, v + 1, np.nan)),
    ("expm1(log1p(x))", lambda x: pt.expm1(pt.log1p(x)), {"Expm1", "Log1p"},
     lambda v: np.where(v >= -1, v, np.nan)),
]


@pytest.mark.parametrize("name, build, gone, exact", PAIRS, ids=[p[0] for p in PAIRS])
def test_round_trip_removed_and_value_kept(name, build, gone, exact):
    x = pt.dvector("x")
    fast, ref = compile_pair([x], build(x), NOFUSE)
    assert not gone & set(op_counts(fast)), op_counts(fast)
    with np.errstate(all="ignore"):
        got, plain, want = fast(POINTS), ref(POINTS), exact(POINTS)
    np.testing.assert_allclose(got, plain, rtol=1e-7, atol=1e-15, equal_nan=True)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0, equal_nan=True)
    assert np.array_equal(np.isnan(got), np.isnan(plain))


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_integer_inputs_are_cast_to_the_float_result(dtype):
    x = pt.vector("x", dtype=dtype)
    out = pt.exp(pt.log(x)) + pt.log1p(pt.expm1(x))
    fast, ref = compile_pair([x], out, NOFUSE)
    assert not {"Exp", "Log", "Log1p", "Expm1"} & set(op_counts(fast)), op_counts(fast)
    values = np.array([0, 1, 2, 5, 7], dtype=dtype)
    np.testing.assert_allclose(fast(values), ref(values), rtol=1e-7)
    assert fast(values).dtype == ref(values).dtype


def test_pairs_answer_to_pytensors_group_names():
    x = pt.dvector("x")
    out = pt.exp(pt.log(x))
    kept, _ = compile_pair([x], out, NOFUSE.excluding("local_exp_log"))
    assert {"Exp", "Log"} <= set(op_counts(kept))
    kept, _ = compile_pair([x], out, NOFUSE.excluding("local_exp_log_nan_switch"))
    assert {"Exp", "Log"} <= set(op_counts(kept))


def test_transposed_input_keeps_values():
    x = pt.dmatrix("x")
    fast, ref = compile_pair([x], pt.expm1(pt.log1p(x.T)), NOFUSE)
    value = np.linspace(-2, 2, 12).reshape(3, 4)
    for arg in (value, np.asfortranarray(value), np.repeat(value, 2, axis=0)[::2]):
        np.testing.assert_allclose(fast(arg), ref(arg), rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("build, n_switch", [
    (lambda x: pt.exp(pt.log(pt.exp(pt.log(x)))), 1),
    (lambda x: pt.expm1(pt.log(pt.exp(pt.log(x)))), 1),
    (lambda x: pt.exp(pt.log(pt.exp(pt.log(pt.exp(x))))), 0),
])
def test_nested_pairs_need_one_nan_switch(build, n_switch):
    x = pt.dvector("x")
    out = build(x)
    fast, ref = compile_pair([x], out, NOFUSE)
    assert op_counts(fast)["Switch"] == n_switch
    vals = np.concatenate([POINTS, [np.inf, -np.inf, np.nan]])
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(fast(vals), ref(vals), rtol=1e-14, equal_nan=True)
