"""Linear algebra over named core dims: ``cholesky`` and ``solve`` (xarray-einstats' API)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.tensor import linalg as tla
from opgraph_xtensor.xtensor.basic import as_xtensor
from opgraph_xtensor.xtensor.type import XTensorVariable
from opgraph_xtensor.xtensor.vectorization import XBlockwise

__all__ = ["cholesky", "solve"]


def cholesky(x: Any, lower: bool = True, *, check_finite: bool = False,
             overwrite_a: bool = False, on_error: str = "raise", dims: Sequence[str]
             ) -> XTensorVariable:
    """The Cholesky factor of ``x`` over the two ``dims`` (rows, columns)."""
    if len(dims) != 2 or isinstance(dims, str):
        raise ValueError(f"Cholesky needs two dims, got {dims!r}")
    x = as_xtensor(x)
    core = tuple(dims)
    return XBlockwise(tla.cholesky, ((core,), (core,)),
                      (("lower", lower), ("check_finite", check_finite),
                       ("on_error", on_error)))(x)


def solve(a: Any, b: Any, dims: Sequence[str], assume_a: str = "gen", lower: bool = False,
          check_finite: bool = False) -> XTensorVariable:
    """``x`` with ``a @ x = b``: ``dims`` are a's two core dims, plus b's extra one (matrix b)."""
    a, b = as_xtensor(a), as_xtensor(b)
    if isinstance(dims, str) or len(dims) not in (2, 3):
        raise ValueError(f"Solve dims must have length 2 or 3, got {dims!r}")
    m1, m2 = dims[0], dims[1]
    if len(dims) == 2:
        core = (((m1, m2), (m2,)), ((m1,),))
        b_ndim = 1
    else:
        core = (((m1, m2), (m2, dims[2])), ((m1, dims[2]),))
        b_ndim = 2
    return XBlockwise(tla.solve, core, (("assume_a", assume_a), ("lower", lower),
                                        ("check_finite", check_finite), ("b_ndim", b_ndim)))(a, b)
