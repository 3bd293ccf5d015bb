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
