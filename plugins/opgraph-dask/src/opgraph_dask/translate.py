"""Translators for the Op families the dask backend runs chunk by chunk.

Elementwise nodes (fused Composites included) become one ``blockwise`` layer
whose task calls the node's NumPy kernel on each chunk; reductions use
dask's tree reductions; products use dask's blocked algorithms; shape and
indexing ops map to dask's own.  Everything else goes through
:func:`whole_array`: the inputs gathered into one chunk and the Op's NumPy
implementation run once, with one warning naming the Op.
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Sequence
from typing import Any

import dask.array as da
import numpy as np

from opgraph.compile.ops import DeepCopyOp
from opgraph.graph.basic import Apply
from opgraph.scalar import arith as sa
from opgraph.scalar import logic as sl
from opgraph.tensor.basic import ScalarFromTensor
from opgraph.tensor.creation import Alloc
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.extra_ops import CumOp
from opgraph.tensor.ifelse import IfElse
from opgraph.tensor.indexing import numpy_index
from opgraph.tensor.join import Join
from opgraph.tensor.products import Dot, MatMul
from opgraph.tensor.reduction import Argmax, Argmin, CAReduce
from opgraph.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape
from opgraph.tensor.subtensor import AdvancedSubtensor1, Subtensor
from opgraph_dask.cluster import compute
from opgraph_dask.kernels import node_kernel, run_node
from opgraph_dask.options import chunks_for
from opgraph_dask.table import register

__all__ = ["DaskFallbackWarning", "concrete", "is_lazy", "op_error", "whole_array"]


class DaskFallbackWarning(UserWarning):
    """An Op has no chunked dask implementation: it ran on the whole array."""


def is_lazy(value: Any) -> bool:
    return isinstance(value, da.Array)


def concrete(value: Any) -> Any:
    """A NumPy value for ``value`` (computes a dask array: meant for small ones)."""
    return np.asarray(compute(value)[0]) if is_lazy(value) else value


def _cast(arr: Any, var: Any) -> Any:
    dtype = var.type.numpy_dtype
    return arr if arr.dtype == dtype else arr.astype(dtype)


def _as_dask(value: Any) -> da.Array:
    if is_lazy(value):
        return value
    value = np.asarray(value)
    return da.from_array(value, chunks=value.shape or ())


# -- fallback -------------------------------------------------------------------------------


def whole_array(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    """Run ``node`` on its whole inputs (one chunk), warning once per Op per function."""
    key = str(node.op)
    if key not in ctx.warned:
        ctx.warned.add(key)
        warnings.warn(
            f"dask backend: {key} has no chunked implementation; it runs on the whole "
            "array gathered into one chunk (see docs/dask.md for the chunked ops)",
            DaskFallbackWarning,
            stacklevel=2,
        )
    lazy_pos = [i for i, v in enumerate(values) if is_lazy(v)]
    computed = compute(*[values[i] for i in lazy_pos])
    full = list(values)
    for i, v in zip(lazy_pos, computed):
        full[i] = v
    outs = run_node(node, full)
    # the results are cut again with the call's chunking, so later nodes run in parallel
    return [
        da.from_array(o, chunks=chunks_for(ctx.chunks, o.ndim), name=False)
        if isinstance(o, np.ndarray) and o.ndim and lazy_pos else o
        for o in outs
    ]


def _stand_in(value: Any) -> Any:
    """A zero-strided array shaped like ``value``: enough for an Op's shape checks."""
    if is_lazy(value):
        return np.broadcast_to(np.zeros((), value.dtype), value.shape)
    return value


