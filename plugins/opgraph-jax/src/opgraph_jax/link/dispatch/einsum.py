"""PyTensor's ``link.jax.dispatch.einsum`` path: Einsum as ``jnp.einsum``."""

from opgraph.tensor.einsum import Einsum
from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_Einsum"]

jax_funcify_Einsum = registered_translation(Einsum)
