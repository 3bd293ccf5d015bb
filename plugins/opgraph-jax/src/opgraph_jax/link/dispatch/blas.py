"""PyTensor's ``link.jax.dispatch.blas`` path: the batched matrix product's translation."""

from opgraph.tensor.blas import BatchedDot
from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_BatchedDot"]

jax_funcify_BatchedDot = registered_translation(BatchedDot)
