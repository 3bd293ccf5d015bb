"""Reductions, products (dot, BLAS, einsum), softmax, sorting and ``extra_ops``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from opgraph.graph.basic import Apply
from opgraph.scalar.arith import Add, Maximum, Minimum, Mul
from opgraph.scalar.logic import AND, OR, XOR
from opgraph.tensor import AddAlongAxis, TakeAlongAxis
from opgraph.tensor.blas import BatchedDot, Dot22, Dot22Scalar, Gemm, Gemv, Ger
from opgraph.tensor.einsum import Einsum
from opgraph.tensor.extra_ops import (
    Bartlett,
    CpuContiguous,
    CumOp,
    FillDiagonal,
    FillDiagonalOffset,
    RavelMultiIndex,
    Repeat,
    SearchsortedOp,
    Unique,
    UnravelIndex,
)
from opgraph.tensor.products import Dot, MatMul
from opgraph.tensor.reduction import Argmax, Argmin, CAReduce, ProdWithoutZeros
from opgraph.tensor.sort import ArgSortOp, SortOp
from opgraph.tensor.special import LogSoftmax, Softmax
from opgraph_jax.link.dispatch.basic import (
    JAXUnsupportedOpError,
    is_concrete,
    jax_funcify,
    static_int,
    static_ints,
)

__all__ = ["REDUCERS", "jax_funcify_Argmax", "jax_funcify_Dot", "jax_funcify_Max"]

REDUCERS: dict[type, Callable[..., Any]] = {
    Add: jnp.sum,
    Mul: jnp.prod,
    Maximum: jnp.max,
    Minimum: jnp.min,
    AND: jnp.all,
    OR: jnp.any,
}
"""Scalar Op of a CAReduce -> the ``jax.numpy`` reduction (one table for all of them)."""


def _bitwise_reducer(ufunc: Any) -> Callable[..., Any]:
    def reduce(x: Any, axis: Any = None) -> Any:
        axes = range(jnp.ndim(x)) if axis is None else axis
        return jax.lax.reduce(x, jnp.zeros((), x.dtype), ufunc, tuple(axes))

    return reduce


@jax_funcify.register(CAReduce)
def _funcify_careduce(op: CAReduce, node: Apply | None = None, **kwargs: Any) -> Callable:
    axis = op.axis
    if isinstance(op, ProdWithoutZeros):
        return lambda x: jnp.prod(jnp.where(x == 0, jnp.ones((), x.dtype), x), axis=axis)
    for cls in type(op.scalar_op).__mro__:
        if cls in REDUCERS:
            reducer = REDUCERS[cls]
            break
    else:
        if isinstance(op.scalar_op, XOR):
            reducer = _bitwise_reducer(jax.lax.bitwise_xor)
        else:
            raise JAXUnsupportedOpError(f"No JAX reduction for {op} (scalar op {op.scalar_op})")
    acc = getattr(op, "acc_dtype", None)
    is_bool_logic = reducer in (jnp.all, jnp.any)

    def careduce(x: Any) -> Any:
        if is_bool_logic and node is not None and node.outputs[0].type.dtype != "bool":
            return reducer(x, axis=axis).astype(node.outputs[0].type.dtype)
        if acc is not None and reducer in (jnp.sum, jnp.prod):
            return reducer(x, axis=axis, dtype=acc)
        return reducer(x, axis=axis)

    return careduce


@jax_funcify.register(Argmax)
def _funcify_argmax(op: Argmax, **kwargs: Any) -> Callable:
    fn = jnp.argmin if isinstance(op, Argmin) else jnp.argmax

    def argmax(x: Any) -> Any:
        axes = tuple(range(jnp.ndim(x))) if op.axis is None else tuple(op.axis)
        if len(axes) == jnp.ndim(x):
            return fn(jnp.ravel(x)) if jnp.ndim(x) else jnp.asarray(0, dtype="int64")
        if len(axes) == 1:
            return fn(x, axis=axes[0])
        kept = [i for i in range(jnp.ndim(x)) if i not in axes]
        moved = jnp.transpose(x, kept + list(axes))
        return fn(jnp.reshape(moved, (*moved.shape[: len(kept)], -1)), axis=-1)

    return argmax


@jax_funcify.register(Dot)
@jax_funcify.register(Dot22)
def _funcify_dot(op: Any, **kwargs: Any) -> Callable:
    return jnp.dot


@jax_funcify.register(MatMul)
def _funcify_matmul(op: MatMul, **kwargs: Any) -> Callable:
    return jnp.matmul


@jax_funcify.register(BatchedDot)
def _funcify_batched_dot(op: BatchedDot, **kwargs: Any) -> Callable:
    def batched_dot(x: Any, y: Any) -> Any:
        if jnp.shape(x)[0] != jnp.shape(y)[0]:
            raise TypeError(f"BatchedDot: batch sizes differ: {jnp.shape(x)} and {jnp.shape(y)}")
        return jnp.matmul(x, y)

    return batched_dot


@jax_funcify.register(Dot22Scalar)
def _funcify_dot22scalar(op: Dot22Scalar, **kwargs: Any) -> Callable:
    return lambda x, y, a: a * jnp.dot(x, y)


@jax_funcify.register(Gemm)
def _funcify_gemm(op: Gemm, **kwargs: Any) -> Callable:
    return lambda z, a, x, y, b: b * z + a * jnp.dot(x, y)


@jax_funcify.register(Gemv)
def _funcify_gemv(op: Gemv, **kwargs: Any) -> Callable:
    return lambda y, alpha, a, x, beta: beta * y + alpha * jnp.dot(a, x)


@jax_funcify.register(Ger)
def _funcify_ger(op: Ger, **kwargs: Any) -> Callable:
    return lambda a, alpha, x, y: a + alpha * jnp.outer(x, y)


@jax_funcify.register(Einsum)
def _funcify_einsum(op: Einsum, **kwargs: Any) -> Callable:
    subscripts = op.subscripts
    return lambda *operands: jnp.einsum(subscripts, *operands, optimize="optimal")


@jax_funcify.register(Softmax)
def _funcify_softmax(op: Softmax, **kwargs: Any) -> Callable:
    return lambda x: jax.nn.softmax(x, axis=op.axis)


@jax_funcify.register(LogSoftmax)
def _funcify_log_softmax(op: LogSoftmax, **kwargs: Any) -> Callable:
    return lambda x: jax.nn.log_softmax(x, axis=op.axis)


@jax_funcify.register(CumOp)
def _funcify_cumop(op: CumOp, **kwargs: Any) -> Callable:
    fn = jnp.cumsum if op.mode == "add" else jnp.cumprod
    return lambda x: fn(x, axis=op.axis)


@jax_funcify.register(SortOp)
def _funcify_sort(op: SortOp, **kwargs: Any) -> Callable:
    stable = op.kind == "stable"
    return lambda x, axis: jnp.sort(x, axis=_axis(axis, op), stable=stable)


@jax_funcify.register(ArgSortOp)
def _funcify_argsort(op: ArgSortOp, **kwargs: Any) -> Callable:
    stable = op.kind == "stable"
    return lambda x, axis: jnp.argsort(x, axis=_axis(axis, op), stable=stable)


def _axis(axis: Any, op: Any) -> Any:
    if axis is None or (isinstance(axis, np.ndarray) and axis.dtype == object):
        return None
    return static_int(axis, "axis", op)


@jax_funcify.register(Repeat)
def _funcify_repeat(op: Repeat, node: Apply | None = None, **kwargs: Any) -> Callable:
    def repeat(x: Any, repeats: Any) -> Any:
        reps = static_ints(repeats, "repeats", op)
        reps_arg = reps[0] if np.ndim(repeats) == 0 else np.asarray(reps)
        return jnp.repeat(x, reps_arg, axis=op.axis)

    return repeat


@jax_funcify.register(SearchsortedOp)
def _funcify_searchsorted(op: SearchsortedOp, **kwargs: Any) -> Callable:
    def searchsorted(a: Any, v: Any, sorter: Any = None) -> Any:
        if sorter is not None:
            a = a[sorter]
        return jnp.searchsorted(a, v, side=op.side)

    return searchsorted


@jax_funcify.register(Unique)
def _funcify_unique(op: Unique, **kwargs: Any) -> Callable:
    def unique(x: Any) -> Any:
        if not is_concrete(x):  # the number of distinct values sets the output shape
            raise JAXUnsupportedOpError(
                f"{op}: JAX cannot compile unique of a value known only at run time (its "
                "output length depends on the values); use another mode")
        out = jnp.unique(x, return_index=op.return_index, return_inverse=op.return_inverse,
                         return_counts=op.return_counts, axis=op.axis)
        return list(out) if isinstance(out, tuple | list) else out

    return unique


@jax_funcify.register(RavelMultiIndex)
def _funcify_ravel_multi_index(op: RavelMultiIndex, **kwargs: Any) -> Callable:
    def ravel_multi_index(*args: Any) -> Any:
        *index, dims = args
        return jnp.ravel_multi_index(tuple(index), static_ints(dims, "dims", op), mode=op.mode,
                                     order=op.order)

    return ravel_multi_index


@jax_funcify.register(UnravelIndex)
def _funcify_unravel_index(op: UnravelIndex, **kwargs: Any) -> Callable:
    if op.order != "C":
        raise JAXUnsupportedOpError(f"{op}: jax.numpy.unravel_index supports order='C' only")
    return lambda indices, dims: list(jnp.unravel_index(indices, static_ints(dims, "dims", op)))


@jax_funcify.register(FillDiagonal)
def _funcify_fill_diagonal(op: FillDiagonal, **kwargs: Any) -> Callable:
    return lambda a, val: jnp.fill_diagonal(a, val, inplace=False)


@jax_funcify.register(FillDiagonalOffset)
def _funcify_fill_diagonal_offset(op: FillDiagonalOffset, **kwargs: Any) -> Callable:
    def fill_diagonal_offset(a: Any, val: Any, offset: Any) -> Any:
        k = static_int(offset, "offset", op)
        rows, cols = jnp.shape(a)
        i = np.arange(rows)
        j = i + k
        keep = (j >= 0) & (j < cols)
        return a.at[i[keep], j[keep]].set(val)

    return fill_diagonal_offset


@jax_funcify.register(Bartlett)
def _funcify_bartlett(op: Bartlett, **kwargs: Any) -> Callable:
    return lambda m: jnp.bartlett(static_int(m, "window length", op))


@jax_funcify.register(CpuContiguous)
def _funcify_contiguous(op: CpuContiguous, **kwargs: Any) -> Callable:
    return lambda x: x


@jax_funcify.register(TakeAlongAxis)
def _funcify_take_along_axis(op: TakeAlongAxis, **kwargs: Any) -> Callable:
    return lambda x, idx, axis: jnp.take_along_axis(x, idx, axis=static_int(axis, "axis", op))


@jax_funcify.register(AddAlongAxis)
def _funcify_add_along_axis(op: AddAlongAxis, **kwargs: Any) -> Callable:
    def add_along_axis(x: Any, idx: Any, values: Any, axis: Any) -> Any:
        ax = static_int(axis, "axis", op) % max(jnp.ndim(x), 1)
        grids = list(jnp.indices(jnp.shape(idx), sparse=True))
        grids[ax] = idx
        return x.at[tuple(grids)].add(values)

    return add_along_axis


# PyTensor's names for these translations (``link.jax.dispatch.math``).
jax_funcify_Argmax = _funcify_argmax
jax_funcify_Dot = _funcify_dot
jax_funcify_Max = _funcify_careduce
