"""The C support of the BLAS emitters: CBLAS prototypes and operand helpers.

One text for every BLAS, ``runtime/blas_support.h``: :func:`blas_support`
fills in the integer type and the symbol names of the CBLAS that
:func:`opgraph_c.codegen.blas.find_blas` found (``@BLASINT@``, ``@PREFIX@``,
``@SUFFIX@``, filled by :func:`opgraph.link.c.template.c_source`).  The
helpers are what lets a node hand BLAS its operands as they are: the leading
dimension and transpose flag of a row- or column-major matrix, the stride of
a vector, and a copy only when neither works.
"""

from __future__ import annotations

from opgraph.link.c.template import c_source

__all__ = ["blas_support"]


def blas_support(int_type: str, prefix: str, suffix: str) -> str:
    """The support C for a CBLAS with ``og_blasint`` = ``int_type`` and symbols
    ``<prefix>cblas_dgemm<suffix>``."""
    return c_source(__package__, "runtime/blas_support.h",
                    BLASINT=int_type, PREFIX=prefix, SUFFIX=suffix)
