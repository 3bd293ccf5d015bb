"""PyTensor's ``link.jax.dispatch.pad`` path: ``pad`` as ``jnp.pad``."""

from opgraph.tensor.pad import Pad
from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_pad"]

jax_funcify_pad = registered_translation(Pad)
