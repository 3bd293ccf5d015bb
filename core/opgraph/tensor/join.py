"""Join (concatenate along an axis) and Split (its inverse), with stack on top.

Mismatched shapes are reported at graph construction whenever the static
shapes already disagree, naming which tensor and dimension.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import DisconnectedType, disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor import ufuncs as ptm
from opgraph.tensor.creation import zeros_like
from opgraph.tensor.exceptions import ShapeError
from opgraph.tensor.shape import (
    MakeVector,
    as_index_scalar,
    dim_sum,
    expand_dims,
    is_int_dtype,
    shape,
    shape_i,
    static_int,
    static_vector_entries,
)
from opgraph.tensor.subtensor import get_item
from opgraph.tensor.type import TensorType, discrete_dtypes, get_floatX
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = ["Join", "Split", "concatenate", "join", "split", "stack"]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def _missing(g: Any) -> bool:
    return g is None or isinstance(getattr(g, "type", None), DisconnectedType)


def _check_axis(axis: int | None, ndim: int, who: str) -> int | None:
    if axis is None:
        return None
    if not -ndim <= axis < ndim:
        raise ValueError(f"{who}: axis {axis} is out of range for {ndim}-dimensional tensors")
    return axis % ndim


def _per_dim_switch(axis: Variable, ndim: int, on_axis: Any, off_axis: Sequence[Any]) -> list:
    """Shape entries when the axis is only known at run time."""
    m = ptm
    return [m.switch(m.eq(axis, d), on_axis, off_axis[d]) for d in range(ndim)]


# --------------------------------------------------------------------------- Join


class Join(Op):
    """``join(axis, *tensors)``: NumPy's concatenate; the dtype is the inputs' common type."""

    __props__ = ()

    def make_node(self, axis: Any, *tensors: Any) -> Apply:
        axis = as_index_scalar(axis, "join axis")
        if not tensors:
            raise ValueError("join: needs at least one tensor to join")
        ts = [as_tensor_variable(t) for t in tensors]
        ndim = ts[0].type.ndim
        if ndim == 0:
            raise ValueError(
                f"join: cannot join 0-d tensors ({_name(ts[0])}); use stack to make a vector"
            )
        for i, t in enumerate(ts):
            if t.type.ndim != ndim:
                raise ValueError(
                    f"join: tensor {i} ({_name(t)}) has {t.type.ndim} dimension(s), expected "
                    f"{ndim} like tensor 0 ({_name(ts[0])})"
                )
        a = _check_axis(static_int(axis), ndim, "join")
        if a is not None:
            axis = constant(np.int64(a))
        dtype = np.result_type(*[t.type.dtype for t in ts]).name
        out: list[int | None] = [None] * ndim
        if a is not None:
            for d in range(ndim):
                if d == a:
                    sizes = [t.type.shape[d] for t in ts]
                    out[d] = sum(sizes) if all(s is not None for s in sizes) else None
                    continue
                first = None
                for i, t in enumerate(ts):
                    s = t.type.shape[d]
                    if s is None:
                        continue
                    if first is None:
                        first = (i, s)
                    elif s != first[1]:
                        sizes = np.array([u.type.shape[d] for u in ts])
                        raise ValueError(
                            f"join: all input array dimensions other than the specified "
                            f"`axis` ({a}) must match exactly, or be unknown (None), but "
                            f"along dimension {d}, the inputs shapes are incompatible: "
                            f"{sizes} (tensor {i} ({_name(t)}) has {s}, tensor {first[0]} "
                            f"({_name(ts[first[0]])}) has {first[1]})"
                        )
                out[d] = None if first is None else first[1]
        return Apply(self, [axis, *ts], [TensorType(dtype, out)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        axis, *arrays = inputs
        dtype = node.outputs[0].type.dtype
        try:
            out = np.concatenate(arrays, axis=int(axis))
        except (ValueError, np.exceptions.AxisError) as exc:
            shapes = ", ".join(str(np.shape(a)) for a in arrays)
            raise ShapeError(
                f"join along axis {int(axis)}: cannot join arrays of shapes {shapes} "
                f"(inputs {', '.join(_name(v) for v in node.inputs[1:])})"
            ) from exc
        output_storage[0][0] = out.astype(dtype, copy=False)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        axis = node.inputs[0]
        shapes = input_shapes[1:]
        ndim = len(shapes[0])
        a = static_int(axis)
        if a is not None:
            a %= ndim
            dims = list(shapes[0])
            dims[a] = dim_sum([s[a] for s in shapes])
            return [tuple(dims)]
        m = ptm
        return [
            tuple(
                m.switch(m.eq(axis, d), dim_sum([s[d] for s in shapes]), shapes[0][d])
                for d in range(ndim)
            )
        ]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]] + [[True]] * (len(node.inputs) - 1)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        axis, *ts = inputs
        g = cotangents[0]
        sizes = [_axis_len(t, axis) for t in ts]
        parts = split(g, MakeVector("int64")(*sizes), len(ts), axis) if len(ts) > 1 else [g]
        grads: list[Any] = [disconnected_type()]
        for t, part in zip(ts, parts):
            if t.type.dtype in discrete_dtypes:
                grads.append(zeros_like(t, dtype=get_floatX()))
            elif part.type.dtype != t.type.dtype:
                grads.append(ptm.cast(part, t.type.dtype))
            else:
                grads.append(part)
        return grads

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        axis, *ts = inputs
        tans = tangents[1:]
        if all(_missing(t) for t in tans):
            return [None]
        parts = [zeros_like(x) if _missing(t) else t for x, t in zip(ts, tans)]
        return [join(axis, *parts)]


def _axis_len(t: Variable, axis: Variable) -> Variable:
    a = static_int(axis)
    if a is not None:
        return shape_i(t, a)
    return get_item(shape(t), axis)


_join = Join()


def join(axis: Any, *tensors_list: Any) -> Variable:
    """Concatenate tensors along ``axis`` (one tensor is returned as it is)."""
    if len(tensors_list) == 1:
        return as_tensor_variable(tensors_list[0])
    return _join(axis, *tensors_list)


def concatenate(tensor_list: Sequence[Any], axis: Any = 0) -> Variable:
    """NumPy's ``concatenate``: ``tensor_list`` must be a list or tuple."""
    if not isinstance(tensor_list, list | tuple):
        raise TypeError(
            "concatenate: the first argument must be a list or tuple of tensors, got "
            f"{type(tensor_list).__name__} (did you forget the [] around the tensors?)"
        )
    return join(axis, *tensor_list)


