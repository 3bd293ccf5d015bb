"""``opgraph.tensor.linalg``: every public name of the package, at PyTensor's path."""

from __future__ import annotations

import importlib

from opgraph_linalg import _WHERE

__all__ = sorted(_WHERE)

for _name in __all__:
    globals()[_name] = getattr(importlib.import_module(f"opgraph_linalg.{_WHERE[_name]}"), _name)
del _name

# PyTensor's package also binds the tridiagonal LU helpers of ``solvers.tridiagonal``
from opgraph_linalg.tridiagonal import tridiagonal_lu_factor, tridiagonal_lu_solve  # noqa: E402

__all__ += ["tridiagonal_lu_factor", "tridiagonal_lu_solve"]
