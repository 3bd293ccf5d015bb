"""General NumPy advanced indexing: integer and boolean arrays on any axes.

NumPy's placement rule decides the output layout: the broadcast shape of
the array indices (scalar ints count as 0-d arrays) replaces the indexed
axes in place when they are adjacent, and goes first otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.tensor import reduction as _reduction
from opgraph.tensor import ufuncs as ptm
from opgraph.tensor.exceptions import StaticIndexError
from opgraph.tensor.indexing import (
    ARRAY,
    INT,
    ReadOp,
    SliceSpec,
    UpdateOp,
    as_advanced_idx_spec,
    check_static_int,
    check_update_value,
    idx_str,
    n_inputs,
    numpy_index,
    slice_length,
    split_inputs,
    static_slice_length,
)
from opgraph.tensor.shape import as_index_scalar, is_int_dtype, shape_tuple
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = ["AdvancedIncSubtensor", "AdvancedSubtensor"]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def _consumed(entry: Any, part: Any) -> int:
    if entry == ARRAY and part.type.dtype == "bool":
        return part.type.ndim
    return 1


def _check_inputs(op: Any, x: Variable, inputs: Sequence[Any]) -> list[Variable]:
    idx_list = op.idx_spec
    expected = sum(n_inputs(e) for e in idx_list)
    if len(inputs) != expected:
        raise TypeError(
            f"{type(op).__name__}{{{idx_str(idx_list)}}} expects {expected} index inputs, "
            f"got {len(inputs)}"
        )
    it = iter(inputs)
    out: list[Variable] = []
    for entry in idx_list:
        if entry == ARRAY:
            arr = as_tensor_variable(next(it))
            if arr.type.dtype != "bool" and not is_int_dtype(arr.type.dtype):
                raise TypeError(
                    f"array index of {_name(x)} must hold integers or booleans, got "
                    f"{_name(arr)} of type {arr.type}"
                )
            out.append(arr)
        else:
            out.extend(
                as_index_scalar(next(it), f"index of {_name(x)}") for _ in range(n_inputs(entry))
            )
    return out


def _broadcast(shapes: Sequence[tuple], x: Variable) -> list[int | None]:
    ndim = max((len(s) for s in shapes), default=0)
    out: list[int | None] = [1] * ndim
    for s in shapes:
        padded = (1,) * (ndim - len(s)) + tuple(s)
        for i, d in enumerate(padded):
            if d == 1:
                continue
            if out[i] == 1:
                out[i] = d
            elif d is None:
                continue
            elif out[i] is None:
                out[i] = d
            elif out[i] != d:
                raise ValueError(
                    f"indexing {_name(x)}: the index arrays cannot be broadcast together "
                    f"(static shapes {[tuple(t) for t in shapes]})"
                )
    # An unknown entry might be 1 at run time, so an unknown dim stays unknown.
    for s in shapes:
        padded = (1,) * (ndim - len(s)) + tuple(s)
        for i, d in enumerate(padded):
            if d is None and out[i] == 1:
                out[i] = None
    return out


def _layout(idx_list: Sequence[Any], parts: Sequence[Any]) -> tuple[list[int], bool]:
    """Positions (in idx_list) of advanced entries, and whether they are adjacent."""
    adv = [i for i, e in enumerate(idx_list) if e in (INT, ARRAY)]
    adjacent = bool(adv) and adv == list(range(adv[0], adv[-1] + 1))
    return adv, adjacent


def _bool_count(mask: Variable) -> int | None:
    if isinstance(mask, Constant):
        return int(np.count_nonzero(mask.data))
    return None


def _static_shape(op: Any, x: Variable, inputs: Sequence[Variable]) -> list[int | None]:
    idx_list = op.idx_spec
    parts = split_inputs(idx_list, inputs)
    axis = 0
    adv_shapes: list[tuple] = []
    slice_dims: list[tuple[int, int | None]] = []  # (idx position, length)
    for pos, (entry, part) in enumerate(zip(idx_list, parts)):
        if isinstance(entry, SliceSpec):
            slice_dims.append((pos, static_slice_length(x.type.shape[axis], part)))
        elif entry == INT:
            check_static_int(x, axis, part)
            adv_shapes.append(())
        elif part.type.dtype == "bool":
            k = part.type.ndim
            for j in range(k):
                ms, xs = part.type.shape[j], x.type.shape[axis + j]
                if ms is not None and xs is not None and ms != xs:
                    raise StaticIndexError(
                        f"boolean index of {_name(x)} has static shape {part.type.shape}, "
                        f"which does not match the indexed dimensions {x.type.shape[axis:axis+k]}"
                    )
            adv_shapes.append((_bool_count(part),))
        else:
            n = x.type.shape[axis]
            if isinstance(part, Constant) and n is not None:
                data = np.asarray(part.data)
                bad = data[(data < -n) | (data >= n)]
                if bad.size:
                    raise StaticIndexError(
                        f"index {int(bad.ravel()[0])} is out of bounds for axis {axis} of "
                        f"{_name(x)} with size {n}"
                    )
            adv_shapes.append(part.type.shape)
        axis += _consumed(entry, part)
    if axis > x.type.ndim:
        raise IndexError(
            f"too many indices for {_name(x)}: it has {x.type.ndim} dimension(s), "
            f"{axis} were indexed"
        )
    rest = list(x.type.shape[axis:])
    bshape = _broadcast(adv_shapes, x)
    adv, adjacent = _layout(idx_list, parts)
    if adjacent:
        before = [length for pos, length in slice_dims if pos < adv[0]]
        after = [length for pos, length in slice_dims if pos > adv[-1]]
        return before + bshape + after + rest
    return bshape + [length for _, length in slice_dims] + rest


def _symbolic_shape(op: Any, node: Apply, x_shape: Sequence[Any]) -> tuple:
    m = ptm
    idx_list = op.idx_spec
    parts = split_inputs(idx_list, node.inputs[1:])
    static = node.outputs[0].type.shape
    axis = 0
    adv_dims: list[list[Any]] = []
    slice_dims: list[tuple[int, Any]] = []
    for pos, (entry, part) in enumerate(zip(idx_list, parts)):
        if isinstance(entry, SliceSpec):
            slice_dims.append((pos, slice_length(x_shape[axis], part)))
        elif entry == INT:
            adv_dims.append([])
        elif part.type.dtype == "bool":
            adv_dims.append([m.cast(_reduction.sum(part), "int64")])
        else:
            adv_dims.append(list(shape_tuple(part)))
        axis += _consumed(entry, part)
    ndim = max((len(d) for d in adv_dims), default=0)
    bshape = []
    for i in range(ndim):
        cands = [d[i - (ndim - len(d))] for d in adv_dims if i >= ndim - len(d)]
        size = cands[0]
        for c in cands[1:]:
            # NumPy's broadcast of valid lengths: 1 takes the other's (even 0); max would not.
            size = m.switch(m.eq(size, 1), c, size)
        bshape.append(size)
    adv, adjacent = _layout(idx_list, parts)
    rest = list(x_shape[axis:])
    if adjacent:
        before = [s for pos, s in slice_dims if pos < adv[0]]
        after = [s for pos, s in slice_dims if pos > adv[-1]]
        dims = before + bshape + after + rest
    else:
        dims = bshape + [s for _, s in slice_dims] + rest
    return tuple(
        constant(np.int64(s)) if s is not None else d for s, d in zip(static, dims)
    )


def _index_values(idx_list: Sequence[Any], values: Sequence[Any]) -> tuple:
    """NumPy's index tuple with boolean masks expanded to their nonzero positions."""
    out: list[Any] = []
    for item in numpy_index(idx_list, values):
        if isinstance(item, np.ndarray) and item.dtype == bool:
            out.extend(np.nonzero(item))
        else:
            out.append(item)
    return tuple(out)