def stack(tensors: Any = (), axis: int = 0, *more: Any) -> Variable:
    """Join tensors of equal shape along a new axis (``stack([a, b], axis=0)``)."""
    if not isinstance(tensors, list | tuple):
        # PyTensor's old form stack(a, b, c): positional tensors.
        tensors = [tensors] + ([] if isinstance(axis, int) else [axis]) + list(more)
        axis = 0
    if not tensors:
        raise ValueError("stack: No tensor arguments provided")
    ts = [as_tensor_variable(t) for t in tensors]
    ndim = ts[0].type.ndim
    for i, t in enumerate(ts):
        if t.type.ndim != ndim:
            raise ValueError(
                f"stack: tensor {i} ({_name(t)}) has {t.type.ndim} dimension(s), expected "
                f"{ndim} like tensor 0"
            )
    if ndim == 0 and axis in (0, -1):
        dtype = np.result_type(*[t.type.dtype for t in ts]).name
        return MakeVector(dtype)(*ts)
    if not -(ndim + 1) <= axis <= ndim:
        raise np.exceptions.AxisError(
            f"stack: axis {axis} is out of bounds for array of dimension {ndim + 1} (the "
            "stacked result)"
        )
    axis %= ndim + 1
    return join(axis, *[expand_dims(t, axis) for t in ts])


# --------------------------------------------------------------------------- Split


