"""Inverses of the regularized incomplete gamma and beta functions, which JAX lacks.

Each solves ``F(x) = target`` elementwise by safeguarded Newton steps: a bracket
``[lo, hi]`` that always holds the root shrinks at every step, and a step that
would leave it is replaced by bisection (or doubling while ``hi`` is unbounded,
and a thousandfold cut while ``lo`` is still 0, so tiny roots are reached).
A fixed number of steps keeps the loop traceable (``lax.fori_loop``); Newton's
quadratic convergence from a Wilson-Hilferty or mean start reaches float64
accuracy well within it, and bisection alone would still narrow the bracket by
``2**-STEPS``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp

__all__ = ["betaincinv", "gammainccinv", "gammaincinv"]

STEPS = 80


def _solve(f: Callable[[Any], Any], dfdx: Callable[[Any], Any], x0: Any, lo: Any,
           hi: Any) -> Any:
    """Root of the increasing ``f`` in ``[lo, hi]`` (``hi`` may be ``inf``) from ``x0``."""

    def step(_: int, state: tuple) -> tuple:
        x, lo, hi = state
        fx = f(x)
        lo = jnp.where(fx < 0, x, lo)
        hi = jnp.where(fx > 0, x, hi)
        newton = x - fx / dfdx(x)
        split = jnp.where(hi > 4.0 * lo, jnp.sqrt(lo * hi), 0.5 * (lo + hi))
        fallback = jnp.where(jnp.isinf(hi), 2.0 * x + 1.0, jnp.where(lo > 0, split, 1e-3 * hi))
        inside = jnp.isfinite(newton) & (newton > lo) & (newton < hi)
        x = jnp.where(fx == 0, x, jnp.where(inside, newton, fallback))
        return x, lo, hi

    x, _, _ = jax.lax.fori_loop(0, STEPS, step, (x0, lo, hi))
    return x


def _gamma_start(k: Any, p: Any, z: Any) -> Any:
    """Wilson-Hilferty's cube-root normal approximation (``z``: the normal quantile of
    ``p``); the small-x series for small k or p."""
    wh = k * (1.0 - 1.0 / (9.0 * k) + z * jnp.sqrt(1.0 / (9.0 * k))) ** 3
    small = jnp.exp((jnp.log(p) + jsp.gammaln(k + 1.0)) / k)
    return jnp.where((k < 1.0) | (wh <= 0), small, wh)


def _gamma_density(k: Any, x: Any) -> Any:
    return jnp.exp((k - 1.0) * jnp.log(x) - x - jsp.gammaln(k))


def _gamma_inverse(k: Any, target: Any, upper: bool) -> Any:
    """Solved in logs on the smaller tail: ``log P = log p`` or ``log Q = log q``."""
    k, target = jnp.broadcast_arrays(jnp.asarray(k, dtype=float),
                                     jnp.asarray(target, dtype=float))
    p, q = (1.0 - target, target) if upper else (target, 1.0 - target)
    use_p = p <= 0.5
    tail = jnp.clip(jnp.where(use_p, p, q), 1e-300, 0.5)
    sk = jnp.where(k > 0, k, 1.0)
    z = jnp.where(use_p, jsp.ndtri(tail), -jsp.ndtri(tail))
    x0 = jnp.maximum(_gamma_start(sk, jnp.clip(p, 1e-300, 1.0 - 1e-16), z), 1e-300)

    def f(x: Any) -> Any:
        return jnp.where(use_p, jnp.log(jsp.gammainc(sk, x)) - jnp.log(tail),
                         jnp.log(tail) - jnp.log(jsp.gammaincc(sk, x)))

    def dfdx(x: Any) -> Any:
        return _gamma_density(sk, x) / jnp.where(use_p, jsp.gammainc(sk, x),
                                                 jsp.gammaincc(sk, x))

    root = _solve(f, dfdx, x0, jnp.zeros_like(x0), jnp.full_like(x0, jnp.inf))
    root = jnp.where(p <= 0, 0.0, jnp.where(q <= 0, jnp.inf, root))
    return jnp.where((k <= 0) | (target < 0) | (target > 1) | jnp.isnan(target + k),
                     jnp.nan, root)


def gammaincinv(k: Any, p: Any) -> Any:
    """``x`` with ``gammainc(k, x) == p`` (SciPy's ``gammaincinv``)."""
    return _gamma_inverse(k, p, upper=False)


def gammainccinv(k: Any, q: Any) -> Any:
    """``x`` with ``gammaincc(k, x) == q`` (SciPy's ``gammainccinv``)."""
    return _gamma_inverse(k, q, upper=True)


def betaincinv(a: Any, b: Any, p: Any) -> Any:
    """``x`` with ``betainc(a, b, x) == p`` (SciPy's ``betaincinv``), solved in logs on the
    smaller tail (``1 - I_x(a, b) = I_{1-x}(b, a)``)."""
    a, b, p = jnp.broadcast_arrays(*(jnp.asarray(v, dtype=float) for v in (a, b, p)))
    ok = (a > 0) & (b > 0)
    sa, sb = jnp.where(ok, a, 1.0), jnp.where(ok, b, 1.0)
    log_beta = jsp.betaln(sa, sb)
    use_p = p <= 0.5
    tail = jnp.clip(jnp.where(use_p, p, 1.0 - p), 1e-300, 0.5)

    def cdf_tail(x: Any) -> Any:
        return jnp.where(use_p, jsp.betainc(sa, sb, x), jsp.betainc(sb, sa, 1.0 - x))

    def f(x: Any) -> Any:
        return jnp.where(use_p, 1.0, -1.0) * (jnp.log(cdf_tail(x)) - jnp.log(tail))

    def dfdx(x: Any) -> Any:
        dens = jnp.exp((sa - 1.0) * jnp.log(x) + (sb - 1.0) * jnp.log1p(-x) - log_beta)
        return dens / cdf_tail(x)

    x0 = jnp.clip(sa / (sa + sb), 1e-12, 1.0 - 1e-12)
    root = _solve(f, dfdx, x0, jnp.zeros_like(x0), jnp.ones_like(x0))
    root = jnp.where(p <= 0, 0.0, jnp.where(p >= 1, 1.0, root))
    return jnp.where(~ok | (p < 0) | (p > 1) | jnp.isnan(p), jnp.nan, root)
