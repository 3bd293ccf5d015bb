"""Sorting: ``sort``/``argsort`` (NumPy's, along one axis or the flattened tensor).

The gradient of ``sort`` sends each output cotangent back to the position
its value came from: ``argsort`` gives that position, and the scatter is an
indexing update along the sorted axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor.creation import zeros_like
from opgraph.tensor.indexing_along import add_along_axis, axis_input
from opgraph.tensor.shape import flatten
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["ArgSortOp", "SortOp", "argsort", "sort"]

_KINDS = ("quicksort", "mergesort", "heapsort", "stable")


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def _check_kind(kind: str, order: Any, who: str) -> None:
    if kind not in _KINDS:
        raise ValueError(f"{who}: kind must be one of {_KINDS}, got {kind!r}")
    if order is not None:
        raise ValueError(
            f"{who}: the order argument is not applicable to tensors (it sorts structured "
            f"arrays), got {order!r}"
        )


class SortOp(Op):
    """``sort(x, axis)``: NumPy's ``np.sort`` along ``axis`` (an int64 constant input)."""

    __props__ = ("kind", "order")

    def __init__(self, kind: str = "quicksort", order: Any = None) -> None:
        _check_kind(kind, order, "sort")
        self.kind = kind
        self.order = order

    def make_node(self, x: Any, axis: Any) -> Apply:
        x = as_tensor_variable(x)
        axis = as_tensor_variable(axis)
        return Apply(self, [x, axis], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, axis = inputs
        output_storage[0][0] = np.sort(x, axis=int(axis), kind=self.kind)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        x, axis = inputs
        (g,) = cotangents
        order = ArgSortOp(self.kind)(x, axis)
        return [add_along_axis(zeros_like(x), order, g, axis), disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]


class ArgSortOp(Op):
    """``argsort(x, axis)``: the int64 indices that sort ``x`` along ``axis``."""

    __props__ = ("kind", "order")

    def __init__(self, kind: str = "quicksort", order: Any = None) -> None:
        _check_kind(kind, order, "argsort")
        self.kind = kind
        self.order = order

    def make_node(self, x: Any, axis: Any) -> Apply:
        x = as_tensor_variable(x)
        axis = as_tensor_variable(axis)
        return Apply(self, [x, axis], [TensorType("int64", x.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, axis = inputs
        out = np.argsort(x, axis=int(axis), kind=self.kind)
        output_storage[0][0] = out.astype(np.int64, copy=False)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        # Indices are piecewise constant in x: the gradient is zero where it exists.
        return [zeros_like(inputs[0]), disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]


def _prepared(a: Any, axis: Any, who: str) -> tuple[Variable, Variable]:
    x = as_tensor_variable(a)
    if axis is None:
        x = flatten(x)
        axis = 0
    if x.type.ndim == 0:
        raise ValueError(f"{who} of {_name(x)}: a 0-d tensor has no axis to sort along")
    dtype = getattr(getattr(axis, "type", None), "dtype", None)
    if dtype is not None and not dtype.startswith(("int", "uint")):
        label = "Sort" if who == "sort" else "ArgSort"
        raise ValueError(
            f"{label} axis must have an integer dtype, got {dtype} ({who} of {_name(x)})"
        )
    return x, axis_input(x, axis, who)


def _kind(kind: str | None, stable: bool | None) -> str:
    if stable:
        if kind not in (None, "stable", "mergesort"):
            raise ValueError(
                f"sort: kind and stable cannot be set at the same time (stable=True "
                f"conflicts with kind={kind!r})"
            )
        return "stable"
    return "quicksort" if kind is None else kind


def sort(a: Any, axis: Any = -1, kind: str | None = None, order: Any = None, *,
         stable: bool | None = None) -> Variable:
    """A sorted copy of ``a`` along ``axis`` (``None``: the flattened tensor), as ``np.sort``.

    ``axis`` may be a symbolic integer scalar.
    """
    x, ax = _prepared(a, axis, "sort")
    return SortOp(_kind(kind, stable), order)(x, ax)


def argsort(a: Any, axis: Any = -1, kind: str | None = None, order: Any = None,
            stable: bool | None = None) -> Variable:
    """The indices that sort ``a`` along ``axis`` (``None``: flattened), as ``np.argsort``."""
    x, ax = _prepared(a, axis, "argsort")
    return ArgSortOp(_kind(kind, stable), order)(x, ax)




#: the sorting algorithms ``sort``/``argsort`` take (PyTensor's annotation alias and values)
KIND = Literal["quicksort", "mergesort", "heapsort", "stable"]
KIND_VALUES = ("quicksort", "mergesort", "heapsort", "stable")