def op_error(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    """Raise the error the Op itself gives for these input shapes (checked on stand-ins).

    Translators call this when the shapes cannot work; should the Op accept
    them after all, the node runs whole instead.
    """
    run_node(node, [_stand_in(v) for v in values])
    return whole_array(node, values, ctx)


# -- elementwise ----------------------------------------------------------------------------


@register(Elemwise)
def elemwise(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    """One blockwise layer per output; the task runs the node's kernel on a chunk."""
    ndim = node.outputs[0].type.ndim
    index = tuple(range(ndim))
    _check_broadcast(node, values)
    args: list[Any] = []
    for v in values:
        args.extend((_as_dask(v), index))
    outs = []
    for k, out in enumerate(node.outputs):
        outs.append(
            da.blockwise(
                node_kernel(node, k), index, *args,
                dtype=out.type.numpy_dtype, align_arrays=True,
            )
        )
    return outs


def _check_broadcast(node: Apply, values: Sequence[Any]) -> None:
    """Raise the Op's own error when lengths differ where no input is declared broadcastable.

    dask would broadcast any length-1 dimension; opgraph only the static ones.
    """
    shapes = [np.shape(v) for v in values]
    for d in range(node.outputs[0].type.ndim):
        lengths = {s[d] for s, var in zip(shapes, node.inputs) if var.type.shape[d] != 1}
        if len(lengths) > 1:
            run_node(node, [_stand_in(v) for v in values])


# -- reductions -----------------------------------------------------------------------------

_REDUCERS: dict[type, Any] = {
    sa.Add: da.sum,
    sa.Mul: da.prod,
    sa.Maximum: da.max,
    sa.Minimum: da.min,
    sl.AND: da.all,
    sl.OR: da.any,
}


@register(CAReduce)
def careduce(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    """Sum, prod, max, min, all, any as dask tree reductions."""
    op = node.op
    reducer = _REDUCERS.get(type(op.scalar_op))
    if reducer is None:
        return whole_array(node, values, ctx)
    x = _as_dask(values[0])
    axis = op.axis if op.axis is not None else tuple(range(x.ndim))
    out = node.outputs[0]
    if reducer in (da.sum, da.prod):
        acc = op.acc_dtype or out.type.dtype
        result = reducer(x, axis=axis, dtype=acc)
    else:
        if x.size == 0 and reducer in (da.max, da.min):
            return op_error(node, values, ctx)
        result = reducer(x, axis=axis)
    return [_cast(result, out)]


def _arg_reduce(node: Apply, values: Sequence[Any], ctx: Any, reducer: Any) -> list[Any]:
    x = _as_dask(values[0])
    axes = node.op.axis if node.op.axis is not None else tuple(range(x.ndim))
    if any(x.shape[a] == 0 for a in axes):
        return op_error(node, values, ctx)
    if len(axes) == x.ndim:
        return [_cast(reducer(x.reshape(-1)) if x.ndim else da.zeros((), "int64"),
                      node.outputs[0])]
    if len(axes) == 1:
        return [_cast(reducer(x, axis=axes[0]), node.outputs[0])]
    return whole_array(node, values, ctx)


@register(Argmax)
def argmax(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    """Index of the largest element: dask's chunked arg-reduction over one axis or all."""
    return _arg_reduce(node, values, ctx, da.argmax)


@register(Argmin)
def argmin(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    return _arg_reduce(node, values, ctx, da.argmin)


@register(CumOp)
def cumulative(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    """cumsum/cumprod: dask's chunked scan (per-chunk scans plus carried totals)."""
    x = _as_dask(values[0])
    if node.op.axis is None:
        x, axis = x.reshape(-1), 0
    else:
        axis = node.op.axis
        if not -x.ndim <= axis < x.ndim:
            return op_error(node, values, ctx)
    fn = da.cumsum if node.op.mode == "add" else da.cumprod
    return [_cast(fn(x, axis=axis), node.outputs[0])]


# -- products -------------------------------------------------------------------------------


@register(Dot)
def dot(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    x, y = (_as_dask(v) for v in values)
    if x.shape[-1] != y.shape[0]:
        return op_error(node, values, ctx)
    return [_cast(da.dot(x, y), node.outputs[0])]


@register(MatMul)
def matmul(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    x, y = (_as_dask(v) for v in values)
    xb, yb = x.shape[:-2], y.shape[:-2]
    inner_ok = x.shape[-1] == (y.shape[-2] if y.ndim > 1 else y.shape[0])
    if not inner_ok:
        return op_error(node, values, ctx)
    if xb and yb and xb != yb:  # batch lengths broadcast only where static (the Op decides)
        return whole_array(node, values, ctx)
    return [_cast(da.matmul(x, y), node.outputs[0])]


# -- shapes and indexing --------------------------------------------------------------------


@register(DimShuffle)
def dimshuffle(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    op = node.op
    x = values[0]
    if not is_lazy(x):
        return run_node(node, values)
    for d in op.drop:
        if x.shape[d] != 1:
            return op_error(node, values, ctx)
    if op.transposition != tuple(range(x.ndim)):
        x = x.transpose(op.transposition)
    if not op.new_order:
        return [x.reshape(())]
    index = tuple(None if o == "x" else slice(None) for o in op.new_order)
    index += (0,) * len(op.drop)
    return [x[index]]


@register(IfElse)
def if_else(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    """The condition is computed now; the other branch's dask graph is never computed."""
    n = node.op.n_outs
    cond = bool(np.asarray(concrete(values[0])))
    chosen = values[1:1 + n] if cond else values[1 + n:1 + 2 * n]
    return [_cast(_as_dask(v), var) if is_lazy(v) or np.ndim(v) else np.asarray(v, var.type.dtype)
            for v, var in zip(chosen, node.outputs)]


@register(ScalarFromTensor)
def scalar_from_tensor(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    """A 0-d tensor as a scalar value: computed now (scalars are never chunked)."""
    return run_node(node, [concrete(v) for v in values])


@register(Shape)
def shape(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    return [np.asarray(values[0].shape, dtype=node.outputs[0].type.numpy_dtype)]


@register(Shape_i)
def shape_i(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    return [np.asarray(values[0].shape[node.op.i], dtype=node.outputs[0].type.numpy_dtype)]


@register(DeepCopyOp)
def deep_copy(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    """A copy per chunk: a chunk may be a view of an input's memory (``da.from_array``)."""
    x = values[0]
    if isinstance(x, da.Array):
        # a name of its own: dask merges equal tasks, and two copies of one array (two
        # outputs, two updates) must stay two arrays
        return [x.map_blocks(np.copy, dtype=x.dtype, name=f"deep-copy-{uuid.uuid4().hex}")]
    return [np.copy(x) if isinstance(x, np.ndarray) else run_node(node, [x])[0]]


@register(SpecifyShape)
def specify_shape(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    x, *dims = values
    # the check only reads the shape: run it on an empty stand-in of the same shape
    run_node(node, [np.broadcast_to(np.zeros((), x.dtype), x.shape), *map(concrete, dims)])
    return [x]


@register(Reshape)
def reshape(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    x, shp = values
    target = tuple(int(s) for s in concrete(shp))
    known = [s for s in target if s != -1]
    size = int(np.prod(known)) if known else 1
    if len(target) != node.op.ndim or target.count(-1) > 1 or (
        -1 not in target and size != x.size
    ) or (-1 in target and (size == 0 or x.size % size)):
        return op_error(node, values, ctx)
    return [x.reshape(target, merge_chunks=True)]


@register(Subtensor)
def subtensor(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    x, *idx = values
    index = numpy_index(node.op.idx_spec, [concrete(i) for i in idx])
    for axis, entry in enumerate(index):
        if isinstance(entry, int | np.integer) and not -x.shape[axis] <= entry < x.shape[axis]:
            return op_error(node, values, ctx)
    return [x[index]]


@register(AdvancedSubtensor1)
def advanced_subtensor1(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    x, ilist = values
    ilist = concrete(ilist)
    n = x.shape[0]
    if ilist.size and (ilist.max() >= n or ilist.min() < -n):
        return op_error(node, values, ctx)
    return [x[np.where(ilist < 0, ilist + n, ilist)]]


@register(Join)
def join(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    axis, *arrays = values
    arrays = [_as_dask(a) for a in arrays]
    axis = int(concrete(axis))
    ndim = arrays[0].ndim
    ax = axis + ndim if axis < 0 else axis
    for a in arrays:
        if a.shape[:ax] + a.shape[ax + 1:] != arrays[0].shape[:ax] + arrays[0].shape[ax + 1:]:
            return op_error(node, values, ctx)
    return [_cast(da.concatenate(arrays, axis=axis), node.outputs[0])]


@register(Alloc, creates=True)
def alloc(node: Apply, values: Sequence[Any], ctx: Any) -> list[Any]:
    v, *shape = values
    target = tuple(int(concrete(s)) for s in shape)
    static = node.inputs[0].type.shape
    offset = len(target) - v.ndim
    for j, vs in enumerate(v.shape):
        if vs != target[offset + j] and not (vs == 1 and static[j] == 1):
            return op_error(node, values, ctx)
    if any(s < 0 for s in target):
        return op_error(node, values, ctx)
    dtype = node.outputs[0].type.numpy_dtype
    chunks = chunks_for(ctx.chunks, len(target))
    if not is_lazy(v) and np.ndim(v) == 0:
        return [da.full(target, v, dtype=dtype, chunks=chunks)]
    out = da.broadcast_to(_as_dask(v), target)
    return [_cast(out.rechunk(chunks), node.outputs[0])]
