"""PyTensor's ``link.jax.dispatch.linalg.summary`` path."""

from opgraph.tensor.linalg import Det, SLogDet

from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_Det", "jax_funcify_SLogDet"]

jax_funcify_Det = registered_translation(Det)
jax_funcify_SLogDet = registered_translation(SLogDet)
