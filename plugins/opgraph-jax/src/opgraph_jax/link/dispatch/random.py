"""Random variables: JAX PRNG keys threaded through the graph's RNG inputs and updates.

A ``RandomVariable`` node ``(rng, size, *params) -> (next_rng, draw)`` splits
its key: one half draws, the other is ``next_rng``.  A NumPy ``Generator``
given for an RNG input (a shared one included) is turned into a key at the
call, seeded from the generator; once a function has updated a shared RNG,
the shared variable holds the next key, kept on the device.

Samplers come from ONE table (:data:`SAMPLERS`): ``RV class -> f(key, shape,
dtype, *params)``.  An RV missing from it raises at compile time.
"""

from __future__ import annotations

import copy
import importlib.util
from collections.abc import Callable
from functools import singledispatch
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import opgraph.tensor.random.basic as rb
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.tensor.random.op import RandomVariable
from opgraph.tensor.shape import Shape, Shape_i
from opgraph_jax.link.dispatch.basic import (
    JAXUnsupportedOpError,
    jax_funcify,
    jax_typify,
    static_ints,
)

__all__ = ["SAMPLERS", "SIZE_NOT_COMPATIBLE", "assert_size_argument_jax_compatible",
           "generator_to_key", "jax_funcify_RandomVariable", "jax_sample_fn",
           "jax_typify_Generator", "numpy_bit_gens", "numpyro_available"]

SIZE_NOT_COMPATIBLE = (
    "JAX draws need their size as values known when the function is compiled: a constant, "
    "or computed from the shapes of inputs. This size depends on an input's value."
)

numpy_bit_gens = {"MT19937": 0, "PCG64": 1, "Philox": 2, "SFC64": 3}
"""NumPy bit generator name -> the index PyTensor stores with an RNG's JAX state."""

numpyro_available = importlib.util.find_spec("numpyro") is not None


def generator_to_key(value: Any) -> Any:
    """A JAX PRNG key for an RNG input value (a key passes as it is)."""
    if isinstance(value, np.random.Generator):
        seed = copy.deepcopy(value).integers(0, 2**32, size=2, dtype=np.uint32)
        return jnp.asarray(seed, dtype=jnp.uint32)
    if isinstance(value, dict) and "jax_state" in value:
        return value["jax_state"]
    return value


@jax_typify.register(np.random.Generator)
def jax_typify_Generator(data: np.random.Generator, dtype: Any = None, **kwargs: Any) -> Any:
    return generator_to_key(data)


def _loc_scale(draw: Callable[..., Any]) -> Callable[..., Any]:
    def sample(key: Any, shape: tuple, dtype: Any, loc: Any, scale: Any) -> Any:
        return loc + scale * draw(key, shape, dtype)

    return sample


def _gamma(key: Any, shape: tuple, dtype: Any, alpha: Any, scale: Any) -> Any:
    return jax.random.gamma(key, jnp.broadcast_to(alpha, shape), shape, dtype) * scale


def _invgamma(key: Any, shape: tuple, dtype: Any, alpha: Any, beta: Any) -> Any:
    return beta / jax.random.gamma(key, jnp.broadcast_to(alpha, shape), shape, dtype)


def _student_t(key: Any, shape: tuple, dtype: Any, df: Any, loc: Any, scale: Any) -> Any:
    return loc + scale * jax.random.t(key, jnp.broadcast_to(df, shape), shape, dtype)


def _mvnormal(key: Any, shape: tuple, dtype: Any, mean: Any, cov: Any) -> Any:
    return jax.random.multivariate_normal(key, mean, cov, shape[:-1], dtype, method="svd")


def _categorical(key: Any, shape: tuple, dtype: Any, p: Any) -> Any:
    return jax.random.categorical(key, jnp.log(p), axis=-1, shape=shape)


def _dirichlet(key: Any, shape: tuple, dtype: Any, alpha: Any) -> Any:
    return jax.random.dirichlet(key, alpha, shape[:-1], dtype)


def _integers(key: Any, shape: tuple, dtype: Any, low: Any, high: Any) -> Any:
    return jax.random.randint(key, shape, low, high, dtype)


def _negative_binomial(key: Any, shape: tuple, dtype: Any, n: Any, p: Any) -> Any:
    k1, k2 = jax.random.split(key)
    rate = jax.random.gamma(k1, jnp.broadcast_to(n, shape), shape) * (1 - p) / p
    return jax.random.poisson(k2, rate, shape)


def _multinomial(key: Any, shape: tuple, dtype: Any, n: Any, p: Any) -> Any:
    return jax.random.multinomial(key, n, p, shape=shape)


