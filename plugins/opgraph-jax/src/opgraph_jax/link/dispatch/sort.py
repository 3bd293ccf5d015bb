"""PyTensor's ``link.jax.dispatch.sort`` path: sort and argsort (``jnp.sort``/``argsort``)."""

from opgraph.tensor.sort import ArgSortOp, SortOp
from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_ArgSort", "jax_funcify_Sort"]

jax_funcify_ArgSort = registered_translation(ArgSortOp)
jax_funcify_Sort = registered_translation(SortOp)
