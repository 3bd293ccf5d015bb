"""``opgraph.tensor.rewriting.linalg.summary``."""

from __future__ import annotations

from opgraph_linalg.rewrites_structure import det_of_inv, det_of_kronecker

__all__ = ["det_of_inv", "det_of_kronecker"]
