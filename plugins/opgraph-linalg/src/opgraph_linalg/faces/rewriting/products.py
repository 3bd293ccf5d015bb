"""``opgraph.tensor.rewriting.linalg.products``."""

from __future__ import annotations

from opgraph_linalg.rewrites_structure import diag_of_kronecker

__all__ = ["diag_of_kronecker"]
