"""``opgraph.tensor.linalg.solvers.core``."""

from __future__ import annotations

from opgraph_linalg.solvers import (
    SolveBase,
)

__all__ = ["SolveBase"]