def _permutation(key: Any, shape: tuple, dtype: Any, x: Any) -> Any:
    if jnp.ndim(x) == 0:
        return jax.random.permutation(key, int(x))
    return jax.random.permutation(key, x, independent=False)


SAMPLERS: dict[type, Callable[..., Any]] = {
    rb.NormalRV: _loc_scale(jax.random.normal),
    rb.UniformRV: lambda k, s, d, lo, hi: jax.random.uniform(k, s, d, lo, hi),
    rb.HalfNormalRV: _loc_scale(lambda k, s, d: jnp.abs(jax.random.normal(k, s, d))),
    rb.LogNormalRV: lambda k, s, d, m, sd: jnp.exp(m + sd * jax.random.normal(k, s, d)),
    rb.ExponentialRV: lambda k, s, d, scale: scale * jax.random.exponential(k, s, d),
    rb.GammaRV: _gamma,
    rb.InvGammaRV: _invgamma,
    rb.BetaRV: lambda k, s, d, a, b: jax.random.beta(k, a, b, s, d),
    rb.CauchyRV: _loc_scale(jax.random.cauchy),
    rb.HalfCauchyRV: _loc_scale(lambda k, s, d: jnp.abs(jax.random.cauchy(k, s, d))),
    rb.LaplaceRV: _loc_scale(jax.random.laplace),
    rb.LogisticRV: _loc_scale(jax.random.logistic),
    rb.GumbelRV: _loc_scale(jax.random.gumbel),
    rb.StudentTRV: _student_t,
    rb.ChiSquareRV: lambda k, s, d, df: jax.random.chisquare(k, df, s, d),
    rb.ParetoRV: lambda k, s, d, b, scale: scale * jax.random.pareto(k, b, s, d),
    rb.WeibullRV: lambda k, s, d, a: jax.random.weibull_min(k, 1.0, a, s, d),
    rb.BernoulliRV: lambda k, s, d, p: jax.random.bernoulli(k, p, s).astype(d),
    rb.BinomialRV: lambda k, s, d, n, p: jax.random.binomial(k, n, p, s).astype(d),
    rb.PoissonRV: lambda k, s, d, lam: jax.random.poisson(k, lam, s).astype(d),
    rb.GeometricRV: lambda k, s, d, p: jax.random.geometric(k, p, s).astype(d),
    rb.IntegersRV: _integers,
    rb.MvNormalRV: _mvnormal,
    rb.DirichletRV: _dirichlet,
    rb.CategoricalRV: _categorical,
    rb.PermutationRV: _permutation,
    rb.NegBinomialRV: _negative_binomial,
    rb.GenGammaRV: lambda k, s, d, alpha, p, lambd: lambd * jax.random.gamma(
        k, jnp.broadcast_to(alpha / p, s), s, d) ** (1.0 / p),
    rb.WaldRV: lambda k, s, d, mean, scale: scale * jax.random.wald(
        k, jnp.broadcast_to(mean / scale, s), s, d),
    rb.MultinomialRV: _multinomial,
    rb.TriangularRV: lambda k, s, d, lo, mode, hi: jax.random.triangular(k, lo, mode, hi, s, d),
}
"""RandomVariable class -> ``f(key, shape, dtype, *params)`` (extend it for new RVs)."""


def _sampler(op: RandomVariable) -> Callable[..., Any]:
    for cls in type(op).__mro__:
        if cls in SAMPLERS:
            return SAMPLERS[cls]
    raise JAXUnsupportedOpError(
        f"No JAX sampler for the random variable {op} ({type(op).__name__}): add one to "
        "opgraph.link.jax.dispatch.random.SAMPLERS or register it with jax_funcify"
    )


def _draw_shape(node: Apply, size: Any, params: list[Any], op: RandomVariable) -> tuple:
    static = node.outputs[1].type.shape
    if all(d is not None for d in static):
        return tuple(static)
    if not _is_none(size):
        batch = static_ints(size, "size", op)
    else:
        nd = op.ndims_params
        batch = jnp.broadcast_shapes(*[jnp.shape(p)[: jnp.ndim(p) - k]
                                       for p, k in zip(params, nd)]) if params else ()
    core = _core_shape(op, params)
    return tuple(batch) + core


def _is_none(value: Any) -> bool:
    return value is None or (isinstance(value, np.ndarray) and value.size == 0
                             and value.dtype == object)


