"""``opgraph.tensor.linalg.solvers.triangular``."""

from __future__ import annotations

from opgraph_linalg.solvers import (
    SolveTriangular,
    solve_triangular,
)

__all__ = ["SolveTriangular", "solve_triangular"]
