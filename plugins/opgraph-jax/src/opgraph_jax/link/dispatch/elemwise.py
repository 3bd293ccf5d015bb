"""PyTensor's ``link.jax.dispatch.elemwise`` path (opgraph translates these in
``dispatch.scalar``, one table for scalar and elementwise Ops, and ``dispatch.math``)."""

from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.reduction import CAReduce
from opgraph.tensor.special import LogSoftmax, Softmax
from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_CAReduce", "jax_funcify_DimShuffle", "jax_funcify_Elemwise",
           "jax_funcify_LogSoftmax", "jax_funcify_Softmax"]

jax_funcify_CAReduce = registered_translation(CAReduce)
jax_funcify_DimShuffle = registered_translation(DimShuffle)
jax_funcify_Elemwise = registered_translation(Elemwise)
jax_funcify_LogSoftmax = registered_translation(LogSoftmax)
jax_funcify_Softmax = registered_translation(Softmax)
