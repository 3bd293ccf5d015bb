"""``hash_from_sparse``: a content hash of a scipy sparse matrix."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

__all__ = ["hash_from_sparse"]


def hash_from_sparse(data: Any) -> str:
    """An md5 hex digest of the matrix's format, shape, dtype and canonical content.

    Views and copies of the same matrix hash equal (the buffers are made
    contiguous first); matrices differing in any entry, shape or dtype do not.
    """
    h = hashlib.md5()
    for part in (data.format, str(data.shape), str(data.dtype)):
        h.update(part.encode())
    for arr in (data.data, data.indices, data.indptr):
        arr = np.ascontiguousarray(arr)
        h.update(str(arr.dtype).encode())
        h.update(str(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()
