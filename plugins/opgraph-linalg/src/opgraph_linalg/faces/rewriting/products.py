"""``opgraph.tensor.rewriting.linalg.products``."""

from __future__ import annotations

from opgraph_linalg.rewrites_products import (
    det_of_blockdiag,
    diag_of_blockdiag,
    expm_of_diag,
    fuse_blockdiagonal,
    kron_of_diagonal_to_diagonal,
    orthogonal_dot_transpose_to_eye,
)
from opgraph_linalg.rewrites_structure import det_of_kronecker, diag_of_kronecker

__all__ = [
    "det_of_blockdiag",
    "det_of_kronecker",
    "diag_of_blockdiag",
    "diag_of_kronecker",
    "expm_of_diag",
    "fuse_blockdiagonal",
    "kron_of_diagonal_to_diagonal",
    "orthogonal_dot_transpose_to_eye",
]
