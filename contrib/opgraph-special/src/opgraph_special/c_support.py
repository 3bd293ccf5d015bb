"""C helper functions for the special functions <math.h> lacks (support code for the C linker).

Each helper is a ``static`` double-precision function named ``ogsp_<name>``
(float32 outputs call it and round).  Methods, chosen for accuracy within
float64 tolerance of SciPy across the whole real line:

* ``erfcx``: ``exp(x^2) * erfc(x)`` with ``x^2`` split into an exact high part
  and a small remainder (no error growth with x); the asymptotic series
  beyond x = 25, where erfc underflows; ``2 exp(x^2) - erfcx(-x)`` for x < 0.
* ``log_ndtr``: ``log(erfc(-x/sqrt 2) / 2)`` on [-1, 0],
  ``log1p(-erfc(x/sqrt 2) / 2)`` for x > 0 (the upper tail keeps its relative accuracy),
  and ``log(erfcx(t)/2) - x^2/2`` in the lower tail.
* ``erfinv``: Halley's iteration on ``erf(x) = y`` (``erfc(x) = 1 - |y|``,
  exact, for |y| >= 1/2), so its accuracy is libm's erf/erfc's.
* ``digamma``: recurrence up to x >= 10 then the asymptotic series; a Taylor
  series around the positive root (coefficients from SciPy's polygamma,
  computed when this module is imported) so values near the root keep their
  relative accuracy; reflection for x < 0.
* ``polygamma``: ``(-1)^(n+1) n! zeta(n+1, x)`` with the Hurwitz zeta by
  Euler-Maclaurin summation.
* ``betaln``: lgamma sums for small arguments, Stirling differences written
  with ``log1p`` when an argument is >= 10 (no cancellation), SciPy's rules
  for non-positive integers.
* ``i0``, ``i1``: Chebyshev expansions of ``exp(-x) I(x)`` on [0, 8] and of
  ``sqrt(x) exp(-x) I(x)`` in ``16/x`` beyond, whose coefficients are fitted
  here (at import) to SciPy's ``i0e``/``i1e``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np

__all__ = ["support_for"]

_DIGAMMA_ROOT_HI = 1.4616321449683622
_DIGAMMA_ROOT_LO = 9.549995429965697e-17
_ROOT_TERMS = 26


def _lit(values) -> str:
    return ", ".join(repr(float(v)) for v in values)


def _bernoulli_over_factorial(count: int) -> list[float]:
    """B_2j / (2j)! for j = 1..count (exact rationals, then rounded)."""
    b = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return [float(b[2 * j] / math.factorial(2 * j)) for j in range(1, count + 1)]


@cache
def _cheb_fits() -> dict[str, np.ndarray]:
    """Chebyshev coefficients (on t in [-1, 1]) fitted to SciPy's scaled Bessel functions."""
    import scipy.special as sc
    from numpy.polynomial import chebyshev as C

    def near(t):  # x = 4 (t + 1) on [0, 8]
        return 4.0 * (np.asarray(t) + 1.0)

    def far(t):  # x = 16 / (t + 1) on [8, inf)
        return 16.0 / (np.asarray(t) + 1.0)

    return {
        "i0_near": C.chebinterpolate(lambda t: sc.i0e(near(t)), 34),
        "i1_near": C.chebinterpolate(lambda t: sc.i1e(near(t)) / near(t), 34),
        "i0_far": C.chebinterpolate(lambda t: np.sqrt(far(t)) * sc.i0e(far(t)), 30),
        "i1_far": C.chebinterpolate(lambda t: np.sqrt(far(t)) * sc.i1e(far(t)), 30),
    }


@cache
def _root_series() -> list[float]:
    """Taylor coefficients of digamma about its positive root (c_1, c_2, ...)."""
    import scipy.special as sc

    x0 = _DIGAMMA_ROOT_HI
    return [float(sc.polygamma(k, x0)) / math.factorial(k) for k in range(1, _ROOT_TERMS)]


_ERFCX = r"""
/* exp(x*x) without the rounding error of x*x: x = h + l with h*h exact. */
static double ogsp_exp_sq(double x) {
    double h = floor(x * 4096.0) / 4096.0, l = x - h;
    return exp(h * h) * exp(l * (x + h));
}
static double ogsp_erfcx_pos(double x) {   /* x >= 0 */
    if (x < 25.0) return ogsp_exp_sq(x) * erfc(x);
    if (x > 5e7) return 0.56418958354775628695 / x;
    double r = 1.0 / (2.0 * x * x), t = 1.0, s = 1.0;
    for (int k = 1; k <= 10; k++) { t *= -(2 * k - 1) * r; s += t; }
    return 0.56418958354775628695 / x * s;
}
static double ogsp_erfcx(double x) {
    if (x != x) return x;
    if (x >= 0) return ogsp_erfcx_pos(x);
    if (x < -26.7) return HUGE_VAL;
    return 2.0 * ogsp_exp_sq(-x) - ogsp_erfcx_pos(-x);
}
"""

