"""Random elemwise graphs agree with and without FAST_RUN, within dtype tolerance."""

from __future__ import annotations

import numpy as np
from helpers_rw import compile_pair
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt

UNARY = [pt.neg, pt.tanh, pt.sin, pt.exp, lambda t: pt.log(pt.abs(t) + 1), pt.sigmoid,
         lambda t: t**2, lambda t: pt.log(pt.exp(t))]
BINARY = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b,
          lambda a, b: a * b / (pt.abs(b) + 1), lambda a, b: (a + b) - b]

step = st.tuples(st.booleans(), st.integers(0, 100), st.integers(0, 100), st.integers(0, 100))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=12), dtype=st.sampled_from(["float64", "float32"]),
       seed=st.integers(0, 2**16))
def test_random_elemwise_graphs_agree(steps, dtype, seed):
    x, y = pt.vector("x", dtype=dtype), pt.vector("y", dtype=dtype)
    pool = [x, y, x * 0.5]
    for binary, f, a, b in steps:
        if binary:
            pool.append(BINARY[f % len(BINARY)](pool[a % len(pool)], pool[b % len(pool)]))
        else:
            pool.append(UNARY[f % len(UNARY)](pool[a % len(pool)]))
    out = pt.tanh(pool[-1]) + pool[-1] * 0.0
    fast, ref = compile_pair([x, y], out)
    rng = np.random.default_rng(seed)
    xv = rng.uniform(-2, 2, size=6).astype(dtype)
    yv = rng.uniform(-2, 2, size=6).astype(dtype)
    with np.errstate(all="ignore"):
        a, b = fast(xv, yv), ref(xv, yv)
    assert a.dtype == b.dtype
    tol = 1e-4 if dtype == "float32" else 1e-9
    finite = np.isfinite(b)
    np.testing.assert_allclose(a[finite], b[finite], rtol=tol, atol=tol)
