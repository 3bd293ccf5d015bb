"""``opgraph.tensor.rewriting.linalg.decomposition``."""

from __future__ import annotations

from opgraph_linalg.rewrites_diag import (
    cholesky_of_diag,
    eigh_of_diag,
    eigvalsh_of_diag,
    lu_factor_of_diag,
    lu_of_diag,
    qr_of_diag,
    qz_of_diag,
    schur_of_diag,
    svd_of_diag,
)
from opgraph_linalg.rewrites_inverse import eig_to_eigh, svd_uv_merge
from opgraph_linalg.rewrites_structure import cholesky_ldotlt

__all__ = [
    "cholesky_ldotlt",
    "cholesky_of_diag",
    "eig_to_eigh",
    "eigh_of_diag",
    "eigvalsh_of_diag",
    "lu_factor_of_diag",
    "lu_of_diag",
    "qr_of_diag",
    "qz_of_diag",
    "schur_of_diag",
    "svd_of_diag",
    "svd_uv_merge",
]
