"""The dask graph of a row region: one task per row chunk for every fused output.

Each chunk task runs :meth:`TileProgram.run_chunk` on that chunk of every
data input (the dask chunk, or the rows of a memory-mapped file, read by the
task itself) and returns the chunk's row-local exports and partial
reductions; partials are combined by a tree of small tasks.  All outputs of
the region share the chunk tasks, so ``logp`` and its gradient read the data
once per call.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import dask.array as da
import numpy as np
from dask import delayed

from opgraph.graph.basic import Apply, Variable
from opgraph_dask.cluster import compute
from opgraph_dask.memmap import MemmapSource
from opgraph_dask.rows import RowRegion, find_region
from opgraph_dask.tiles import TILE_BYTES, FileRows, TileProgram, combine_partials
from opgraph_dask.translate import is_lazy

__all__ = ["FUSE_MIN_BYTES", "RowPlan", "build_region", "plan_rows"]

#: data smaller than this (bytes of the row inputs) is not fused: compiling costs more
FUSE_MIN_BYTES = 4 << 20
#: how many partial results one combining task takes
COMBINE_FAN_IN = 16


@attrs.define(eq=False)
class RowPlan:
    region: RowRegion
    program: TileProgram


def row_signature(inputs: Sequence[Variable], env: dict[Variable, Any]) -> tuple[int, ...]:
    """Positions of the data inputs: the dask arrays with as many rows (known, > 0) as
    the largest one."""
    lazy = [(k, env[v]) for k, v in enumerate(inputs) if is_lazy(env.get(v)) and env[v].ndim]
    if not lazy or any(math.isnan(s) for _, a in lazy for s in a.shape):
        return ()
    n = max(lazy, key=lambda item: item[1].nbytes)[1].shape[0]
    rows = [(k, a) for k, a in lazy if a.shape[0] == n]
    if n == 0 or sum(a.nbytes for _, a in rows) < FUSE_MIN_BYTES:
        return ()
    return tuple(k for k, _ in rows)


def plan_rows(order: Sequence[Apply], inputs: Sequence[Variable],
              outputs: Sequence[Variable], signature: tuple[int, ...]) -> RowPlan | None:
    """The row region for the data inputs at ``signature``, or None."""
    if not signature:
        return None
    region = find_region(order, [inputs[k] for k in signature], outputs)
    if region is None:
        return None
    return RowPlan(region, TileProgram(region))


def build_region(plan: RowPlan, env: dict[Variable, Any], value: Callable[[Variable], Any],
                 sources: dict[Variable, MemmapSource]) -> None:
    """Put the region's exports in ``env`` as dask arrays (nothing is computed but
    the small outer values)."""
    region, program = plan.region, plan.program
    rows = [env[v] for v in region.row_inputs]
    outer = [value(v) for v in region.outer_inputs]
    lazy = [k for k, o in enumerate(outer) if is_lazy(o)]
    for k, o in zip(lazy, compute(*[outer[k] for k in lazy])):
        outer[k] = np.asarray(o)
    shapes = program.probe(rows, outer)

    lead = max(range(len(rows)), key=lambda k: rows[k].nbytes)
    bounds = np.cumsum((0, *rows[lead].chunks[0])).tolist()
    per_input = [_chunk_args(var, arr, rows[lead].chunks[0], bounds, sources.get(var))
                 for var, arr in zip(region.row_inputs, rows)]
    row_bytes = sum(a.dtype.itemsize * int(np.prod(a.shape[1:], dtype=np.int64)) for a in rows)
    tile_rows = max(64, TILE_BYTES // max(row_bytes, 1))

    n_exp = len(program.row_axes)
    n_out = n_exp + len(program.combine)
    run = delayed(program.run_chunk, pure=False, nout=n_out)
    chunk_outs = [run(tile_rows, shapes, [args[i] for args in per_input], *outer)
                  for i in range(len(bounds) - 1)]
    if n_out == 1:
        chunk_outs = [(c,) for c in chunk_outs]

    exported = list(region.row_exports) + list(region.reduce_exports)
    for k, var in enumerate(exported[:n_exp]):
        ra = program.row_axes[k]
        blocks = []
        for i, outs in enumerate(chunk_outs):
            shape = list(shapes[k])
            shape[ra] = bounds[i + 1] - bounds[i]
            blocks.append(da.from_delayed(outs[k], shape=tuple(shape), dtype=program.dtypes[k]))
        env[var] = da.concatenate(blocks, axis=ra)
    for j, var in enumerate(exported[n_exp:]):
        k = n_exp + j
        name, dtype = program.combine[j], program.dtypes[k]
        parts = [outs[k] for outs in chunk_outs]
        combine = delayed(combine_partials, pure=False)
        while True:
            parts = [combine(name, dtype, *parts[i:i + COMBINE_FAN_IN])
                     for i in range(0, len(parts), COMBINE_FAN_IN)]
            if len(parts) == 1:
                break
        env[var] = da.from_delayed(parts[0], shape=shapes[k], dtype=dtype)


def _chunk_args(var: Variable, arr: da.Array, row_chunks: tuple[int, ...],
                bounds: list[int], source: MemmapSource | None) -> list[Any]:
    """Per row chunk: a FileRows (a C-ordered file read by the task) or the dask chunk."""
    if source is not None and source.order == "C":
        return [FileRows(source, a, b) for a, b in itertools.pairwise(bounds)]
    target = (row_chunks, *((n,) for n in arr.shape[1:]))
    if arr.chunks != target:
        arr = arr.rechunk(target)
    return list(arr.to_delayed().reshape(-1))
