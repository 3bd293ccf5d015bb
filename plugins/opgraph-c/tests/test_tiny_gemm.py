"""Matrix products whose operands hold subnormals (blas_support: og_tiny_gemm).

When one operand has slices along the summed dimension K with entries below
2**-600 (float64) or 2**-80 (float32), the C product is formed as the product
of the other entries plus the product of those entries scaled by an exact power
of two, scaled back (the CPU's slow path for subnormals costs up to a hundred
times a normal multiplication).  These tests hold the result to the exactly
rounded product: np.longdouble sums (64-bit significand, an exponent range in
which every float64 subnormal is normal) bound the error like any GEMM's, and a
result in the subnormal range must be there, not flushed to zero.  The split runs for
products of 128 x 128 outputs and more (smaller ones take BLAS as they are).
"""

from __future__ import annotations

import numpy as np
import pytest
from opgraph_c.codegen.blas import find_blas

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.config import config
from opgraph.tensor.blas import Gemm

pytestmark = pytest.mark.skipif(find_blas() is None, reason="no CBLAS in this environment")

MODE = Mode(linker="c", optimizer=None)
RNG = np.random.default_rng(11)


def _dot_fn(dtype: str):
    a, b = pt.matrix("a", dtype=dtype), pt.matrix("b", dtype=dtype)
    return function([a, b], pt.dot(a, b), mode=MODE)


def _gemm_fn(dtype: str):
    z, x, y = (pt.matrix(n, dtype=dtype) for n in "zxy")
    al, be = pt.scalar("al", dtype=dtype), pt.scalar("be", dtype=dtype)
    return function([z, al, x, y, be], Gemm()(z, al, x, y, be), mode=MODE)


DOT = {dt: _dot_fn(dt) for dt in ("float64", "float32")}
GEMM = {dt: _gemm_fn(dt) for dt in ("float64", "float32")}


def _exact(a, b):
    """(a @ b in long double, |a| @ |b|): the reference and the scale of its rounding error."""
    al, bl = a.astype(np.longdouble), b.astype(np.longdouble)
    return al @ bl, np.abs(al) @ np.abs(bl)


def _check(got, want, scale, dtype, k):
    """|got - want| within a GEMM's rounding bound, plus two steps of the subnormal grid
    (the scaled part is rounded once into that range, then added)."""
    fi = np.finfo(dtype)
    bound = 2 * k * float(fi.eps) * scale + 2 * float(fi.smallest_subnormal)
    err = np.abs(got.astype(np.longdouble) - want)
    assert (err <= bound).all(), float(np.max(err - bound))


def _tiny_operand(m: int, k: int, dtype: str) -> np.ndarray:
    """m x k with K slices (columns) of every kind: normal, all subnormal, subnormal and
    small normal, mixed (subnormal next to large entries), exact zeros."""
    fi = np.finfo(dtype)
    sub = float(fi.smallest_normal)
    a = RNG.standard_normal((m, k)).astype(dtype)
    for col in range(0, k, 4):
        a[:, col] = (RNG.uniform(-1, 1, m) * sub).astype(dtype)  # subnormal
    for col in range(1, k, 8):
        a[:, col] = (RNG.uniform(-1, 1, m) * sub * 2.0 ** 30).astype(dtype)  # small normal
        a[::3, col] = (RNG.uniform(-1, 1, a[::3, col].shape) * sub).astype(dtype)
    for col in range(2, k, 8):
        a[::2, col] = (RNG.uniform(-1, 1, a[::2, col].shape) * sub).astype(dtype)  # mixed
    a[:, k - 1] = 0
    assert np.any((a != 0) & (np.abs(a) < sub))
    return a


def _layouts(a):
    big = np.zeros((a.shape[0] + 3, a.shape[1] + 2), a.dtype)
    big[2:-1, 1:-1] = a
    return [a, np.asfortranarray(a), big[2:-1, 1:-1]]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(128, 40, 128), (130, 200, 140), (256, 100, 256), (8, 30, 8)])
