"""Memory-mapped inputs read chunk by chunk from their file, where the chunk runs.

A ``numpy.memmap`` (``numpy.load(path, mmap_mode="r")``) handed to dask as
is would be pickled with all its data to reach a cluster's workers.  Instead
the array is described by its file, offset, dtype, shape and order; each
chunk task opens the file and reads its slice, so a worker holds one chunk at
a time and data larger than any worker's memory (or the machine's) streams
through.  The file must be readable by the workers (same machine, or a shared
filesystem).
"""

from __future__ import annotations

import mmap
from typing import Any

import numpy as np

__all__ = ["MemmapSource", "memmap_source"]


class MemmapSource:
    """A read-only array-like over a file region: ``shape``, ``dtype``, ``ndim`` and
    ``__getitem__`` (what ``dask.array.from_array`` needs); pickles as a path."""

    def __init__(self, filename: str, dtype: np.dtype, shape: tuple[int, ...], offset: int,
                 order: str) -> None:
        self.filename = filename
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        self.ndim = len(self.shape)
        self.offset = offset
        self.order = order

    def __getitem__(self, index: Any) -> np.ndarray:
        mm = np.memmap(self.filename, dtype=self.dtype, mode="r", offset=self.offset,
                       shape=self.shape, order=self.order)
        chunk = np.array(mm[index])  # a copy, so the mapping goes with ``mm``
        del mm
        return chunk

    def __repr__(self) -> str:
        return f"MemmapSource({self.filename!r}, {self.dtype}, {self.shape})"


def memmap_source(value: np.ndarray) -> MemmapSource | None:
    """A :class:`MemmapSource` for a whole memory-mapped file array, else None (views
    of one, and ordinary arrays, are passed to dask as they are)."""
    if not isinstance(value, np.memmap) or not isinstance(value.base, mmap.mmap):
        return None
    filename = getattr(value, "filename", None)
    if not filename:
        return None
    if value.flags.c_contiguous:
        order = "C"
    elif value.flags.f_contiguous:
        order = "F"
    else:
        return None
    return MemmapSource(filename, value.dtype, value.shape, int(value.offset), order)