_LOG_NDTR = r"""
static double ogsp_log_ndtr(double x) {
    if (x != x) return x;
    if (x > 0.0) return log1p(-0.5 * erfc(x * 0.70710678118654752440));
    if (x > -1.0) return log(0.5 * erfc(-x * 0.70710678118654752440));
    return log(0.5 * ogsp_erfcx(-x * 0.70710678118654752440)) - 0.5 * x * x;
}
"""

_ERFINV = r"""
static double ogsp_erfinv(double y) {
    if (y != y || y < -1.0 || y > 1.0) return NAN;
    if (y == 0.0) return y;
    double a = fabs(y), x;
    if (a == 1.0) return copysign(HUGE_VAL, y);
    const double k = 1.12837916709551257390;    /* 2 / sqrt(pi) */
    if (a < 0.5) {
        x = a / k * (1.0 + 0.2617993877991494 * a * a);   /* series start */
        for (int i = 0; i < 40; i++) {
            double f = erf(x) - a, d = f / (k * exp(-x * x) + x * f);
            x -= d;
            if (fabs(d) <= 1e-17 * x) break;
        }
    } else {
        double q = 1.0 - a;                          /* exact for a >= 1/2 */
        x = sqrt(-log(q * (2.0 - q)));               /* start from the tail's log */
        if (x < 0.5) x = 0.5;
        for (int i = 0; i < 60; i++) {
            double f = erfc(x) - q, d = f / (-k * exp(-x * x) + x * f);
            x -= d;
            if (fabs(d) <= 1e-17 * x) break;
        }
    }
    return copysign(x, y);
}
"""


def _digamma_text() -> str:
    coefs = _root_series()
    horner = "0.0"
    for c in reversed(coefs):
        horner = f"({horner} * d + {c!r})"
    return rf"""
static double ogsp_digamma_pos(double x) {{   /* x > 0, finite */
    double dr = x - {_DIGAMMA_ROOT_HI!r};
    if (fabs(dr) < 0.25) {{
        double d = dr - {_DIGAMMA_ROOT_LO!r};
        return d * {horner};
    }}
    double acc = 0.0;
    while (x < 10.0) {{ acc -= 1.0 / x; x += 1.0; }}
    double z = 1.0 / (x * x);
    double tail = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240
                  - z * (1.0 / 132 - z * (691.0 / 32760 - z * (1.0 / 12)))))));
    return acc + log(x) - 0.5 / x - tail;
}}
static double ogsp_digamma(double x) {{
    if (x != x) return x;
    if (x == HUGE_VAL) return x;
    if (x == 0.0) return signbit(x) ? HUGE_VAL : -HUGE_VAL;
    if (x > 0.0) return ogsp_digamma_pos(x);
    if (x == floor(x)) return NAN;                 /* poles, and -inf */
    double r = x - round(x);                       /* exact; tan(pi x) = tan(pi r) */
    return ogsp_digamma_pos(1.0 - x) - 3.14159265358979323846 / tan(3.14159265358979323846 * r);
}}
"""


def _polygamma_text() -> str:
    bern = _bernoulli_over_factorial(14)
    return rf"""
static const double ogsp_b2j_over_fact[{len(bern)}] = {{{_lit(bern)}}};
/* Hurwitz zeta(s, q) for integer s >= 2 (Euler-Maclaurin). */
static double ogsp_hurwitz(double s, double q) {{
    if (q != q) return q;
    if (q <= 0.0 && q == floor(q)) return HUGE_VAL;
    if (q == HUGE_VAL) return 0.0;
    double sum = 0.0, a = q, term;
    int k = 0;
    while (k < 9 || a <= 9.0) {{
        term = pow(a, -s);
        sum += term;
        a += 1.0; k++;
        if (a > 9.0 && fabs(term) <= 1e-17 * fabs(sum)) return sum;
        if (k > 100000) break;
    }}
    double w = pow(a, -s);
    sum += a * w / (s - 1.0) + 0.5 * w;             /* integral and half term */
    double fac = s, pw = w / a;                     /* s (s+1)... ; a^(-s-2j+1) */
    for (int j = 0; j < {len(bern)}; j++) {{
        term = ogsp_b2j_over_fact[j] * fac * pw;
        sum += term;
        if (fabs(term) <= 1e-17 * fabs(sum)) break;
        fac *= (s + 2 * j + 1) * (s + 2 * j + 2);
        pw /= a * a;
    }}
    return sum;
}}
static double ogsp_polygamma(double n, double x) {{
    if (n != n || x != x) return NAN;
    if (n < 0 || n != floor(n)) return NAN;
    if (n == 0) return ogsp_digamma(x);
    double sign = fmod(n, 2.0) == 0.0 ? -1.0 : 1.0;  /* (-1)^(n+1) */
    return sign * exp(lgamma(n + 1.0)) * ogsp_hurwitz(n + 1.0, x);
}}
"""


