"""``opgraph.tensor.linalg.decomposition.eigen``."""

from __future__ import annotations

from opgraph_linalg.decomposition import (
    Eig,
    Eigh,
    Eigvalsh,
    eig,
    eigh,
    eigvalsh,
)

__all__ = ["Eig", "Eigh", "Eigvalsh", "eig", "eigh", "eigvalsh"]
