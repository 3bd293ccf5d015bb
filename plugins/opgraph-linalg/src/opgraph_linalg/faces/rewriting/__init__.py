"""``opgraph.tensor.rewriting.linalg``: the linear-algebra rewrites under PyTensor's module names.

The rewrites live in :mod:`opgraph_linalg.rewrites` and
:mod:`opgraph_linalg.rewrites_structure`; these modules re-export them where
PyTensor code imports them (``from pytensor.tensor.rewriting.linalg.inverse
import inv_to_solve``).  docs/migrating.md lists the PyTensor rewrites opgraph
does not have yet.
"""

from __future__ import annotations

from opgraph_linalg.rewrites import (
    cholesky_of_cholesky_product,
    inv_to_solve,
    log_det_to_slogdet,
    psd_solve_to_cho_solve,
    transposed_triangular_solve,
)
from opgraph_linalg.rewrites_structure import (
    det_of_inv,
    det_of_kronecker,
    diag_of_kronecker,
    inv_of_inv,
    lift_linalg_of_expanded_matrices,
    transpose_of_inv,
)

psd_solve_to_chol_solve = psd_solve_to_cho_solve

__all__ = [
    "cholesky_of_cholesky_product",
    "det_of_inv",
    "det_of_kronecker",
    "diag_of_kronecker",
    "inv_of_inv",
    "inv_to_solve",
    "lift_linalg_of_expanded_matrices",
    "log_det_to_slogdet",
    "psd_solve_to_chol_solve",
    "transpose_of_inv",
    "transposed_triangular_solve",
]
