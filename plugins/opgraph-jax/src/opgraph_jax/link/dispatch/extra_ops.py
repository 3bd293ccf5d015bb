"""PyTensor's ``link.jax.dispatch.extra_ops`` path (translated in ``dispatch.math``)."""

from opgraph.tensor.extra_ops import (
    Bartlett,
    CumOp,
    FillDiagonal,
    FillDiagonalOffset,
    RavelMultiIndex,
    Repeat,
    SearchsortedOp,
    Unique,
    UnravelIndex,
)
from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_Bartlett", "jax_funcify_CumOp", "jax_funcify_FillDiagonal",
           "jax_funcify_FillDiagonalOffset", "jax_funcify_RavelMultiIndex",
           "jax_funcify_Repeat", "jax_funcify_SearchsortedOp", "jax_funcify_Unique",
           "jax_funcify_UnravelIndex"]

jax_funcify_Bartlett = registered_translation(Bartlett)
jax_funcify_CumOp = registered_translation(CumOp)
jax_funcify_FillDiagonal = registered_translation(FillDiagonal)
jax_funcify_FillDiagonalOffset = registered_translation(FillDiagonalOffset)
jax_funcify_RavelMultiIndex = registered_translation(RavelMultiIndex)
jax_funcify_Repeat = registered_translation(Repeat)
jax_funcify_SearchsortedOp = registered_translation(SearchsortedOp)
jax_funcify_Unique = registered_translation(Unique)
jax_funcify_UnravelIndex = registered_translation(UnravelIndex)
