"""``opgraph.tensor.linalg.decomposition.cholesky``."""

from __future__ import annotations

from opgraph_linalg.decomposition import (
    Cholesky,
    cholesky,
)

__all__ = ["Cholesky", "cholesky"]
