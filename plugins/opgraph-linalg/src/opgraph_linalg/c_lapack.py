"""C support code for the linalg Ops: LAPACK through SciPy's ``cython_lapack`` capsules.

No header and no link flag: ``scipy.linalg.cython_lapack.__pyx_capi__`` holds
a capsule per LAPACK routine (the pointer into the LAPACK SciPy ships), read
once on first use.  A C-ordered matrix is its transpose in Fortran order, so
the routines run on the arrays as they are, flipping ``uplo``/``trans``
instead of copying.  Each ``ogla_*`` function computes one core (unbatched)
result and returns a new array, or NULL with a Python exception set; the
messages are those of the Ops' Python ``perform``.  The C is package data,
``c/lapack.h`` (read with :func:`opgraph.link.c.template.c_source`).
"""

from __future__ import annotations

from opgraph.link.c.template import c_source

__all__ = ["BLAS_ROUTINES", "ROUTINES", "SUPPORT"]

#: the LAPACK routines used (both precisions must exist for the C path)
ROUTINES = ("potrf", "trtrs", "getrf", "getrs", "gecon", "potrs", "pocon", "sygst")
#: the BLAS routines used (from ``scipy.linalg.cython_blas``)
BLAS_ROUTINES = ("trmm",)

SUPPORT = (c_source(__package__, "c/lapack.h") + c_source(__package__, "c/small.h")
           + c_source(__package__, "c/structured.h"))
"""The ``ogla_*`` functions and the capsule lookups, one text for every module that uses them
(``c/small.h``: loops for the Cholesky factor and triangular solves of double matrices up to
64 rows, where LAPACK's calls and copies cost more than the arithmetic; ``c/structured.h``:
the Cholesky pullback and the diagonal Ops)."""
