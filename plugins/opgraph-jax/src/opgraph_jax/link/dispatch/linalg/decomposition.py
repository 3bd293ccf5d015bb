"""PyTensor's ``link.jax.dispatch.linalg.decomposition`` path (one table in the package)."""

from opgraph.tensor.linalg import (
    LU,
    QR,
    SVD,
    Cholesky,
    Eig,
    Eigh,
    Eigvalsh,
    LUFactor,
    PivotToPermutations,
    Schur,
)

from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_Cholesky", "jax_funcify_Eig", "jax_funcify_Eigh",
           "jax_funcify_Eigvalsh", "jax_funcify_LU", "jax_funcify_LUFactor",
           "jax_funcify_PivotToPermutation", "jax_funcify_QR", "jax_funcify_SVD",
           "jax_funcify_Schur"]

jax_funcify_Cholesky = registered_translation(Cholesky)
jax_funcify_Eig = registered_translation(Eig)
jax_funcify_Eigh = registered_translation(Eigh)
jax_funcify_Eigvalsh = registered_translation(Eigvalsh)
jax_funcify_LU = registered_translation(LU)
jax_funcify_LUFactor = registered_translation(LUFactor)
jax_funcify_PivotToPermutation = registered_translation(PivotToPermutations)
jax_funcify_QR = registered_translation(QR)
jax_funcify_SVD = registered_translation(SVD)
jax_funcify_Schur = registered_translation(Schur)
