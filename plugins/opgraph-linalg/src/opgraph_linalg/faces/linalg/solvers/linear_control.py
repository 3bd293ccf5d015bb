"""``opgraph.tensor.linalg.solvers.linear_control``."""

from __future__ import annotations

from opgraph_linalg.control import (
    SolveDiscreteARE,
    SolveSylvester,
    solve_continuous_lyapunov,
    solve_discrete_are,
    solve_discrete_lyapunov,
    solve_sylvester,
)

__all__ = [
    "SolveDiscreteARE",
    "SolveSylvester",
    "solve_continuous_lyapunov",
    "solve_discrete_are",
    "solve_discrete_lyapunov",
    "solve_sylvester",
]
