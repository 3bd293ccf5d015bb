"""``opgraph.tensor.rewriting.linalg.summary``."""

from __future__ import annotations

from opgraph_linalg.rewrites_logprod import local_log_prod_to_sum_log
from opgraph_linalg.rewrites_structure import det_of_inv, det_of_kronecker, det_of_triangular

__all__ = ["det_of_inv", "det_of_kronecker", "det_of_triangular", "local_log_prod_to_sum_log"]
