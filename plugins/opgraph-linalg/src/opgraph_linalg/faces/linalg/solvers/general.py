"""``opgraph.tensor.linalg.solvers.general``."""

from __future__ import annotations

from opgraph_linalg.solvers import (
    Solve,
    solve,
)

__all__ = ["Solve", "solve"]
