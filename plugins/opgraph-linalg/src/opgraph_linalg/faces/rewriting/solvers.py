"""``opgraph.tensor.rewriting.linalg.solvers``."""

from __future__ import annotations

from opgraph_linalg.rewrites import psd_solve_to_cho_solve
from opgraph_linalg.rewrites_decomposition import (
    decompose_A,
    reuse_decomposition_multiple_solves,
    scan_split_non_sequence_decomposition_and_solve,
    solve_decomposed_system,
)
from opgraph_linalg.rewrites_solvers import (
    batched_vector_b_solve_to_matrix_b_solve,
    block_diag_solve_to_block_diag_solves,
    diagonal_solve_to_division,
    generic_solve_to_structured_form,
    orthogonal_solve_to_transpose_matmul,
    paired_triangular_solves_to_cho_solve,
    solve_of_inv_to_matmul,
    solve_sylvester_of_diag,
)
from opgraph_linalg.rewrites_structure import (
    generic_solve_to_solve_triangular,
    scalar_solve_to_division,
)

psd_solve_to_chol_solve = psd_solve_to_cho_solve

__all__ = [
    "batched_vector_b_solve_to_matrix_b_solve",
    "block_diag_solve_to_block_diag_solves",
    "decompose_A",
    "diagonal_solve_to_division",
    "generic_solve_to_solve_triangular",
    "generic_solve_to_structured_form",
    "orthogonal_solve_to_transpose_matmul",
    "paired_triangular_solves_to_cho_solve",
    "psd_solve_to_chol_solve",
    "reuse_decomposition_multiple_solves",
    "scalar_solve_to_division",
    "scan_split_non_sequence_decomposition_and_solve",
    "solve_decomposed_system",
    "solve_of_inv_to_matmul",
    "solve_sylvester_of_diag",
]
