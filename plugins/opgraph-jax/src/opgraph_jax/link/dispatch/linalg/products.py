"""PyTensor's ``link.jax.dispatch.linalg.products`` path."""

from opgraph.tensor.linalg import Expm, KroneckerProduct

from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_Expm", "jax_funcify_KroneckerProduct"]

jax_funcify_Expm = registered_translation(Expm)
jax_funcify_KroneckerProduct = registered_translation(KroneckerProduct)
