"""``opgraph.tensor.rewriting.linalg.summary``."""

from __future__ import annotations

from opgraph_linalg.rewrites_logprod import local_log_prod_to_sum_log
from opgraph_linalg.rewrites_structure import det_of_inv, det_of_triangular
from opgraph_linalg.rewrites_summary import (
    det_of_factorized_matrix,
    det_of_matrix_factorized_elsewhere,
    slogdet_specialization,
)

__all__ = [
    "det_of_factorized_matrix",
    "det_of_inv",
    "det_of_matrix_factorized_elsewhere",
    "det_of_triangular",
    "local_log_prod_to_sum_log",
    "slogdet_specialization",
]
