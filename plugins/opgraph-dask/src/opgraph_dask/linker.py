"""The ``"dask"`` linker: the rewritten graph becomes one dask graph per call.

Each call wraps the NumPy/memory-mapped tensor inputs as dask arrays
(``chunks``, default ``"auto"``; dask arrays keep their own), walks the nodes
in order through the translation table, then computes every output in one
``dask.compute`` (the active ``distributed.Client`` if there is one, else
dask's default scheduler).  Nodes whose inputs are all small concrete values
(shapes, indices, scalars) run directly with NumPy.  With ``lazy=True`` the
user outputs stay dask arrays; update values are always computed, since they
become shared state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import dask.array as da
import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.link.basic import Linker, LinkerResult, StorageCell, raise_with_op
from opgraph.tensor.type import TensorType
from opgraph_dask import fused, translate
from opgraph_dask.cluster import compute
from opgraph_dask.kernels import run_node
from opgraph_dask.memmap import MemmapSource, memmap_source
from opgraph_dask.options import chunks_for, current_options, default_chunks
from opgraph_dask.table import creates_arrays, lookup

__all__ = ["DaskLinker"]


@attrs.define
class CallContext:
    """What translators may read during one call: the chunking and the warnings given."""

    chunks: Any
    warned: set[str]
    sources: dict[Variable, MemmapSource]  # inputs read from memory-mapped files


class DaskLinker(Linker):
    """Translate the graph into dask and compute it (``chunks``, ``lazy``: see module doc)."""

    name = "dask"
    native_input_types = (da.Array,)  # kept as they are: their chunks are the user's

    def __init__(self, *, allow_gc: bool = True, chunks: Any = "auto", lazy: bool = False,
                 **options: Any) -> None:
        if not isinstance(lazy, bool):
            raise TypeError(f"DaskLinker: lazy must be a bool, got {type(lazy).__name__}")
        super().__init__(allow_gc=allow_gc, chunks=chunks, lazy=lazy, **options)

    def make_thunk(
        self,
        input_storage: Sequence[StorageCell] | None = None,
        output_storage: Sequence[StorageCell] | None = None,
        storage_map: dict[Variable, StorageCell] | None = None,
    ) -> LinkerResult:
        fgraph, order, input_storage, output_storage, storage_map = self.schedule(
            input_storage, output_storage, storage_map
        )
        translators = {node: lookup(node.op) for node in order}
        creators = {node for node in order if creates_arrays(node.op)}
        inputs = list(fgraph.inputs)
        outputs = list(fgraph.outputs)
        updates = set((fgraph.update_mapping or {}).keys())
        defaults = dict(self.options)
        warned: set[str] = set()

        plans: dict[tuple[int, ...], fused.RowPlan | None] = {}

        def translate_node(node: Apply, env: dict[Variable, Any], ctx: CallContext) -> None:
            values = [_value(v, env) for v in node.inputs]
            try:
                if node not in creators and not any(translate.is_lazy(v) for v in values):
                    results = run_node(node, values)
                else:
                    fn = translators[node] or translate.whole_array
                    results = fn(node, values, ctx)
            except Exception as exc:
                raise_with_op(exc, node, None)
                raise
            for var, value in zip(node.outputs, results):
                env[var] = value

        def run() -> None:
            opts = current_options(defaults)
            ctx = CallContext(opts["chunks"], warned, {})
            env: dict[Variable, Any] = {}
            given: dict[Variable, Any] = {}  # NumPy inputs as given: small ones feed tiles
            for k, (var, cell) in enumerate(zip(inputs, input_storage)):
                env[var] = _wrap_input(k, var, cell[0], ctx)
                if isinstance(cell[0], np.ndarray):
                    given[var] = cell[0]
            signature = fused.row_signature(inputs, env)
            if signature not in plans:
                plans[signature] = fused.plan_rows(order, inputs, outputs, signature)
            plan = plans[signature]
            if plan is None:
                for node in order:
                    translate_node(node, env, ctx)
            else:
                region = set(plan.region.nodes)
                for node in order:  # what the region reads, and what does not need it
                    if node not in region and node not in plan.region.after:
                        translate_node(node, env, ctx)
                fused.build_region(plan, env, lambda v: given[v] if v in given else _value(v, env),
                                   ctx.sources)
                for node in order:
                    if node in plan.region.after:
                        translate_node(node, env, ctx)
            finals = [_value(v, env) for v in outputs]
            pending = [k for k, v in enumerate(finals)
                       if translate.is_lazy(v) and (not opts["lazy"] or k in updates)]
            computed = compute(*[finals[k] for k in pending])
            for k, value in zip(pending, computed):
                finals[k] = _as_output(outputs[k], value)
            for cell, value in zip(output_storage, finals):
                cell[0] = value

        return LinkerResult(run, input_storage, output_storage, [], order)


def _value(var: Variable, env: dict[Variable, Any]) -> Any:
    if var in env:
        return env[var]
    if isinstance(var, Constant):
        return var.data
    raise KeyError(f"dask linker: no value for {var} (the graph is not in toposort order)")


def _wrap_input(position: int, var: Variable, value: Any, ctx: CallContext) -> Any:
    """A tensor input of at least one dimension as a dask array; others unchanged.

    A dask array reaches here only past ``function()``'s input check (with
    ``trust_input=True``), so its dtype and ndim are checked here.
    """
    if not isinstance(var.type, TensorType):
        return value
    if isinstance(value, da.Array):
        if value.dtype != var.type.numpy_dtype or value.ndim != var.type.ndim:
            raise TypeError(
                f"dask linker: bad value for input {position} ({var.name!r}), expected "
                f"{var.type}: got a dask array of dtype {value.dtype} with {value.ndim} "
                "dimension(s)"
            )
        return value
    if isinstance(value, np.ndarray) and value.ndim >= 1:
        source = memmap_source(value)
        if source is not None:
            ctx.sources[var] = source
        chunks = chunks_for(ctx.chunks, value.ndim, var.name, position)
        if isinstance(chunks, str) and chunks == "auto":
            chunks = default_chunks(value.shape, value.dtype.itemsize)
        # name=False: a random key instead of hashing the whole array on every call
        return da.from_array(value if source is None else source, chunks=chunks,
                             name=False, asarray=True)
    return value


def _as_output(var: Variable, value: Any) -> Any:
    """A computed value as the output Type's ndarray (dask may return a NumPy scalar)."""
    if isinstance(var.type, TensorType):
        value = np.asarray(value)
        if value.dtype != var.type.numpy_dtype:
            value = value.astype(var.type.numpy_dtype)
    return value


