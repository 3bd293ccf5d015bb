"""Basic and advanced indexing, reads and writes (``x.at[idx].set / .add``).

Index values known while tracing (constants, shape arithmetic) become Python
ints and slices; a traced integer index is kept (JAX indexes dynamically);
a traced slice bound is rejected with a clear error (JAX needs static
slice sizes).  Boolean masks need concrete values too, except in the
``sum`` / ``set`` forms the JAX rewrites turn into ``where``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from opgraph.graph.basic import Apply
from opgraph.tensor.advanced import AdvancedIncSubtensor, AdvancedSubtensor
from opgraph.tensor.indexing import INT, SliceSpec, split_inputs
from opgraph.tensor.subtensor import (
    AdvancedIncSubtensor1,
    AdvancedSubtensor1,
    IncSubtensor,
    Subtensor,
)
from opgraph.tensor.type_other import MakeSlice
from opgraph_jax.link.dispatch.basic import JAXUnsupportedOpError, is_concrete, jax_funcify

__all__ = ["BOOLEAN_MASK_ERROR", "DYNAMIC_SLICE_LENGTH_ERROR", "jax_funcify_IncSubtensor",
           "jax_funcify_Subtensor", "jax_index"]

BOOLEAN_MASK_ERROR = (
    "JAX cannot index with a boolean mask whose values are known only when the function runs "
    "(the output's length would depend on them); make the mask a constant or use another mode"
)
DYNAMIC_SLICE_LENGTH_ERROR = (
    "JAX needs slice bounds known when it compiles; this one depends on an input's value "
    "(use dynamic_slice-friendly integer indices or another mode)"
)


def _bound(value: Any, op: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, np.ndarray) and value.dtype == object:
        return None
    if not is_concrete(value):
        raise JAXUnsupportedOpError(f"{op}: {DYNAMIC_SLICE_LENGTH_ERROR}")
    return int(np.asarray(value))


def _as_index(value: Any, op: Any) -> Any:
    if isinstance(value, slice):
        return slice(_bound(value.start, op), _bound(value.stop, op), _bound(value.step, op))
    if value is None or (isinstance(value, np.ndarray) and value.dtype == object):
        return None
    if is_concrete(value):
        arr = np.asarray(value)
        if arr.dtype == bool:
            return arr
        return int(arr) if arr.ndim == 0 else arr
    return value  # a traced boolean mask: JAX raises NonConcreteBooleanIndexError


def jax_index(idx_list: Sequence[Any], values: Sequence[Any], op: Any) -> tuple:
    """The index tuple for ``x[...]`` / ``x.at[...]`` from an Op's idx_list and values."""
    out: list[Any] = []
    for entry, part in zip(idx_list, split_inputs(idx_list, values)):
        if isinstance(entry, SliceSpec):
            out.append(slice(*(_bound(p, op) for p in part)))
        elif entry == INT:
            out.append(_as_index(part, op))
        else:
            out.append(_as_index(part, op))
    return tuple(out)


@jax_funcify.register(Subtensor)
@jax_funcify.register(AdvancedSubtensor)
def _funcify_subtensor(op: Any, **kwargs: Any) -> Callable:
    def subtensor(x: Any, *values: Any) -> Any:
        return jnp.asarray(x)[jax_index(op.idx_spec, values, op)]

    return subtensor


@jax_funcify.register(AdvancedSubtensor1)
def _funcify_advanced_subtensor1(op: AdvancedSubtensor1, **kwargs: Any) -> Callable:
    return lambda x, ilist: jnp.asarray(x)[_as_index(ilist, op)]


def _writer(op: Any) -> Callable[[Any, tuple, Any], Any]:
    if op.set_instead_of_inc:
        return lambda x, index, y: x.at[index].set(y)
    return lambda x, index, y: x.at[index].add(y)


def _box(index: tuple, shape: tuple) -> tuple[list[int], list[int], list[int]] | None:
    """(starts, sizes, integer axes) when ``index`` is a static contiguous block, else None."""
    starts, sizes, int_axes = [], [], []
    for axis, item in enumerate(index):
        n = shape[axis]
        if isinstance(item, slice):
            start, stop, step = item.indices(n)
            if step != 1:
                return None
            starts.append(start)
            sizes.append(max(stop - start, 0))
        elif isinstance(item, int) and -n <= item < n:
            starts.append(item % n)
            sizes.append(1)
            int_axes.append(axis)
        else:
            return None
    rest = shape[len(index):]
    return starts + [0] * len(rest), sizes + list(rest), int_axes


def _write_block(op: Any, x: Any, index: tuple, y: Any) -> Any | None:
    """A write to a static block with ``lax.dynamic_update_slice`` (no scatter: XLA's CPU
    compiler aborts on some scatters that cover a whole array), or None."""
    box = _box(index, jnp.shape(x))
    if box is None:
        return None
    starts, sizes, int_axes = box
    if 0 in sizes:
        return x
    region = x[index]
    new = y if op.set_instead_of_inc else region + y
    new = jnp.broadcast_to(jnp.asarray(new).astype(x.dtype), jnp.shape(region))
    if int_axes:
        new = jnp.expand_dims(new, int_axes)
    return jax.lax.dynamic_update_slice(x, new, starts)


@jax_funcify.register(IncSubtensor)
@jax_funcify.register(AdvancedIncSubtensor)
def _funcify_inc_subtensor(op: Any, **kwargs: Any) -> Callable:
    write = _writer(op)

    def inc_subtensor(x: Any, y: Any, *values: Any) -> Any:
        x = jnp.asarray(x)
        index = jax_index(op.idx_spec, values, op)
        block = _write_block(op, x, index, y) if isinstance(op, IncSubtensor) else None
        return write(x, index, y) if block is None else block

    return inc_subtensor


@jax_funcify.register(AdvancedIncSubtensor1)
def _funcify_advanced_inc_subtensor1(op: AdvancedIncSubtensor1, node: Apply | None = None,
                                     **kwargs: Any) -> Callable:
    write = _writer(op)
    static = node.inputs[1].type.shape if node is not None else ()

    def advanced_inc_subtensor1(x: Any, y: Any, ilist: Any) -> Any:
        region = (jnp.shape(ilist)[0], *jnp.shape(x)[1:])[len(jnp.shape(x)) - jnp.ndim(y):]
        for d, (ys, rs) in enumerate(zip(jnp.shape(y), region)):
            if ys == 1 and rs != 1 and static[d] != 1:
                raise ValueError(
                    f"Runtime broadcasting not allowed. {op}: the value has length 1 in "
                    f"dimension {d} at runtime, its type does not declare it broadcastable"
                )
        return write(jnp.asarray(x), (_as_index(ilist, op),), y)

    return advanced_inc_subtensor1


@jax_funcify.register(MakeSlice)
def _funcify_make_slice(op: MakeSlice, **kwargs: Any) -> Callable:
    return lambda *parts: slice(*parts)


jax_funcify_Subtensor = _funcify_subtensor
jax_funcify_IncSubtensor = _funcify_inc_subtensor