def test_products_with_subnormal_slices_match_the_exact_product(dtype, shape):
    m, k, n = shape
    a = _tiny_operand(m, k, dtype)
    b = RNG.standard_normal((k, n)).astype(dtype)
    want, scale = _exact(a, b)
    for al in _layouts(a):
        for bl in _layouts(b):
            _check(DOT[dtype](al, bl), want, scale, dtype, k)
    # the same slices in the right operand (its rows)
    wantT, scaleT = _exact(b.T, a.T)
    for al in _layouts(np.ascontiguousarray(a.T)):
        _check(DOT[dtype](b.T, al), wantT, scaleT, dtype, k)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_deep_subnormal_products_are_rounded_once(dtype):
    """Operands near the bottom of the subnormal range: the plain product rounds every
    partial product to the subnormal grid (17 to 25 steps of it off here), the split one
    sums them scaled into the normal range and rounds the sum once (within one step)."""
    fi = np.finfo(dtype)
    m, k, n = 128, 400, 128
    a = (RNG.uniform(-1, 1, (m, k)) * float(fi.smallest_subnormal) * 2.0 ** 12).astype(dtype)
    b = RNG.uniform(-0.1, 0.1, (k, n)).astype(dtype)
    want, _ = _exact(a, b)
    ulp = float(fi.smallest_subnormal)
    for al in _layouts(a):
        err = np.abs(DOT[dtype](al, b).astype(np.longdouble) - want)
        assert float(err.max()) <= ulp
    errT = np.abs(DOT[dtype](b.T, a.T).astype(np.longdouble) - want.T)  # in the right operand
    assert float(errT.max()) <= ulp


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_subnormal_result_is_rounded_not_flushed(dtype):
    # every K slice subnormal: each result is a subnormal sum
    fi = np.finfo(dtype)
    m, k, n = 128, 64, 130
    a = (RNG.uniform(-1, 1, (m, k)) * float(fi.smallest_normal)).astype(dtype)
    b = RNG.uniform(-0.1, 0.1, (k, n)).astype(dtype)
    want, scale = _exact(a, b)
    got = DOT[dtype](a, b)
    assert np.all(got[want != 0] != 0)
    assert np.all(np.abs(got[np.abs(want) > 4 * float(fi.smallest_subnormal)]) > 0)
    _check(got, want, scale, dtype, k)
    # the product of tiny normals underflows into the subnormal range: same
    a2 = (a * np.asarray(2.0 ** 20, dtype)).astype(dtype)
    want2, scale2 = _exact(a2, b)
    _check(DOT[dtype](a2, b), want2, scale2, dtype, k)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gemm_alpha_beta_with_subnormal_slices(dtype):
    m, k, n = 128, 50, 136
    x = _tiny_operand(m, k, dtype)
    y = RNG.standard_normal((k, n)).astype(dtype)
    z = RNG.standard_normal((m, n)).astype(dtype)
    prod, pscale = _exact(x, y)
    fi = np.finfo(dtype)
    for alpha, beta in ((1.0, 1.0), (-0.75, 0.5), (2.0, 0.0), (float(fi.smallest_normal), 1.0)):
        got = GEMM[dtype](z.copy(), alpha, x, y, beta)
        want = (beta * z.astype(np.longdouble) if beta else 0) + alpha * prod
        scale = abs(alpha) * pscale + abs(beta) * np.abs(z.astype(np.longdouble))
        _check(got, want, scale, dtype, k + 1)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")
def test_inf_nan_and_huge_entries_keep_numpys_values(dtype):
    """An inf on a slice with subnormals gives inf (0 * inf would give nan), a nan
    stays nan, and a huge entry on such a slice does not overflow a scaled sum."""
    m, k, n = 128, 36, 128
    a = _tiny_operand(m, k, dtype)
    b = RNG.standard_normal((k, n)).astype(dtype)
    b[0, 3] = np.inf  # slice 0 of a is subnormal
    b[4, 5] = np.nan
    got = DOT[dtype](a, b)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    assert np.isinf(got[:, 3]).any()
    big = RNG.standard_normal((k, n)).astype(dtype)
    big[0, :] = np.finfo(dtype).max / 4
    want_big, scale_big = _exact(a, big)
    _check(DOT[dtype](a, big), want_big, scale_big, dtype, k)


def test_fast_math_flushes_instead():
    # under config.fast_math the CPU flushes subnormals (no split): a subnormal result is 0
    fi = np.finfo("float64")
    a = np.full((128, 40), float(fi.smallest_normal) / 2)
    b = np.full((40, 128), 0.5)
    with config.change_flags(fast_math=True):
        x, y = pt.matrix("x"), pt.matrix("y")
        fn = function([x, y], pt.dot(x, y), mode=MODE)
    assert np.all(fn(a, b) == 0)
    np.testing.assert_allclose(DOT["float64"](a, b), a @ b, rtol=1e-12, atol=0)
