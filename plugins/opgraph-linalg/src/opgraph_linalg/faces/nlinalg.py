"""``opgraph.tensor.nlinalg``: PyTensor's older path, deprecated; names forward to
``opgraph.tensor.linalg`` with a ``DeprecationWarning``."""

from __future__ import annotations

from opgraph_linalg import _WHERE
from opgraph_linalg.faces._shim import make_getattr

__all__ = sorted(_WHERE)
__getattr__ = make_getattr("opgraph.tensor.nlinalg")
