"""``opgraph.tensor.rewriting.linalg.solvers``."""

from __future__ import annotations

from opgraph_linalg.rewrites import psd_solve_to_cho_solve

psd_solve_to_chol_solve = psd_solve_to_cho_solve

__all__ = ["psd_solve_to_chol_solve"]
