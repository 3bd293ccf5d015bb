"""PyTensor's ``link.jax.dispatch.blockwise`` path: Blockwise runs its core Op under ``vmap``."""

from opgraph.tensor.blockwise import Blockwise
from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_Blockwise"]

jax_funcify_Blockwise = registered_translation(Blockwise)
