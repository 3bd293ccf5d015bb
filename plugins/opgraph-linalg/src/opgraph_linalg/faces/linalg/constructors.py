"""``opgraph.tensor.linalg.constructors``."""

from __future__ import annotations

from opgraph_linalg.constructors import (
    BlockDiagonal,
    block_diag,
)

__all__ = ["BlockDiagonal", "block_diag"]
