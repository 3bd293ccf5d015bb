"""What PyTensor code imports from ``pytensor.tensor.rewriting.blas_c``: the rewrites
that move Gemv and Ger onto their C implementations (opgraph-c supplies the code;
the standard database runs them together as ``use_c_blas``)."""

from __future__ import annotations

from opgraph_rewrites.blas import use_c_gemv, use_c_ger

__all__ = ["use_c_gemv", "use_c_ger"]
