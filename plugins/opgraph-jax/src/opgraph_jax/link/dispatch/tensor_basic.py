"""PyTensor's ``link.jax.dispatch.tensor_basic`` path (translated in ``dispatch.tensor``)."""

from opgraph.tensor.linalg import ExtractDiag

from opgraph.tensor.basic import AllocEmpty, ScalarFromTensor, TensorFromScalar
from opgraph.tensor.creation import Alloc, ARange, Eye
from opgraph.tensor.join import Join, Split
from opgraph.tensor.shape import MakeVector
from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["ARANGE_CONCRETE_VALUE_ERROR", "jax_funcify_ARange", "jax_funcify_Alloc",
           "jax_funcify_AllocEmpty", "jax_funcify_ExtractDiag", "jax_funcify_Eye",
           "jax_funcify_Join", "jax_funcify_MakeVector", "jax_funcify_ScalarFromTensor",
           "jax_funcify_Split", "jax_funcify_TensorFromScalar"]

ARANGE_CONCRETE_VALUE_ERROR = (
    "JAX needs the start, stop and step of arange as values known when it compiles "
    "(constants, or computed from shapes); they depend on an input's value here."
)

jax_funcify_ARange = registered_translation(ARange)
jax_funcify_Alloc = registered_translation(Alloc)
jax_funcify_AllocEmpty = registered_translation(AllocEmpty)
jax_funcify_ExtractDiag = registered_translation(ExtractDiag)
jax_funcify_Eye = registered_translation(Eye)
jax_funcify_Join = registered_translation(Join)
jax_funcify_MakeVector = registered_translation(MakeVector)
jax_funcify_ScalarFromTensor = registered_translation(ScalarFromTensor)
jax_funcify_Split = registered_translation(Split)
jax_funcify_TensorFromScalar = registered_translation(TensorFromScalar)
