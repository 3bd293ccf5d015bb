"""Samplers ``jax.random`` lacks, written with JAX primitives (no numpyro needed).

Choice without replacement (batched: one key per batch entry, Gumbel top-k
when weighted), von Mises (Best and Fisher's rejection loop, a
``lax.while_loop`` until every entry is accepted), hypergeometric (draws
one item at a time, up to the largest ``nsample``), beta-binomial,
truncated exponential (inverse CDF) and Rayleigh.  Each is registered in
:data:`opgraph_jax.link.dispatch.random.SAMPLERS` or with ``jax_sample_fn``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import opgraph.tensor.random.basic as rb
from opgraph.graph.basic import Apply
from opgraph_jax.link.dispatch.basic import JAXUnsupportedOpError, is_concrete, static_ints
from opgraph_jax.link.dispatch.random import SAMPLERS, jax_sample_fn

__all__: list[str] = []


def _bcast(shape: tuple, *values: Any) -> list[Any]:
    return [jnp.broadcast_to(jnp.asarray(v), shape) for v in values]


def _rayleigh(key: Any, shape: tuple, dtype: Any, scale: Any) -> Any:
    u = jax.random.uniform(key, shape, dtype)
    return scale * jnp.sqrt(-2.0 * jnp.log1p(-u))


def _truncexpon(key: Any, shape: tuple, dtype: Any, b: Any, loc: Any, scale: Any) -> Any:
    """Inverse CDF of the exponential cut at ``b``: ``-log(1 - u (1 - exp(-b)))``."""
    u = jax.random.uniform(key, shape, dtype)
    return loc + scale * -jnp.log1p(u * jnp.expm1(-jnp.asarray(b, dtype)))


def _betabinom(key: Any, shape: tuple, dtype: Any, n: Any, a: Any, b: Any) -> Any:
    k1, k2 = jax.random.split(key)
    a, b = _bcast(shape, a, b)
    p = jax.random.beta(k1, a, b, shape)
    return jax.random.binomial(k2, jnp.broadcast_to(n, shape).astype(p.dtype), p, shape)


def _hypergeometric(key: Any, shape: tuple, dtype: Any, ngood: Any, nbad: Any,
                    nsample: Any) -> Any:
    """Items drawn one at a time: each is good with probability goods left / items left."""
    good, bad, nsamp = (v.astype("int64") for v in _bcast(shape, ngood, nbad, nsample))
    total = good + bad

    def body(state: tuple) -> tuple:
        k, key, got = state
        key, sub = jax.random.split(key)
        left = (total - k).astype("float64")
        p_good = jnp.where(left > 0, (good - got) / jnp.maximum(left, 1.0), 0.0)
        hit = jax.random.uniform(sub, shape) < p_good
        return k + 1, key, got + (hit & (k < nsamp)).astype("int64")

    start = (jnp.asarray(0, "int64"), key, jnp.zeros(shape, "int64"))
    _, _, got = jax.lax.while_loop(lambda s: s[0] < jnp.max(nsamp, initial=0), body, start)
    return got


def _vonmises(key: Any, shape: tuple, dtype: Any, mu: Any, kappa: Any) -> Any:
    """Best and Fisher's algorithm, vectorized: redraw the rejected entries until none is left."""
    mu, kappa = (v.astype(dtype) for v in _bcast(shape, mu, kappa))
    tiny = kappa < 1e-8
    kap = jnp.where(tiny, 1.0, kappa)
    r = 1.0 + jnp.sqrt(1.0 + 4.0 * kap * kap)
    rho = (r - jnp.sqrt(2.0 * r)) / (2.0 * kap)
    s = jnp.where(kap < 1e-5, 1.0 / kap + kap, (1.0 + rho * rho) / (2.0 * rho))

    def body(state: tuple) -> tuple:
        key, w, done = state
        key, k1, k2 = jax.random.split(key, 3)
        z = jnp.cos(math.pi * jax.random.uniform(k1, shape, dtype))
        w_new = (1.0 + s * z) / (s + z)
        y = kap * (s - w_new)
        v = jax.random.uniform(k2, shape, dtype)
        ok = (y * (2.0 - y) - v >= 0) | (jnp.log(y / v) + 1.0 - y >= 0)
        return key, jnp.where(done, w, w_new), done | ok

    key, k_sign, k_small, k_big = jax.random.split(key, 4)
    start = (key, jnp.zeros(shape, dtype), tiny | (kappa > 1e6))
    _, w, _ = jax.lax.while_loop(lambda st: ~jnp.all(st[2]), body, start)
    angle = jnp.arccos(jnp.clip(w, -1.0, 1.0))
    angle = jnp.where(jax.random.uniform(k_sign, shape, dtype) < 0.5, -angle, angle)
    uniform = math.pi * (2.0 * jax.random.uniform(k_small, shape, dtype) - 1.0)
    normal = jax.random.normal(k_big, shape, dtype) / jnp.sqrt(jnp.maximum(kappa, 1e-300))
    angle = jnp.where(tiny, uniform, jnp.where(kappa > 1e6, normal, angle))
    return jnp.mod(mu + angle + math.pi, 2.0 * math.pi) - math.pi


SAMPLERS.update({
    rb.RayleighRV: _rayleigh,
    rb.TruncExponentialRV: _truncexpon,
    rb.BetaBinomialRV: _betabinom,
    rb.HyperGeometricRV: _hypergeometric,
    rb.VonMisesRV: _vonmises,
})


@jax_sample_fn.register(rb.ChoiceWithoutReplacement)
def _sample_choice(op: Any, node: Apply | None = None) -> Callable[..., Any]:
    """``shape`` is batch + core shape + the population's trailing axes; one key per batch."""
    nd_a = op.ndims_params[0]

    def sample_fn(key: Any, shape: tuple, dtype: Any, *params: Any) -> Any:
        a, p, core = params if op.has_p else (params[0], None, params[1])
        core_shape = static_ints(core, "core shape", op)
        batch = tuple(shape[: len(shape) - len(core_shape) - max(nd_a - 1, 0)])
        pop = _population(op, a, p, nd_a)
        pop = jnp.broadcast_to(pop, batch + jnp.shape(pop)[jnp.ndim(pop) - max(nd_a, 1):])
        if p is not None:
            p = jnp.broadcast_to(p, batch + jnp.shape(p)[-1:])

        def one(k: Any, x: Any, w: Any) -> Any:
            return jax.random.choice(k, x, core_shape, replace=False, p=w, axis=0)

        if not batch:
            return one(key, pop, p)
        n = int(np.prod(batch))
        flat_pop = jnp.reshape(pop, (n, *jnp.shape(pop)[len(batch):]))
        keys = jax.random.split(key, n)
        if p is None:
            out = jax.vmap(lambda k, x: one(k, x, None))(keys, flat_pop)
        else:
            out = jax.vmap(one)(keys, flat_pop, jnp.reshape(p, (n, -1)))
        return jnp.reshape(out, shape)

    return sample_fn


def _population(op: Any, a: Any, p: Any, nd_a: int) -> Any:
    """The items drawn from: ``a`` itself, or ``arange(a)`` for an integer ``a``."""
    if nd_a:
        return jnp.asarray(a)
    if p is not None:
        return jnp.arange(jnp.shape(p)[-1])
    if not is_concrete(a) or np.unique(np.asarray(a)).size != 1:
        raise JAXUnsupportedOpError(
            f"{op}: JAX needs the population size of a choice without replacement when it "
            "compiles; give `a` as a constant (the same for every batch entry) or as an array"
        )
    return jnp.arange(int(np.asarray(a).reshape(-1)[0]))
