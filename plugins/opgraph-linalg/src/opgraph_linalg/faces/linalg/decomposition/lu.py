"""``opgraph.tensor.linalg.decomposition.lu``."""

from __future__ import annotations

from opgraph_linalg.factor import (
    LU,
    LUFactor,
    PivotToPermutations,
    lu,
    lu_factor,
    pivot_to_permutation,
)

__all__ = ["LU", "LUFactor", "PivotToPermutations", "lu", "lu_factor", "pivot_to_permutation"]
