"""Gemv's own loops for small matrices (blas_support: og_small_gemv) against NumPy.

Up to 512 x 512 (A x) and 128 x 128 (A^T x) the C module multiplies in its own
vector loops instead of calling BLAS.  The shapes here cross every edge of
those loops: fewer than eight columns or rows (BLAS again), a partial block of
rows, a column tail read from the row's last eight lanes, a last partial block
of outputs, the size limits; with row- and column-major and windowed
matrices, strided vectors, the alpha/beta corners, and inf/nan in the
operands, which must come out as NumPy's.
"""

from __future__ import annotations

import numpy as np
import pytest
from opgraph_c.codegen.blas import find_blas

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.tensor.blas import Gemv

pytestmark = pytest.mark.skipif(find_blas() is None, reason="no CBLAS in this environment")

RNG = np.random.default_rng(5)
SHAPES = [(8, 8), (1, 8), (8, 1), (3, 5), (9, 13), (13, 9), (16, 8), (8, 16), (31, 33),
          (40, 64), (64, 40), (128, 128), (129, 127), (3, 200), (200, 3), (512, 512),
          (600, 500), (1030, 20), (20, 1030)]


def _gemv_fn(dtype: str):
    y, x = pt.vector("y", dtype=dtype), pt.vector("x", dtype=dtype)
    A = pt.matrix("A", dtype=dtype)
    a, b = pt.scalar("a", dtype=dtype), pt.scalar("b", dtype=dtype)
    return function([y, a, A, x, b], Gemv()(y, a, A, x, b),
                    mode=Mode(linker="c", optimizer=None))


FNS = {dt: _gemv_fn(dt) for dt in ("float64", "float32")}


def _reference(y, a, A, x, b):
    """beta * y + alpha * A x in float64 (y unread when beta == 0), and a bound on
    the rounding error of the product."""
    A64, x64 = A.astype(np.float64), x.astype(np.float64)
    prod = A64 @ x64
    base = 0.0 if b == 0 else b * y.astype(np.float64)
    scale = np.abs(A64) @ np.abs(x64) * abs(a) + (0.0 if b == 0 else np.abs(base))
    return base + a * prod, scale


def _layouts(A):
    """A as row-major, column-major (the transposed loop) and a window of a bigger array."""
    big = np.zeros((A.shape[0] + 2, A.shape[1] + 3), A.dtype)
    big[1:-1, 2:-1] = A
    return [A, np.asfortranarray(A), big[1:-1, 2:-1], np.asfortranarray(big)[1:-1, 2:-1]]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES, ids=[f"{m}x{k}" for m, k in SHAPES])
def test_small_gemv_matches_numpy(shape, dtype):
    m, k = shape
    fn = FNS[dtype]
    eps = np.finfo(dtype).eps
    A = RNG.standard_normal((m, k)).astype(dtype)
    xs = RNG.standard_normal(2 * k).astype(dtype)
    ys = RNG.standard_normal(2 * m).astype(dtype)
    for Al in _layouts(A):
        for x in (xs[:k], xs[::2]):
            for y in (ys[:m], ys[::2]):
                for a, b in ((1.0, 1.0), (-1.5, 0.5), (2.0, 0.0), (0.0, 1.0)):
                    got = fn(y.copy(), a, Al, x, b)
                    want, scale = _reference(y, a, A, x, b)
                    assert got.dtype == np.dtype(dtype) and got.shape == (m,)
                    np.testing.assert_array_less(np.abs(got - want), 4 * k * eps * scale + 1e-30)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(8, 8), (9, 13), (13, 9), (40, 64), (64, 40), (3, 20)])
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")
def test_small_gemv_ieee_values(shape, dtype):
    """inf and nan anywhere in A or x give NumPy's inf/nan pattern; beta == 0 ignores
    a nan y; an inf in a column the tail re-reads is not turned into a nan."""
    m, k = shape
    fn = FNS[dtype]
    A = RNG.standard_normal((m, k)).astype(dtype)
    x = np.abs(RNG.standard_normal(k)).astype(dtype) + 1
    for j in range(k):
        Ai = A.copy()
        Ai[m // 2, j] = np.inf
        for Al in _layouts(Ai)[:2]:
            got = fn(np.zeros(m, dtype), 1.0, Al, x, 1.0)
            want = (Ai.astype(np.float64) @ x.astype(np.float64))
            np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            assert np.isposinf(got[m // 2])
    xn = x.copy()
    xn[k - 1] = np.nan
    assert np.isnan(fn(np.zeros(m, dtype), 1.0, A, xn, 1.0)).all()
    got = fn(np.full(m, np.nan, dtype), 1.0, A, x, 0.0)
    np.testing.assert_allclose(got, A.astype(np.float64) @ x, rtol=1e-4 if dtype == "float32"
                               else 1e-12)
    Ainf = A.copy()
    Ainf[0, 0] = np.inf
    assert np.isnan(fn(np.zeros(m, dtype), 0.0, Ainf, x, 1.0)[0])  # alpha 0 still forms A x
