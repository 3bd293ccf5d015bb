"""``opgraph.tensor.linalg.solvers.lu``."""

from __future__ import annotations

from opgraph_linalg.solvers import (
    LUSolve,
    lu_solve,
)

__all__ = ["LUSolve", "lu_solve"]