def _core_shape(op: RandomVariable, params: list[Any]) -> tuple:
    if isinstance(op, rb.ChoiceWithoutReplacement):
        nd_a = op.ndims_params[0]
        trailing = jnp.shape(params[0])[jnp.ndim(params[0]) - nd_a + 1:] if nd_a > 1 else ()
        return static_ints(params[-1], "core shape", op) + tuple(trailing)
    if isinstance(op, rb.MvNormalRV):
        return (jnp.shape(params[0])[-1],)
    if isinstance(op, rb.DirichletRV | rb.MultinomialRV):
        return (jnp.shape(params[-1])[-1],)
    return ()


@singledispatch
def jax_sample_fn(op: Any, node: Apply | None = None) -> Callable[..., Any]:
    """``sample_fn(key, shape, dtype, *params) -> draw`` for a RandomVariable (register yours)."""
    sample = _sampler(op)

    def sample_fn(key: Any, shape: tuple, dtype: Any, *params: Any) -> Any:
        return sample(key, shape, dtype, *params)

    return sample_fn


@jax_sample_fn.register(rb.PermutationRV)
def _sample_permutation(op: Any, node: Apply | None = None) -> Callable[..., Any]:
    """Each batch entry permuted independently (its own key)."""

    def sample_fn(key: Any, shape: tuple, dtype: Any, x: Any) -> Any:
        core = op.ndims_params[0]
        if jnp.ndim(x) == 0:
            return _permutation(key, shape, dtype, x)
        x = jnp.broadcast_to(x, shape)  # the batch of ``size`` as well as x's own
        batch = jnp.shape(x)[: jnp.ndim(x) - core] if core else ()
        if not batch:
            return _permutation(key, shape, dtype, x)
        flat = jnp.reshape(x, (-1, *jnp.shape(x)[len(batch):]))
        keys = jax.random.split(key, flat.shape[0])
        out = jax.vmap(lambda k, v: jax.random.permutation(k, v))(keys, flat)
        return jnp.reshape(out, jnp.shape(x))

    return sample_fn


@jax_funcify.register(RandomVariable)
def _funcify_rv(op: RandomVariable, node: Apply | None = None, **kwargs: Any) -> Callable:
    sample = jax_sample_fn(op, node)
    dtype = node.outputs[1].type.dtype if node is not None else None

    def random_variable(rng: Any, size: Any, *params: Any) -> tuple[Any, Any]:
        key = generator_to_key(rng)
        next_key, sub = jax.random.split(key)
        shape = _draw_shape(node, size, list(params), op)
        draw = sample(sub, shape, dtype, *params)
        return next_key, jnp.asarray(draw).astype(dtype)

    return random_variable


jax_funcify_RandomVariable = _funcify_rv  # PyTensor's name for this translation


def _known_when_compiled(var: Variable) -> bool:
    """True when ``var`` is a constant or is computed from constants and shapes only."""
    if isinstance(var, Constant):
        return True
    if var.owner is None:
        return False
    if isinstance(var.owner.op, Shape | Shape_i):
        return True
    return all(_known_when_compiled(v) for v in var.owner.inputs)


def assert_size_argument_jax_compatible(node: Apply) -> None:
    """Raise ``NotImplementedError`` (:data:`SIZE_NOT_COMPATIBLE`) when the size of the draw
    ``node`` depends on an input's value, which JAX cannot compile."""
    if not _known_when_compiled(node.inputs[1]):
        raise JAXUnsupportedOpError(SIZE_NOT_COMPATIBLE)


# PyTensor's names for its per-distribution sample functions; here each is what
# ``jax_sample_fn`` dispatches to for that distribution (random_more registers some).
_SAMPLE_FN_NAMES = {
    "jax_sample_fn_generic": rb.BetaRV,
    "jax_sample_fn_loc_scale": rb.NormalRV,
    "jax_sample_mvnormal": rb.MvNormalRV,
    "jax_sample_fn_bernoulli": rb.BernoulliRV,
    "jax_sample_fn_categorical": rb.CategoricalRV,
    "jax_sample_fn_uniform": rb.UniformRV,
    "jax_sample_fn_shape_scale": rb.GammaRV,
    "jax_sample_fn_exponential": rb.ExponentialRV,
    "jax_sample_fn_t": rb.StudentTRV,
    "jax_funcify_choice": rb.ChoiceWithoutReplacement,
    "jax_sample_fn_permutation": rb.PermutationRV,
    "jax_sample_fn_binomial": rb.BinomialRV,
    "jax_sample_fn_multinomial": rb.MultinomialRV,
    "jax_sample_fn_vonmises": rb.VonMisesRV,
}


def __getattr__(name: str) -> Any:
    if name in _SAMPLE_FN_NAMES:
        return jax_sample_fn.dispatch(_SAMPLE_FN_NAMES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
