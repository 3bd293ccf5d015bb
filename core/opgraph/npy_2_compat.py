"""NumPy 1 behaviours that PyTensor code still relies on, for NumPy 2.

``old_np_unique`` gives ``np.unique``'s inverse indices in NumPy 1's shape
(flattened, or one entry per slice along ``axis``); NumPy 2 returns them in
the input's shape. opgraph's ``Unique`` op follows the NumPy 1 shape too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["old_np_unique"]


def old_np_unique(
    arr: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
) -> Any:
    """``np.unique`` with the inverse indices shaped as NumPy 1 shaped them."""
    result = np.unique(arr, return_index, return_inverse, return_counts, axis)
    if not return_inverse:
        return result
    parts = list(result)
    k = 2 if return_index else 1
    length = np.size(arr) if axis is None else np.shape(arr)[axis]
    parts[k] = np.reshape(parts[k], (length,))
    return tuple(parts)
