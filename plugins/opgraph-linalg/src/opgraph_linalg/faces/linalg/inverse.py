"""``opgraph.tensor.linalg.inverse``."""

from __future__ import annotations

from opgraph_linalg.inverse import (
    MatrixInverse,
    MatrixPinv,
    TensorInv,
    inv,
    matrix_inverse,
    pinv,
    tensorinv,
)

__all__ = ["MatrixInverse", "MatrixPinv", "TensorInv", "inv", "matrix_inverse", "pinv",
           "tensorinv"]
