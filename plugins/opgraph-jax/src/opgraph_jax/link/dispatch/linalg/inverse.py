"""PyTensor's ``link.jax.dispatch.linalg.inverse`` path."""

from opgraph.tensor.linalg import MatrixInverse, MatrixPinv

from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_MatrixInverse", "jax_funcify_Pinv"]

jax_funcify_MatrixInverse = registered_translation(MatrixInverse)
jax_funcify_Pinv = registered_translation(MatrixPinv)
