"""``opgraph.tensor.linalg.solvers.general``: general solves, and ``lu_solve`` (solving
with a factorisation from ``lu_factor``), as PyTensor 3.0.7 places them."""

from __future__ import annotations

from opgraph_linalg.solvers import (
    Solve,
    SolveBase,
    lu_solve,
    solve,
    solve_triangular,
)

__all__ = ["Solve", "SolveBase", "lu_solve", "solve", "solve_triangular"]
