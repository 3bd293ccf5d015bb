"""One chunk of a row region, computed tile by tile with one compiled function.

A :class:`TileProgram` is the region rebuilt on inputs whose row length is
unknown; it pickles as that small graph (no compiled code, not the user's
graph) and is compiled on first use in each thread of each process (FAST_RUN,
so the C linker's kernels when opgraph-c is installed), since a compiled
function's storage must not be shared by concurrent calls.

:meth:`TileProgram.run_chunk` cuts its chunk into tiles of ``tile_rows``
rows, small enough to stay in cache while the one call computes every
row-local value and partial reduction of the tile: the data are read from
memory once, not once per product.  Rows of a memory-mapped file are read
tile by tile with ``preadv`` into a buffer the thread reuses, so neither the
chunk nor the mapping is ever resident; partial reductions are combined as
the tiles go.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.link.basic import raise_with_op
from opgraph.tensor.type import TensorType
from opgraph_dask.compiled import aligned, compiled
from opgraph_dask.kernels import run_node
from opgraph_dask.memmap import MemmapSource
from opgraph_dask.rows import RowRegion

__all__ = ["FileRows", "TileProgram", "combine_partials"]

#: bytes of row inputs per tile: the tile and its temporaries stay in a core's cache
TILE_BYTES = 1 << 20

_LOCAL = threading.local()


class FileRows:
    """Rows ``start:stop`` of a C-ordered memory-mapped array file (read where the task runs)."""

    def __init__(self, source: MemmapSource, start: int, stop: int) -> None:
        self.source = source
        self.start = start
        self.stop = stop

    @property
    def n_rows(self) -> int:
        return self.stop - self.start

    def __repr__(self) -> str:
        return f"FileRows({self.source.filename!r}, {self.start}:{self.stop})"


class TileProgram:
    """The region's nodes on tile-shaped inputs; outputs: row exports, then partials."""

    def __init__(self, region: RowRegion) -> None:
        mapping: dict[Variable, Variable] = {}
        for v in region.row_inputs:
            shape = (None, *v.type.shape[1:])
            mapping[v] = TensorType(v.type.dtype, shape)(name=v.name)
        for v in region.outer_inputs:
            mapping[v] = v.type(name=v.name)
        self.nodes: list[Apply] = []
        for node in region.nodes:
            new = node.op.make_node(*[mapping[i] for i in node.inputs])
            self.nodes.append(new)
            mapping.update(zip(node.outputs, new.outputs))
        self.inputs = [mapping[v] for v in (*region.row_inputs, *region.outer_inputs)]
        self.n_row_inputs = len(region.row_inputs)
        self.row_axes = list(region.row_exports.values())
        self.combine = list(region.reduce_exports.values())
        self.outputs = [mapping[v] for v in (*region.row_exports, *region.reduce_exports)]
        self.dtypes = [v.type.numpy_dtype for v in self.outputs]
        self.token = uuid.uuid4().hex
        self._original = list(region.nodes)  # for error notes; not pickled

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_original"] = []
        return state

    def probe(self, row_values: Sequence[Any], outer_values: Sequence[Any]) -> list[tuple]:
        """Run the nodes on one-row stand-ins: the Ops' own shape errors, and output shapes.

        Returns each output's shape for one row (partials: their final shape).
        """
        env: dict[Variable, Any] = {}
        for var, value in zip(self.inputs, row_values):
            env[var] = np.zeros((1, *value.shape[1:]), dtype=var.type.numpy_dtype)
        env.update(zip(self.inputs[self.n_row_inputs:], outer_values))
        for k, node in enumerate(self.nodes):
            try:
                results = run_node(node, [env[v] for v in node.inputs])
            except Exception as exc:
                if self._original:
                    raise_with_op(exc, self._original[k], None)
                raise
            env.update(zip(node.outputs, results))
        return [np.shape(env[v]) for v in self.outputs]

    def _compiled(self) -> Any:
        return compiled(self.token, self.inputs, self.outputs)

    def run_chunk(self, tile_rows: int, shapes: Sequence[tuple], rows: Sequence[Any],
                  *outer: Any) -> tuple:
        """(row exports of this chunk..., partial reductions...) for one chunk.

        ``rows`` holds, per row input, the chunk (an array) or a :class:`FileRows`;
        ``shapes`` the outputs' one-row shapes from :meth:`probe`.
        """
        rows, outer = aligned(rows), aligned(outer)
        n = _n_rows(rows[0])
        n_exp = len(self.row_axes)
        pieces: list[list[np.ndarray]] = [[] for _ in range(n_exp)]
        partials: list[Any] = [None] * len(self.combine)
        if n:
            fn = self._compiled()
            with _Readers(self.token, rows, tile_rows) as readers:
                for start in range(0, n, tile_rows):
                    stop = min(n, start + tile_rows)
                    outs = fn(*[r(start, stop) for r in readers], *outer)
                    for k in range(n_exp):
                        pieces[k].append(np.array(outs[k]))
                    for k, name in enumerate(self.combine):
                        p = outs[n_exp + k]
                        partials[k] = (np.array(p) if partials[k] is None
                                       else getattr(np, name)(partials[k], p))
        exports = []
        for k, ra in enumerate(self.row_axes):
            if pieces[k]:
                exports.append(np.concatenate(pieces[k], axis=ra))
            else:
                shape = list(shapes[k])
                shape[ra] = 0
                exports.append(np.empty(shape, self.dtypes[k]))
        return (*exports, *partials)