@attrs.frozen
class Split(Op):
    """``split(x, sizes, n, axis)``: ``n`` consecutive pieces of ``x`` along ``axis``.

    The pieces are views of ``x``.
    """

    len_splits: int

    @property
    def view_map(self) -> dict[int, list[int]]:  # type: ignore[override]
        return {i: [0] for i in range(self.len_splits)}

    def make_node(self, x: Any, axis: Any, splits: Any) -> Apply:
        x = as_tensor_variable(x)
        axis = as_index_scalar(axis, "split axis")
        splits = as_tensor_variable(splits)
        if x.type.ndim == 0:
            raise ValueError(f"split: {_name(x)} is 0-d; there is no axis to split")
        if splits.type.ndim != 1 or not is_int_dtype(splits.type.dtype):
            raise TypeError(
                f"split of {_name(x)}: the sizes must be an integer vector, got "
                f"{_name(splits)} of type {splits.type}"
            )
        if splits.type.shape[0] not in (None, self.len_splits):
            raise ValueError(
                f"split of {_name(x)}: {splits.type.shape[0]} sizes given for "
                f"n_splits={self.len_splits}"
            )
        a = _check_axis(static_int(axis), x.type.ndim, f"split of {_name(x)}")
        if a is not None:
            axis = constant(np.int64(a))
        entries = static_vector_entries(splits) or [None] * self.len_splits
        for e in entries:
            if e is not None and e < 0:
                raise ValueError(f"split of {_name(x)}: sizes must be >= 0, got {entries}")
        if a is not None and all(e is not None for e in entries):
            length = x.type.shape[a]
            if length is not None and sum(entries) != length:
                raise ValueError(
                    f"split of {_name(x)}: the sizes {entries} add up to {sum(entries)}, "
                    f"but axis {a} has length {length}"
                )
        outs = []
        for e in entries:
            shp: list[int | None] = [None] * x.type.ndim
            if a is not None:
                shp = list(x.type.shape)
                shp[a] = e
            outs.append(TensorType(x.type.dtype, shp)())
        return Apply(self, [x, axis, splits], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, axis, splits = inputs
        axis = int(axis)
        if len(splits) != self.len_splits:
            raise ShapeError(
                f"split of {_name(node.inputs[0])}: got {len(splits)} sizes, expected "
                f"{self.len_splits}"
            )
        if np.sum(splits) != x.shape[axis] or np.any(np.asarray(splits) < 0):
            raise ShapeError(
                f"split of {_name(node.inputs[0])}: the sizes {list(splits)} do not add up to "
                f"the length {x.shape[axis]} of axis {axis}"
            )
        pieces = np.split(x, np.cumsum(splits)[:-1], axis=axis)
        for cell, piece in zip(output_storage, pieces):
            cell[0] = piece

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        _x, axis, splits = node.inputs
        x_shape = input_shapes[0]
        a = static_int(axis)
        out = []
        for i in range(self.len_splits):
            size = get_item(splits, i)
            if a is not None:
                dims = list(x_shape)
                dims[a] = size
            else:
                dims = _per_dim_switch(axis, len(x_shape), size, x_shape)
            out.append(tuple(dims))
        return out

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        n = self.len_splits
        return [[True] * n, [False] * n, [False] * n]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        _x, axis, _ = inputs
        if all(_missing(g) for g in cotangents):
            return [disconnected_type() for _ in inputs]
        parts = [zeros_like(o) if _missing(g) else g for o, g in zip(outputs, cotangents)]
        return [join(axis, *parts), disconnected_type(), disconnected_type()]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        if _missing(tangents[0]):
            return [None] * self.len_splits
        return self(tangents[0], inputs[1], inputs[2], return_list=True)


def split(x: Any, splits_size: Any, n_splits: int, axis: Any = 0) -> list[Variable]:
    """The ``n_splits`` pieces of ``x`` along ``axis`` with lengths ``splits_size``."""
    return Split(int(n_splits))(x, axis, splits_size, return_list=True)
