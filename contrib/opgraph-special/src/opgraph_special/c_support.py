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

The C is package data (``c/*.h``), read with
:func:`opgraph.link.c.template.c_source`; the computed coefficients fill its
``@NAME@`` placeholders.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np

from opgraph.link.c.template import c_source

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


def _c(name: str, **values: str) -> str:
    """The C file ``c/<name>`` of this package, its ``@NAME@`` placeholders filled."""
    return c_source(__package__, f"c/{name}", **values)


def _digamma_text() -> str:
    coefs = _root_series()
    horner = "0.0"
    for c in reversed(coefs):
        horner = f"({horner} * d + {c!r})"
    return _c("digamma.h", ROOT_HI=repr(_DIGAMMA_ROOT_HI), ROOT_LO=repr(_DIGAMMA_ROOT_LO),
              HORNER=horner)


def _polygamma_text() -> str:
    bern = _bernoulli_over_factorial(14)
    return _c("polygamma.h", NBERN=str(len(bern)), BERNOULLI=_lit(bern))


def _bessel_text() -> str:
    fits = _cheb_fits()
    arrays = "".join(
        f"static const double ogsp_{name}[{len(c)}] = {{{_lit(c)}}};\n"
        for name, c in fits.items()
    )
    sizes = {f"N_{name.upper()}": str(len(c)) for name, c in fits.items()}
    return arrays + _c("bessel.h", **sizes)


@cache
def support_for(name: str) -> tuple[str, ...]:
    """The support code blocks (dependencies first) that define ``ogsp_<name>``."""
    blocks = {
        "erfcx": (_c("erfcx.h"),),
        "log_ndtr": (_c("erfcx.h"), _c("log_ndtr.h")),
        "erfinv": (_c("erfinv.h"),),
        "digamma": (_digamma_text(),) if name in ("digamma", "polygamma") else (),
        "polygamma": (_digamma_text(), _polygamma_text()) if name == "polygamma" else (),
        "betaln": (_c("betaln.h"),),
        "i0": (_bessel_text(),) if name in ("i0", "i1") else (),
        "i1": (_bessel_text(),) if name in ("i0", "i1") else (),
    }
    return blocks[name]