def combine_partials(name: str, dtype: Any, *partials: Any) -> np.ndarray:
    """The combination of the chunks' partial reductions (empty chunks give None)."""
    present = [p for p in partials if p is not None]
    result = present[0]
    for p in present[1:]:
        result = getattr(np, name)(result, p)
    return np.asarray(result, dtype=dtype)


def _n_rows(value: Any) -> int:
    return value.n_rows if isinstance(value, FileRows) else int(value.shape[0])


class _Readers:
    """Per row input, ``reader(start, stop)`` -> that tile (a view, or read into a buffer)."""

    def __init__(self, token: str, rows: Sequence[Any], tile_rows: int) -> None:
        self.token = token
        self.rows = rows
        self.tile_rows = tile_rows
        self.fds: list[int] = []

    def __enter__(self) -> list[Any]:
        return [self._reader(k, r) for k, r in enumerate(self.rows)]

    def __exit__(self, *exc: Any) -> None:
        for fd in self.fds:
            os.close(fd)

    def _reader(self, k: int, rows: Any) -> Any:
        if not isinstance(rows, FileRows):
            return lambda start, stop: rows[start:stop]
        src = rows.source
        fd = os.open(src.filename, os.O_RDONLY)
        self.fds.append(fd)
        tail = src.shape[1:]
        row_bytes = src.dtype.itemsize * int(np.prod(tail, dtype=np.int64))
        buf = _buffer((self.token, k), (self.tile_rows, *tail), src.dtype)
        base = src.offset + rows.start * row_bytes

        def read(start: int, stop: int) -> np.ndarray:
            out = buf[:stop - start]
            view = memoryview(out.reshape(-1).view(np.uint8))
            pos, total = 0, (stop - start) * row_bytes
            while pos < total:
                got = os.preadv(fd, [view[pos:]], base + start * row_bytes + pos)
                if got <= 0:
                    raise OSError(f"{src.filename}: unexpected end of file reading rows "
                                  f"{rows.start + start}:{rows.start + stop}")
                pos += got
            return out

        return read


def _buffer(key: Any, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """This thread's reusable tile buffer for ``key`` (a program's row input)."""
    buffers = getattr(_LOCAL, "buffers", None)
    if buffers is None:
        buffers = _LOCAL.buffers = {}
    buf = buffers.get(key)
    if buf is None or buf.shape != shape or buf.dtype != dtype:
        if len(buffers) > 64:
            buffers.clear()
        buf = buffers[key] = np.empty(shape, dtype)
    return buf
