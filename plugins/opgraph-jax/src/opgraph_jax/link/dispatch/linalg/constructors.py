"""PyTensor's ``link.jax.dispatch.linalg.constructors`` path."""

from opgraph.tensor.linalg import BlockDiagonal

from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_BlockDiagonalMatrix"]

jax_funcify_BlockDiagonalMatrix = registered_translation(BlockDiagonal)
