"""``opgraph.tensor.linalg.products``."""

from __future__ import annotations

from opgraph_linalg.products import (
    Expm,
    KroneckerProduct,
    expm,
    kron,
    matrix_dot,
    matrix_power,
)

__all__ = ["Expm", "KroneckerProduct", "expm", "kron", "matrix_dot", "matrix_power"]
