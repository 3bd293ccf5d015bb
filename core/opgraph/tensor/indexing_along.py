"""Indexing along one axis with an index tensor: ``take_along_axis`` and its adjoint.

``take_along_axis(x, idx, axis)`` is NumPy's; ``add_along_axis(x, idx, v, axis)``
returns ``x`` with ``v`` added at those positions (repeated positions add up),
which is what the gradient of a take (and of ``sort``) needs.
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
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["AddAlongAxis", "TakeAlongAxis", "add_along_axis", "take_along_axis"]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def _axis(x: Variable, axis: Any, who: str) -> int:
    if isinstance(axis, Variable):
        data = getattr(axis, "data", None)
        if data is None:
            raise TypeError(f"{who} of {_name(x)}: the axis must be known when the graph is built")
        axis = int(data)
    if isinstance(axis, bool | np.bool_) or not isinstance(axis, int | np.integer):
        raise TypeError(f"{who} of {_name(x)}: axis must be an int, got {axis!r}")
    if not -x.type.ndim <= int(axis) < x.type.ndim:
        raise ValueError(
            f"{who} of {_name(x)}: axis {axis} is out of range for a {x.type.ndim}-d tensor"
        )
    return int(axis) % x.type.ndim


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

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        self.axis = int(axis)

    def make_node(self, x: Any, idx: Any) -> Apply:
        x, idx = as_tensor_variable(x), as_tensor_variable(idx)
        _check_indices(x, idx, "take_along_axis")
        shape = [
            i if d == self.axis else (s if s is not None and s != 1 else i if i != 1 else s)
            for d, (s, i) in enumerate(zip(x.type.shape, idx.type.shape))
        ]
        return Apply(self, [x, idx], [TensorType(x.type.dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, idx = inputs
        output_storage[0][0] = np.take_along_axis(x, idx, axis=self.axis)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        x, idx = inputs
        return [AddAlongAxis(self.axis)(zeros_like(x), idx, cotangents[0]), disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]


class AddAlongAxis(Op):
    """``x`` with ``values`` added at ``idx`` along ``axis`` (repeated indices accumulate)."""

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        self.axis = int(axis)

    def make_node(self, x: Any, idx: Any, values: Any) -> Apply:
        x, idx, values = (as_tensor_variable(v) for v in (x, idx, values))
        _check_indices(x, idx, "add_along_axis")
        if values.type.ndim > x.type.ndim:
            raise ValueError(
                f"add_along_axis of {_name(x)}: values {_name(values)} have more dimensions "
                f"({values.type.ndim}) than the tensor ({x.type.ndim})"
            )
        return Apply(self, [x, idx, values], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, idx, values = inputs
        out = np.array(x, copy=True)
        index = _full_index(idx, out.shape, self.axis)
        target = np.broadcast_shapes(*(np.shape(p) for p in index))
        np.add.at(out, index, np.broadcast_to(values, target).astype(out.dtype, copy=False))
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        _x, idx, values = inputs
        (g,) = cotangents
        g_values = TakeAlongAxis(self.axis)(g, idx)
        return [g, disconnected_type(), _summed_like(g_values, values)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [True]]


def _summed_like(g: Variable, like: Variable) -> Variable:
    """``g`` summed over the dimensions ``like`` broadcast, so it has ``like``'s shape."""
    extra = g.type.ndim - like.type.ndim
    if extra:
        g = g.sum(axis=tuple(range(extra)))
    axes = tuple(d for d, s in enumerate(like.type.shape) if s == 1 and g.type.shape[d] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.astype(like.type.dtype) if g.type.dtype != like.type.dtype else g


def take_along_axis(arr: Any, indices: Any, axis: int | None = -1) -> Variable:
    """Values of ``arr`` at ``indices`` along ``axis``, as ``np.take_along_axis``."""
    x, idx = as_tensor_variable(arr), as_tensor_variable(indices)
    if axis is None:
        x, axis = x.flatten(), 0
    return TakeAlongAxis(_axis(x, axis, "take_along_axis"))(x, idx)


def add_along_axis(arr: Any, indices: Any, values: Any, axis: int = -1) -> Variable:
    """``arr`` with ``values`` added at ``indices`` along ``axis`` (repeats accumulate)."""
    x = as_tensor_variable(arr)
    return AddAlongAxis(_axis(x, axis, "add_along_axis"))(x, indices, values)
