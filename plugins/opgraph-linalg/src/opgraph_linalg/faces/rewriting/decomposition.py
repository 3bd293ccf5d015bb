"""``opgraph.tensor.rewriting.linalg.decomposition``."""

from __future__ import annotations

from opgraph_linalg.rewrites_structure import cholesky_ldotlt

__all__ = ["cholesky_ldotlt"]
