"""PyTensor's ``pytensor.tensor.blas_c`` names: the BLAS Ops a C backend implements.

In opgraph the C code of an Op comes from the C plugin (through its emitter
table), not from the Op class, so ``CGemv``/``CGer`` compute exactly what
``Gemv``/``Ger`` compute.  They are distinct classes (``CGer(True) !=
Ger(True)``) because PyTensor code checks which one a compiled graph holds:
the ``c_blas`` rewrites of opgraph-rewrites swap them in.
"""

from __future__ import annotations

from opgraph.tensor.blas import Gemv, Ger, must_initialize_y_gemv

__all__ = ["CGemv", "CGer", "cgemv_inplace", "cgemv_no_inplace", "cger_inplace",
           "cger_no_inplace", "must_initialize_y_gemv"]


class CGemv(Gemv):
    """``Gemv`` as the C backend runs it (one CBLAS ``gemv`` call)."""


class CGer(Ger):
    """``Ger`` as the C backend runs it (one rank-1 update loop)."""


cgemv_inplace = CGemv(inplace=True)
cgemv_no_inplace = CGemv(inplace=False)
cger_inplace = CGer(destructive=True)
cger_no_inplace = CGer(destructive=False)
