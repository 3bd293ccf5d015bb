"""PyTensor's JAX random rewrites (``tensor.random.rewriting.jax``): draws of a
distribution rebuilt from draws of simpler ones, and sizes made static tuples.

opgraph-jax samples every distribution directly (``link.dispatch.random``), so
the JAX mode does not need these; they are registered opt-in under their names
and the group ``random_vars_opt`` (``mode.including("random_vars_opt")``) for
code that asks for PyTensor's graphs. Each keeps the draw's distribution and
threads the generator through every draw it makes.
"""

from __future__ import annotations

import re
from typing import Any

import opgraph.tensor as pt
import opgraph.tensor.random.basic as rb
from opgraph.graph.basic import Apply, Constant
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.graph.rewriting.walking import in2out
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.random.op import RandomVariable
from opgraph.tensor.shape import MakeVector
from opgraph_jax.shape_tuple import JAXShapeTuple

__all__ = ["beta_binomial_from_beta_binomial", "generalized_gamma_from_gamma",
           "geometric_from_uniform", "halfnormal_from_normal", "inverse_gamma_from_gamma",
           "lognormal_from_normal", "materialize_implicit_arange_choice_without_replacement",
           "negative_binomial_from_gamma_poisson", "random_vars_opt", "register_rewrites",
           "size_parameter_as_tuple", "wald_from_normal_uniform"]


def _as_output_dtype(node: Apply, value: Any) -> Any:
    return pt.cast(value, node.outputs[1].type.dtype)


@node_rewriter([RandomVariable])
def size_parameter_as_tuple(fgraph: Any, node: Apply) -> list[Any] | None:
    """A draw's ``size`` built from scalars (``MakeVector`` or a scalar made a vector)
    becomes a ``JAXShapeTuple`` of them, which JAX takes as a static shape."""
    size = node.inputs[1].owner
    if size is None or isinstance(size.op, JAXShapeTuple):
        return None
    from_scalar = isinstance(size.op, DimShuffle) and size.op.input_ndim == 0 \
        and tuple(size.op.new_order) == ("x",)
    if not isinstance(size.op, MakeVector) and not from_scalar:
        return None
    inputs = list(node.inputs)
    inputs[1] = JAXShapeTuple()(*size.inputs)
    return node.op.make_node(*inputs).outputs


@node_rewriter([rb.LogNormalRV])
def lognormal_from_normal(fgraph: Any, node: Apply) -> list[Any]:
    """``lognormal(m, s) = exp(normal(m, s))``."""
    next_rng, draw = rb.normal.make_node(*node.inputs).outputs
    return [next_rng, _as_output_dtype(node, pt.exp(draw))]


@node_rewriter([rb.HalfNormalRV])
def halfnormal_from_normal(fgraph: Any, node: Apply) -> list[Any]:
    """``halfnormal(loc, scale) = loc + |normal(0, scale)|``."""
    rng, size, loc, scale = node.inputs
    next_rng, draw = rb.normal.make_node(rng, size, pt.zeros_like(loc), scale).outputs
    return [next_rng, _as_output_dtype(node, pt.abs(draw) + loc)]


@node_rewriter([rb.GeometricRV])
def geometric_from_uniform(fgraph: Any, node: Apply) -> list[Any]:
    """``geometric(p) = floor(log(u) / log1p(-p)) + 1`` with ``u`` uniform on (0, 1)."""
    rng, size, p = node.inputs
    next_rng, u = rb.uniform.make_node(rng, size, pt.zeros_like(p), 1.0).outputs
    return [next_rng, _as_output_dtype(node, pt.floor(pt.log(u) / pt.log1p(-p)) + 1)]


@node_rewriter([rb.NegBinomialRV])
def negative_binomial_from_gamma_poisson(fgraph: Any, node: Apply) -> list[Any]:
    """``negative_binomial(n, p) = poisson(gamma(n, (1 - p) / p))``."""
    rng, size, n, p = node.inputs
    next_rng, rate = rb._gamma.make_node(rng, size, n, (1 - p) / p).outputs
    next_rng, draw = rb.poisson.make_node(next_rng, size, rate).outputs
    return [next_rng, _as_output_dtype(node, draw)]