@attrs.frozen(repr=False)
class AdvancedSubtensor(ReadOp):
    """``x[idx]`` with integer/boolean arrays anywhere in ``idx`` (a copy, as in NumPy)."""

    idx_spec: tuple = attrs.field(alias="idx_list", converter=as_advanced_idx_spec)

    def make_node(self, x: Any, *inputs: Any) -> Apply:
        x = as_tensor_variable(x)
        idx = _check_inputs(self, x, inputs)
        out_shape = _static_shape(self, x, idx)
        return Apply(self, [x, *idx], [TensorType(x.type.dtype, out_shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, *values = inputs
        try:
            out = x[numpy_index(self.idx_spec, values)]
        except IndexError as exc:
            raise IndexError(f"indexing {_name(node.inputs[0])}: {exc}") from None
        output_storage[0][0] = np.asarray(out)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [_symbolic_shape(self, node, input_shapes[0])]

    def update_op(self) -> AdvancedIncSubtensor:
        return AdvancedIncSubtensor(self.idx_spec)

    def __str__(self) -> str:
        return f"AdvancedSubtensor{{{idx_str(self.idx_spec)}}}"


@attrs.frozen(repr=False)
class AdvancedIncSubtensor(UpdateOp):
    """``x`` with ``x[idx]`` (advanced) incremented by ``y``; repeats accumulate unless
    ``ignore_duplicates`` (then ``x[idx] += y``: a repeated position is written once)."""

    idx_spec: tuple = attrs.field(alias="idx_list", converter=as_advanced_idx_spec)
    inplace: bool = False
    set_instead_of_inc: bool = False
    ignore_duplicates: bool = False

    def make_node(self, x: Any, y: Any, *inputs: Any) -> Apply:
        x = as_tensor_variable(x)
        y = as_tensor_variable(y)
        idx = _check_inputs(self, x, inputs)
        sub_shape = _static_shape(self, x, idx)
        what = "set_subtensor" if self.set_instead_of_inc else "inc_subtensor"
        check_update_value(x, y, sub_shape, what)
        return Apply(self, [x, y, *idx], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y, *values = inputs
        index = _index_values(self.idx_spec, values)
        output_storage[0][0] = self._write(x, index, y, accumulate=not self.ignore_duplicates)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def read_op(self) -> AdvancedSubtensor:
        return AdvancedSubtensor(self.idx_spec)

    def __str__(self) -> str:
        return f"AdvancedIncSubtensor{{{self._label()};{idx_str(self.idx_spec)}}}"
