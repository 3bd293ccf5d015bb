"""``opgraph.tensor.rewriting.linalg.utils``."""

from __future__ import annotations

from opgraph_linalg.rewrite_utils import (
    ASSUME_A_OF_TRANSPOSE,
    MATRIX_INVERSE_OPS,
    get_assume_a,
    is_eye_mul,
    is_matrix_transpose,
    logger,
    matrix_diagonal_product,
    useless_symmetric_transpose,
)

__all__ = [
    "ASSUME_A_OF_TRANSPOSE",
    "MATRIX_INVERSE_OPS",
    "get_assume_a",
    "is_eye_mul",
    "is_matrix_transpose",
    "logger",
    "matrix_diagonal_product",
    "useless_symmetric_transpose",
]
