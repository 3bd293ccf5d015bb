"""Derivatives of the regularised incomplete gamma and beta functions in their shape
parameters: ``dP(k, x)/dk`` and ``dI_x(a, b)/da``, ``dI_x(a, b)/db``.

PyMC's logcdfs of Gamma, NegativeBinomial, Poisson, Beta and Binomial (hence
Censored/Truncated/hurdle models) call ``gammainc``/``betainc`` with a free
parameter as the shape, so NUTS and find_MAP need these.  Each is a convergent
series or continued fraction evaluated together with its derivative (forward mode:
every quantity carries its value and its partials), to double precision.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.scalar.basic import ScalarOp

__all__ = ["BetaIncDerA", "BetaIncDerB", "GammaIncDerK", "betainc_der_a", "betainc_der_b",
           "gammainc_der_k"]

_EPS = 1e-16
_TINY = 1e-300
_MAX_ITER = 100_000


@functools.cache
def _sc() -> Any:
    """scipy.special, on first computation (registering ops must not import SciPy)."""
    import scipy.special

    return scipy.special


def _gammainc_dk(k: float, x: float) -> float:
    """dP(k, x)/dk for k > 0, x >= 0."""
    if math.isnan(k) or math.isnan(x) or k <= 0 or x < 0:
        return math.nan
    if x == 0 or math.isinf(x):
        return 0.0
    sc = _sc()
    log_x = math.log(x)
    if x < k + 1:
        # P = x^k e^-x / Gamma(k+1) * sum_n x^n / ((k+1)...(k+n)); d/dk term by term
        total, dtotal, term, dterm = 1.0, 0.0, 1.0, 0.0
        for n in range(1, _MAX_ITER):
            ratio = x / (k + n)
            dterm = (dterm - term / (k + n)) * ratio
            term *= ratio
            total += term
            dtotal += dterm
            if term <= _EPS * total and abs(dterm) <= _EPS * abs(dtotal):
                break
        pref = math.exp(k * log_x - x - sc.gammaln(k + 1))
        return pref * (total * (log_x - sc.digamma(k + 1)) + dtotal)
    # Q = x^k e^-x / Gamma(k) * F, F Legendre's continued fraction (modified Lentz),
    # each quantity paired with its k-derivative; dP/dk = -dQ/dk
    b, db = x + 1 - k, -1.0
    c, dc = 1 / _TINY, 0.0
    d, dd = 1 / b, db / b**2 * -1
    h, dh = d, dd
    for i in range(1, _MAX_ITER):
        an, dan = -i * (i - k), float(i)
        b += 2
        d, dd = an * d + b, dan * d + an * dd + db
        if abs(d) < _TINY:
            d = _TINY
        c, dc = b + an / c, db + dan / c - (an / c) * (dc / c)
        if abs(c) < _TINY:
            c = _TINY
        d, dd = 1 / d, -dd / d**2
        delta, ddelta = d * c, dd * c + d * dc
        h, dh = h * delta, dh * delta + h * ddelta
        if abs(delta - 1) <= _EPS and abs(ddelta * h) <= _EPS * abs(dh) + _TINY:
            break
    pref = math.exp(k * log_x - x - sc.gammaln(k))
    return -pref * (h * (log_x - sc.digamma(k)) + dh)


def _betacf(a: float, b: float, x: float) -> tuple[float, float, float]:
    """The continued fraction of I_x(a, b) and its derivatives in a and b (Lentz)."""
    v = np.array  # (value, d/da, d/db) triples
    one = v([1.0, 0.0, 0.0])

    def mul(p: np.ndarray, q: np.ndarray) -> np.ndarray:
        return v([p[0] * q[0], p[1] * q[0] + p[0] * q[1], p[2] * q[0] + p[0] * q[2]])

    def inv(p: np.ndarray) -> np.ndarray:
        val = p[0] if abs(p[0]) >= _TINY else _TINY
        return v([1 / val, -p[1] / val**2, -p[2] / val**2])

    qab, qap = a + b, a + 1
    c = one.copy()
    d = inv(v([1 - qab * x / qap, -x * (qap - qab) / qap**2, -x / qap]))
    h = d.copy()
    for m in range(1, _MAX_ITER):
        m2 = 2 * m
        den = (a + m2 - 1) * (a + m2)
        num = m * (b - m) * x
        even = v([num / den, -num * (2 * a + 4 * m - 1) / den**2, m * x / den])
        den = (a + m2) * (qap + m2)
        num = (a + m) * (qab + m) * x
        dnum_da = ((qab + m) + (a + m)) * x
        odd = v([-num / den, -(dnum_da * den - num * (2 * a + 4 * m + 1)) / den**2,
                 -(a + m) * x / den])
        for coef in (even, odd):
            d = inv(one + mul(coef, d))
            c = one + mul(coef, inv(c))
            if abs(c[0]) < _TINY:
                c[0] = _TINY
            delta = mul(d, c)
            h = mul(h, delta)
        if abs(delta[0] - 1) <= _EPS and np.all(np.abs(delta[1:] * h[0]) <= _EPS * np.abs(h[1:])
                                                 + _TINY):
            break
    return float(h[0]), float(h[1]), float(h[2])


def _betainc_dab(a: float, b: float, x: float) -> tuple[float, float]:
    """(dI_x(a, b)/da, dI_x(a, b)/db) for a, b > 0, 0 <= x <= 1."""
    if any(math.isnan(t) for t in (a, b, x)) or a <= 0 or b <= 0 or not 0 <= x <= 1:
        return math.nan, math.nan
    if x == 0 or x == 1:
        return 0.0, 0.0
    if x > (a + 1) / (a + b + 2):  # I_x(a, b) = 1 - I_(1-x)(b, a): the fraction converges fast
        db_, da_ = _betainc_dab(b, a, 1 - x)
        return -da_, -db_
    sc = _sc()
    log_x, log_1mx = math.log(x), math.log1p(-x)
    pref = math.exp(a * log_x + b * log_1mx - math.log(a) - sc.betaln(a, b))
    psi_ab = sc.digamma(a + b)
    dlp_a = log_x - 1 / a - sc.digamma(a) + psi_ab
    dlp_b = log_1mx - sc.digamma(b) + psi_ab
    h, dh_a, dh_b = _betacf(a, b, x)
    return pref * (h * dlp_a + dh_a), pref * (h * dlp_b + dh_b)


def _elementwise(fn: Any, *args: Any) -> np.ndarray:
    """``fn`` over broadcast float64 arrays (a scalar loop: these are series)."""
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype="float64") for a in args))
    out = np.empty(arrays[0].shape)
    for idx in np.ndindex(out.shape):
        out[idx] = fn(*(float(a[idx]) for a in arrays))
    return out


class _IncompleteDer(ScalarOp):
    """A derivative of an incomplete function (float output; no derivative of its own)."""

    def __init__(self, name: str) -> None:
        super().__init__(ps.upgrade_to_float_no_complex, name=name)

    def _cast(self, value: np.ndarray, inputs: tuple) -> Any:
        dtype = np.result_type(*(np.asarray(t).dtype for t in inputs), np.float16)
        return value.astype(dtype if dtype.kind == "f" else "float64")

    def impl(self, *inputs: Any) -> Any:
        return self.numpy_fn(*inputs)[()]

    def c_code_cache_version(self) -> tuple:
        return (1, 0)


class GammaIncDerK(_IncompleteDer):
    """dP(k, x)/dk, P the regularised lower incomplete gamma (gammainc)."""

    nin = 2

    def numpy_fn(self, k: Any, x: Any) -> Any:
        return self._cast(_elementwise(_gammainc_dk, k, x), (k, x))


class BetaIncDerA(_IncompleteDer):
    """dI_x(a, b)/da, I the regularised incomplete beta (betainc)."""

    nin = 3

    def numpy_fn(self, a: Any, b: Any, x: Any) -> Any:
        return self._cast(_elementwise(lambda *t: _betainc_dab(*t)[0], a, b, x), (a, b, x))


class BetaIncDerB(_IncompleteDer):
    """dI_x(a, b)/db, I the regularised incomplete beta (betainc)."""

    nin = 3

    def numpy_fn(self, a: Any, b: Any, x: Any) -> Any:
        return self._cast(_elementwise(lambda *t: _betainc_dab(*t)[1], a, b, x), (a, b, x))


gammainc_der_k = GammaIncDerK("gammainc_der_k")
betainc_der_a = BetaIncDerA("betainc_der_a")
betainc_der_b = BetaIncDerB("betainc_der_b")