@node_rewriter([rb.InvGammaRV])
def inverse_gamma_from_gamma(fgraph: Any, node: Apply) -> list[Any]:
    """``invgamma(a, b) = 1 / gamma(a, 1 / b)``."""
    rng, size, shape, scale = node.inputs
    next_rng, draw = rb._gamma.make_node(rng, size, shape, 1 / scale).outputs
    return [next_rng, _as_output_dtype(node, pt.reciprocal(draw))]


@node_rewriter([rb.GenGammaRV])
def generalized_gamma_from_gamma(fgraph: Any, node: Apply) -> list[Any]:
    """``gengamma(alpha, p, lambd) = lambd * gamma(alpha / p, 1) ** (1 / p)``."""
    rng, size, alpha, p, lambd = node.inputs
    next_rng, draw = rb._gamma.make_node(rng, size, alpha / p, pt.ones_like(lambd)).outputs
    return [next_rng, _as_output_dtype(node, draw ** pt.reciprocal(p) * lambd)]


@node_rewriter([rb.WaldRV])
def wald_from_normal_uniform(fgraph: Any, node: Apply) -> list[Any]:
    """Michael, Schucany and Haas's transformation: one normal and one uniform draw."""
    rng, size, mean, scale = node.inputs
    next_rng, n = rb.normal.make_node(rng, size, pt.zeros_like(mean),
                                      pt.ones_like(scale)).outputs
    next_rng, u = rb.uniform.make_node(next_rng, size, pt.zeros_like(mean),
                                       pt.ones_like(scale)).outputs
    y = mean * n * n
    x = mean + mean / (2 * scale) * (y - pt.sqrt(4 * scale * y + y * y))
    draw = pt.switch(u <= mean / (mean + x), x, mean * mean / x)
    return [next_rng, _as_output_dtype(node, draw)]


@node_rewriter([rb.BetaBinomialRV])
def beta_binomial_from_beta_binomial(fgraph: Any, node: Apply) -> list[Any]:
    """``betabinom(n, a, b) = binomial(n, beta(a, b))``."""
    rng, size, n, a, b = node.inputs
    n, a, b = pt.broadcast_arrays(n, a, b)
    next_rng, prob = rb.beta.make_node(rng, size, a, b).outputs
    next_rng, draw = rb.binomial.make_node(next_rng, size, n, prob).outputs
    return [next_rng, _as_output_dtype(node, draw)]


@node_rewriter([rb.ChoiceWithoutReplacement])
def materialize_implicit_arange_choice_without_replacement(fgraph: Any,
                                                           node: Apply) -> list[Any] | None:
    """A batched choice from ``range(a)`` (scalar ``a``) draws from ``arange(a)`` itself:
    JAX's choice maps over the batch and cannot take a 0-d population."""
    op = node.op
    batch_ndim = node.outputs[1].type.ndim - op.ndim_supp
    if batch_ndim == 0 or op.ndims_params[0] > 0:
        return None
    rng, size, a, *rest = node.inputs
    if not all(a.type.broadcastable):
        return None  # a batched scalar population has no one arange
    count = a.data.squeeze() if isinstance(a, Constant) else a.squeeze()
    population = pt.arange(count)
    props = dict(op._props_dict())
    props["signature"] = re.sub(r"\(\)", "(a)", op.signature, count=1)
    return type(op)(**props).make_node(rng, size, population, *rest).outputs


_COMPOSITIONS = (lognormal_from_normal, halfnormal_from_normal, geometric_from_uniform,
                 negative_binomial_from_gamma_poisson, inverse_gamma_from_gamma,
                 generalized_gamma_from_gamma, wald_from_normal_uniform,
                 beta_binomial_from_beta_binomial)

random_vars_opt = in2out(*_COMPOSITIONS, name="random_vars_opt")


def register_rewrites(db: Any) -> None:
    """Opt-in entries: the group and each rewrite under its own name."""
    db.register("random_vars_opt", random_vars_opt, "random_vars_opt", phase="specialize")
    for rewrite in (*_COMPOSITIONS, materialize_implicit_arange_choice_without_replacement,
                    size_parameter_as_tuple):
        name = rewrite.__name__
        db.register(f"jax_{name}", in2out(rewrite, name=name), name, phase="specialize")
