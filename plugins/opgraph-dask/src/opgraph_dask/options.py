"""Per-call options of the dask linker, set with a context manager.

A compiled function's signature is fixed, so options that vary per call
(how NumPy inputs are chunked, whether results stay lazy) are read from a
context variable when the function runs; the linker's own options are the
defaults.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
from collections.abc import Iterator
from typing import Any

__all__ = ["UNSET", "chunks_for", "current_options", "dask_options", "default_chunks"]

#: the default chunking cuts rows into pieces of at most this many bytes ...
CHUNK_MAX_BYTES = 64 << 20
#: ... and, for work over several cores, of at least this many bytes
CHUNK_MIN_BYTES = 4 << 20
#: chunks per core for an array large enough (load balance vs per-task cost)
CHUNKS_PER_CORE = 4
#: the cores this process may run on (dask's threaded scheduler starts as many threads)
CPU_COUNT = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
    os.cpu_count() or 1)

UNSET: Any = object()

_OPTIONS: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "opgraph_dask_options", default=None
)
_KNOWN = ("chunks", "lazy")


@contextlib.contextmanager
def dask_options(*, chunks: Any = UNSET, lazy: Any = UNSET) -> Iterator[None]:
    """Override the dask linker's ``chunks`` and/or ``lazy`` for calls made inside.

    ``chunks`` is anything ``dask.array.from_array`` accepts (``"auto"``, an
    int, a tuple); ``lazy=True`` returns dask arrays instead of NumPy arrays.
    """
    if lazy is not UNSET and not isinstance(lazy, bool):
        raise TypeError(f"dask_options: lazy must be a bool, got {type(lazy).__name__}")
    new = dict(_OPTIONS.get() or {})
    for key, value in (("chunks", chunks), ("lazy", lazy)):
        if value is not UNSET:
            new[key] = value
    token = _OPTIONS.set(new)
    try:
        yield
    finally:
        _OPTIONS.reset(token)


def current_options(defaults: dict[str, Any]) -> dict[str, Any]:
    """``defaults`` updated with the options of the innermost :func:`dask_options`."""
    merged = {k: defaults.get(k) for k in _KNOWN}
    merged.update(_OPTIONS.get() or {})
    return merged


def chunks_for(chunks: Any, ndim: int, name: str | None = None, position: int | None = None) -> Any:
    """The chunking of one array of rank ``ndim`` from the ``chunks`` option.

    A dict maps input names (or positions) to chunkings, others get
    ``"auto"``; a tuple gives one entry per dimension (padded with ``"auto"``,
    or cut, to ``ndim``); anything else (``"auto"``, an int, a byte size
    string) applies to every dimension.
    """
    if isinstance(chunks, dict):
        key = name if name is not None and name in chunks else position
        chunks = chunks.get(key, "auto")
    if isinstance(chunks, tuple | list):
        chunks = tuple(chunks[:ndim]) + ("auto",) * (ndim - len(chunks))
    return chunks


def default_chunks(shape: tuple[int, ...], itemsize: int, cores: int = CPU_COUNT) -> Any:
    """The ``"auto"`` chunking of a NumPy input: whole rows, in a multiple of ``cores``
    pieces (about four per core, 4-64 MB each) so every core gets the same share.

    An array whose rows are too few to cut this way gets dask's own ``"auto"``.
    """
    rows = shape[0]
    total = rows * itemsize * math.prod(shape[1:])
    if total == 0:
        return "auto"
    pieces = max(math.ceil(total / CHUNK_MAX_BYTES),
                 min(CHUNKS_PER_CORE * cores, total // CHUNK_MIN_BYTES))
    if pieces <= 1:
        return shape
    pieces = math.ceil(pieces / cores) * cores
    if rows < pieces:
        return "auto"
    return (math.ceil(rows / pieces), *shape[1:])
