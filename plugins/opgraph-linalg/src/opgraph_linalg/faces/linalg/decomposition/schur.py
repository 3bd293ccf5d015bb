"""``opgraph.tensor.linalg.decomposition.schur``."""

from __future__ import annotations

from opgraph_linalg.schur_decomp import QZ, Schur, qz, schur

__all__ = ["QZ", "Schur", "qz", "schur"]
