"""The C helpers (through the C linker) against SciPy, on wide ranges and edge values.

Needs the opgraph-c plugin and a compiler; the package's isolated test session
installs neither, so these tests only run where the C linker is available.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sc

pytest.importorskip("opgraph_c")

import opgraph_special as special

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode

EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, -1e-300, 5e-324, 1.0, -1.0])
WIDE = np.concatenate([np.linspace(-60, 60, 4001), np.logspace(-300, 300, 301),
                       -np.logspace(-300, 300, 301), EDGES])


@pytest.fixture(scope="module", autouse=True)
def _c_available():
    from opgraph_c.compiler import probe

    reason = probe()
    if reason is not None:
        pytest.skip(f"no working C compiler: {reason}")


def c_fn(fn, *inputs):
    f = function(list(inputs), fn(*inputs), mode=Mode(linker="c", optimizer=None))
    from opgraph_c.codegen.nodec import EmitContext
    from opgraph_c.codegen.registry import c_for_node

    (node,) = f.maker.fgraph.toposort()
    assert c_for_node(node, 0, EmitContext(False))[1] == "builtin"  # C, not the SciPy perform
    return f


def assert_matches(got, want, rtol, atol=0.0):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    with np.errstate(invalid="ignore"):
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        close = np.abs(got - want) <= atol + rtol * np.abs(want)
    bad = ~(same | close)
    assert not bad.any(), (np.flatnonzero(bad)[:5], got[bad][:5], want[bad][:5])


@pytest.mark.parametrize(
    ("name", "values", "rtol", "atol"),
    [
        ("erfcx", WIDE, 2e-13, 0.0),
        ("log_ndtr", WIDE, 2e-13, 1e-300),  # SciPy flushes log_ndtr(x > 37.5) to -0
        ("i0", WIDE, 2e-13, 0.0),
        ("i1", WIDE, 2e-13, 1e-320),  # i1(5e-324) = 2.5e-324 rounds either way
        ("digamma", WIDE[WIDE >= 0], 2e-13, 0.0),
        ("digamma", WIDE[WIDE < 0], 1e-12, 1e-13),  # reflection near the negative roots
        ("erfinv", np.concatenate([np.linspace(-1, 1, 4001), 1 - np.logspace(-16, -0.5, 200),
                                   -1 + np.logspace(-16, -0.5, 200), np.logspace(-300, -1, 100),
                                   [1.5, -1.5], EDGES]), 1e-14, 0.0),
    ],
)
def test_unary_helpers_match_scipy(name, values, rtol, atol):
    x = pt.dvector("x")
    f = c_fn(getattr(special, name), x)
    with np.errstate(all="ignore"):
        assert_matches(f(values), getattr(sc, name)(values), rtol, atol)


def test_digamma_keeps_relative_accuracy_at_its_positive_root():
    x = pt.dvector("x")
    f = c_fn(special.digamma, x)
    root = 1.4616321449683622
    v = root + np.linspace(-0.3, 0.3, 2001)
    v = np.concatenate([v, np.nextafter(root, 0) + np.arange(-5, 6) * 2.2e-16])
    assert_matches(f(v), sc.digamma(v), 1e-12, 1e-30)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 20, 40])
def test_polygamma_matches_scipy(n):
    k, x = pt.lvector("k"), pt.dvector("x")
    f = c_fn(special.polygamma, k, x)
    xs = np.concatenate([np.linspace(-10.3, 40, 3001), np.logspace(-5, 8, 200),
                         [0.0, -0.0, -2.0, np.inf, -np.inf, np.nan]])
    ks = np.full(xs.shape, n)
    with np.errstate(all="ignore"):
        # SciPy itself is only good to ~3e-15 at negative x (e.g. trigamma(-0.5))
        assert_matches(f(ks, xs), sc.polygamma(ks, xs), 2e-13 if n else 1e-12, 1e-13)
    assert np.isnan(f(np.array([-1]), np.array([2.0]))).all()


def test_betaln_matches_scipy_and_lgamma():
    a, b = pt.dvector("a"), pt.dvector("b")
    f = c_fn(special.betaln, a, b)
    rng = np.random.default_rng(0)
    x = np.concatenate([10 ** rng.uniform(-5, 12, 3000), rng.uniform(-10, 10, 1000),
                        [0, -1, -2, 1, np.inf, 3, -0.5, 1, np.nan, -3]])
    y = np.concatenate([10 ** rng.uniform(-5, 12, 3000), rng.uniform(-10, 10, 1000),
                        [1, 1, 1, -1.5, 1, 0, 0.5, np.inf, 1, 2]])
    with np.errstate(all="ignore"):
        got, want = f(x, y), sc.betaln(x, y)
    # SciPy loses ~1e-9 relative when one argument is large and the other small (checked
    # against 40-digit arithmetic: these helpers are within 1e-15 there).
    assert_matches(got, want, 5e-9, 1e-12)
    small = (np.abs(x) < 5) & (np.abs(y) < 5) & (x > 0) & (y > 0)
    assert_matches(got[small], want[small], 1e-13, 1e-14)
    exact = sc.gammaln(x[small]) + sc.gammaln(y[small]) - sc.gammaln(x[small] + y[small])
    assert_matches(got[small], exact, 1e-13, 1e-14)


@pytest.mark.parametrize("name", ["erfcx", "log_ndtr", "erfinv", "digamma", "i0", "i1"])
def test_float32_and_fused_with_other_ops(name):
    from opgraph.compile.mode import get_mode

    x = pt.fvector("x")
    out = getattr(special, name)(x * 0.5) + special.erfcx(x) * 0  # two helpers, one loop
    f = function([x], out, mode=Mode(linker="c", optimizer=get_mode("FAST_RUN").optimizer))
    v = np.linspace(-1.9, 1.9, 101).astype("float32")
    want = getattr(sc, name)(v * np.float32(0.5))
    assert_matches(f(v), want.astype(f(v).dtype), 2e-6, 1e-6)