_BETALN = r"""
/* Stirling's correction lgamma(z) - ((z - 1/2) log z - z + log(2 pi)/2), z >= 10. */
static double ogsp_stirling_corr(double z) {
    if (z == HUGE_VAL) return 0.0;
    double r = 1.0 / z, r2 = r * r;
    return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680
           - r2 * (1.0 / 1188 - r2 * (691.0 / 360360 - r2 * (1.0 / 156)))))));
}
static double ogsp_betaln_pos(double a, double b) {   /* 0 < a <= b */
    if (b == HUGE_VAL) return -HUGE_VAL;
    if (b < 10.0) return lgamma(a) + lgamma(b) - lgamma(a + b);
    double corr = ogsp_stirling_corr(b) - ogsp_stirling_corr(a + b);
    if (a < 10.0)
        return lgamma(a) - (b - 0.5) * log1p(a / b) - a * log(a + b) + a + corr;
    return 0.91893853320467274178 - 0.5 * log(a) - a * log1p(b / a)
           - (b - 0.5) * log1p(a / b) + ogsp_stirling_corr(a) + corr;
}
static double ogsp_betaln(double a, double b) {
    if (a != a || b != b) return NAN;
    if (a <= 0.0 && a == floor(a)) {                  /* SciPy's rule for a <= 0 integer */
        if (b == floor(b) && 1.0 - a - b > 0.0) return ogsp_betaln(1.0 - a - b, b);
        return HUGE_VAL;
    }
    if (b <= 0.0 && b == floor(b)) {
        if (a == floor(a) && 1.0 - a - b > 0.0) return ogsp_betaln(1.0 - a - b, a);
        return HUGE_VAL;
    }
    if (a > 0.0 && b > 0.0) return a <= b ? ogsp_betaln_pos(a, b) : ogsp_betaln_pos(b, a);
    return lgamma(a) + lgamma(b) - lgamma(a + b);
}
"""


def _bessel_text() -> str:
    fits = _cheb_fits()
    arrays = "".join(
        f"static const double ogsp_{name}[{len(c)}] = {{{_lit(c)}}};\n"
        for name, c in fits.items()
    )
    n = {name: len(c) for name, c in fits.items()}
    return arrays + rf"""
/* Clenshaw's sum of c[0..n) Chebyshev terms at t in [-1, 1]. */
static double ogsp_cheb(const double *c, int n, double t) {{
    double b0 = 0.0, b1 = 0.0, b2;
    for (int k = n - 1; k >= 1; k--) {{ b2 = b1; b1 = b0; b0 = 2.0 * t * b1 - b2 + c[k]; }}
    return t * b0 - b1 + c[0];
}}
static double ogsp_i0(double x) {{
    if (x != x) return x;
    x = fabs(x);
    if (x <= 8.0) return exp(x) * ogsp_cheb(ogsp_i0_near, {n['i0_near']}, x / 4.0 - 1.0);
    return exp(x) * (ogsp_cheb(ogsp_i0_far, {n['i0_far']}, 16.0 / x - 1.0) / sqrt(x));
}}
static double ogsp_i1(double x) {{
    if (x != x) return x;
    double a = fabs(x), r;
    if (a <= 8.0) r = x * exp(a) * ogsp_cheb(ogsp_i1_near, {n['i1_near']}, a / 4.0 - 1.0);
    else r = copysign(exp(a) * (ogsp_cheb(ogsp_i1_far, {n['i1_far']}, 16.0 / a - 1.0)
                                / sqrt(a)), x);
    return r;
}}
"""


@cache
def support_for(name: str) -> tuple[str, ...]:
    """The support code blocks (dependencies first) that define ``ogsp_<name>``."""
    blocks = {
        "erfcx": (_ERFCX,),
        "log_ndtr": (_ERFCX, _LOG_NDTR),
        "erfinv": (_ERFINV,),
        "digamma": (_digamma_text(),) if name in ("digamma", "polygamma") else (),
        "polygamma": (_digamma_text(), _polygamma_text()) if name == "polygamma" else (),
        "betaln": (_BETALN,),
        "i0": (_bessel_text(),) if name in ("i0", "i1") else (),
        "i1": (_bessel_text(),) if name in ("i0", "i1") else (),
    }
    return blocks[name]
