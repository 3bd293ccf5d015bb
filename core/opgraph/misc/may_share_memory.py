"""``may_share_memory(a, b)``: whether two values may overlap in memory (NumPy's check)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["may_share_memory"]


def may_share_memory(a: Any, b: Any, raise_other_type: bool = True) -> bool:
    """``np.may_share_memory`` for arrays; other values never share memory.

    With ``raise_other_type`` a value that is neither a NumPy array nor
    ``None`` raises TypeError instead.
    """
    known = (np.ndarray, type(None))
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.may_share_memory(a, b))
    if raise_other_type and not (isinstance(a, known) and isinstance(b, known)):
        raise TypeError(
            "may_share_memory: expected NumPy arrays (or None), got "
            f"{type(a).__name__} and {type(b).__name__}"
        )
    return False
