"""``opgraph.tensor.linalg.solvers.tridiagonal``."""

from __future__ import annotations

from opgraph_linalg.tridiagonal import (
    LUFactorTridiagonal,
    SolveLUFactorTridiagonal,
    tridiagonal_lu_factor,
    tridiagonal_lu_solve,
)

__all__ = [
    "LUFactorTridiagonal",
    "SolveLUFactorTridiagonal",
    "tridiagonal_lu_factor",
    "tridiagonal_lu_solve",
]
