"""PyTensor's ``pytensor.tensor.blas_c`` names: the BLAS Ops a C backend implements.

In opgraph the C code of an Op comes from the C plugin, not from a separate Op
class, so ``CGemv``/``CGer`` are the same computations as ``Gemv``/``Ger``
under PyTensor's names.
"""

from __future__ import annotations

from opgraph.tensor.blas import Gemv, Ger

__all__ = ["CGemv", "CGer"]


class CGemv(Gemv):
    """``Gemv`` under PyTensor's C-backend name."""


class CGer(Ger):
    """``Ger`` under PyTensor's C-backend name."""
