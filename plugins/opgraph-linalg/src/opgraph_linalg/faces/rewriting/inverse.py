"""``opgraph.tensor.rewriting.linalg.inverse``."""

from __future__ import annotations

from opgraph_linalg.rewrites import inv_to_solve
from opgraph_linalg.rewrites_inverse import (
    inv_of_diag_to_diag_reciprocal,
    inv_of_orthogonal_to_transpose,
)
from opgraph_linalg.rewrites_structure import (
    inv_of_inv,
    lift_linalg_of_expanded_matrices,
    transpose_of_inv,
)

__all__ = [
    "inv_of_diag_to_diag_reciprocal",
    "inv_of_inv",
    "inv_of_orthogonal_to_transpose",
    "inv_to_solve",
    "lift_linalg_of_expanded_matrices",
    "transpose_of_inv",
]
