"""``opgraph.tensor.linalg.solvers.psd``."""

from __future__ import annotations

from opgraph_linalg.solvers import (
    CholeskySolve,
    cho_solve,
)

__all__ = ["CholeskySolve", "cho_solve"]
