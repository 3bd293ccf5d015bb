"""Shared variables of a scalar Type (PyTensor's ``scalar.sharedvar``).

``shared(3.0)`` of the compile package gives a 0-d tensor; this ``shared`` gives a
shared *scalar* (a ScalarType variable, usable directly in scalar graphs and
Composites).  It is not registered with ``shared()``, as in PyTensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.link.sharedvalue import SharedVariable
from opgraph.scalar.type import ScalarVariable, get_scalar_type

__all__ = ["ScalarSharedVariable", "shared"]


class ScalarSharedVariable(ScalarVariable, SharedVariable):
    """A shared variable holding one number, with the scalar operators."""


def shared(value: Any, name: str | None = None, strict: bool = False,
           allow_downcast: bool | None = None) -> ScalarSharedVariable:
    """A shared scalar of ``value``'s dtype (Python int -> int64, float -> float64)."""
    if isinstance(value, bool) or not isinstance(value, np.number | float | int | complex):
        raise TypeError(f"scalar shared: expected a number, got {type(value).__name__}")
    dtype = str(getattr(value, "dtype", np.asarray(value).dtype))
    return ScalarSharedVariable(type=get_scalar_type(dtype), value=getattr(np, dtype)(value),
                                name=name, strict=strict, allow_downcast=allow_downcast)
