"""``opgraph.tensor.linalg.decomposition.svd``."""

from __future__ import annotations

from opgraph_linalg.factor import (
    SVD,
    svd,
)

__all__ = ["SVD", "svd"]
