"""Indexing along one axis with an index tensor: ``take_along_axis`` and its adjoint.

``take_along_axis(x, idx, axis)`` is NumPy's; ``add_along_axis(x, idx, v, axis)``
returns ``x`` with ``v`` added at those positions (repeated positions add up),
which is what the gradient of a take (and of ``sort``) needs.  The axis is an
input (an integer scalar), so it may be symbolic, as ``sort``'s may.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor.creation import zeros_like
from opgraph.tensor.shape import is_int_dtype
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = ["AddAlongAxis", "TakeAlongAxis", "add_along_axis", "axis_input", "take_along_axis"]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def axis_input(x: Variable, axis: Any, who: str) -> Variable:
    """``axis`` as an int64 scalar input; a known axis is checked and made non-negative."""
    if isinstance(axis, bool | np.bool_):
        raise TypeError(f"{who} of {_name(x)}: axis must be an integer, got {axis!r}")
    if isinstance(axis, int | np.integer):
        if not -x.type.ndim <= int(axis) < x.type.ndim:
            raise ValueError(
                f"{who} of {_name(x)}: axis {axis} is out of range for a {x.type.ndim}-d tensor"
            )
        return constant(np.int64(int(axis) % x.type.ndim))
    axis = as_tensor_variable(axis)
    if axis.type.ndim != 0 or not is_int_dtype(axis.type.dtype):
        raise ValueError(
            f"{who} of {_name(x)}: axis must have an integer dtype and be a scalar, got "
            f"{axis.type.dtype} (ndim {axis.type.ndim})"
        )
    data = getattr(axis, "data", None)
    return axis if data is None else axis_input(x, int(data), who)


def _static_axis(axis: Variable) -> int | None:
    data = getattr(axis, "data", None)
    return None if data is None else int(data)


def _check_indices(x: Variable, idx: Variable, who: str) -> None:
    if not is_int_dtype(idx.type.dtype):
        raise TypeError(
            f"{who} of {_name(x)}: indices must be integers, got {_name(idx)} of type {idx.type}"
        )
    if idx.type.ndim != x.type.ndim:
        raise ValueError(
            f"{who} of {_name(x)}: indices {_name(idx)} have {idx.type.ndim} dimension(s), "
            f"expected {x.type.ndim} like the tensor"
        )


def _full_index(idx: np.ndarray, shape: Sequence[int], axis: int) -> tuple:
    """The fancy index that picks ``idx`` along ``axis`` and broadcasts the other axes."""
    ndim = len(shape)
    parts: list[Any] = []
    for d in range(ndim):
        if d == axis:
            parts.append(idx)
        else:
            reshape = [1] * ndim
            reshape[d] = shape[d]
            parts.append(np.arange(shape[d]).reshape(reshape))
    return tuple(parts)


class TakeAlongAxis(Op):
    """``np.take_along_axis(x, idx, axis)``."""

    __props__ = ()

    def make_node(self, x: Any, idx: Any, axis: Any) -> Apply:
        x, idx = as_tensor_variable(x), as_tensor_variable(idx)
        _check_indices(x, idx, "take_along_axis")
        axis = axis_input(x, axis, "take_along_axis")
        ax = _static_axis(axis)
        shape: list[int | None] = []
        for d, (s, i) in enumerate(zip(x.type.shape, idx.type.shape)):
            if ax is None:
                shape.append(None)
            elif d == ax:
                shape.append(i)
            else:
                shape.append(s if s not in (None, 1) else i if i != 1 else s)
        return Apply(self, [x, idx, axis], [TensorType(x.type.dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, idx, axis = inputs
        output_storage[0][0] = np.take_along_axis(x, idx, axis=int(axis))

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        x, idx, axis = inputs
        gx = AddAlongAxis()(zeros_like(x), idx, cotangents[0], axis)
        return [gx, disconnected_type(), disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [False]]


class AddAlongAxis(Op):
    """``x`` with ``values`` added at ``idx`` along ``axis`` (repeated indices accumulate)."""

    __props__ = ()

    def make_node(self, x: Any, idx: Any, values: Any, axis: Any) -> Apply:
        x, idx, values = (as_tensor_variable(v) for v in (x, idx, values))
        _check_indices(x, idx, "add_along_axis")
        if values.type.ndim > x.type.ndim:
            raise ValueError(
                f"add_along_axis of {_name(x)}: values {_name(values)} have more dimensions "
                f"({values.type.ndim}) than the tensor ({x.type.ndim})"
            )
        axis = axis_input(x, axis, "add_along_axis")
        return Apply(self, [x, idx, values, axis], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, idx, values, axis = inputs
        out = np.array(x, copy=True)
        index = _full_index(idx, out.shape, int(axis) % max(out.ndim, 1))
        target = np.broadcast_shapes(*(np.shape(p) for p in index))
        np.add.at(out, index, np.broadcast_to(values, target).astype(out.dtype, copy=False))
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        _x, idx, values, axis = inputs
        (g,) = cotangents
        g_values = TakeAlongAxis()(g, idx, axis)
        return [g, disconnected_type(), _summed_like(g_values, values), disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [True], [False]]


def _summed_like(g: Variable, like: Variable) -> Variable:
    """``g`` summed over the dimensions ``like`` broadcast, so it has ``like``'s shape."""
    extra = g.type.ndim - like.type.ndim
    if extra:
        g = g.sum(axis=tuple(range(extra)))
    axes = tuple(d for d, s in enumerate(like.type.shape) if s == 1 and g.type.shape[d] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.astype(like.type.dtype) if g.type.dtype != like.type.dtype else g


def take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> Variable:
    """Values of ``arr`` at ``indices`` along ``axis``, as ``np.take_along_axis``."""
    x, idx = as_tensor_variable(arr), as_tensor_variable(indices)
    if axis is None:
        x, idx, axis = x.flatten(), idx.flatten(), 0
    return TakeAlongAxis()(x, idx, axis)


def add_along_axis(arr: Any, indices: Any, values: Any, axis: Any = -1) -> Variable:
    """``arr`` with ``values`` added at ``indices`` along ``axis`` (repeats accumulate)."""
    return AddAlongAxis()(arr, indices, values, axis)
