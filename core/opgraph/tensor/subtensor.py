"""Indexing: ``x[...]`` and its updates ``set_subtensor`` / ``inc_subtensor``.

``get_item`` (behind ``TensorVariable.__getitem__``) picks the op NumPy's
rules call for: basic indexing (ints, slices, Ellipsis, None) is a Subtensor
view; one integer vector on the first axis is AdvancedSubtensor1; any other
integer/boolean array indexing is AdvancedSubtensor.  Each op's ``idx_list``
says what every index position holds; the symbolic parts are op inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.utils import lazy_exports
from opgraph.tensor.advanced import AdvancedIncSubtensor, AdvancedSubtensor
from opgraph.tensor.constant_value import (
    get_underlying_scalar_constant_value,
    register_constant_rule,
    unique_value,
)
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.exceptions import StaticIndexError
from opgraph.tensor.indexing import (
    ARRAY,
    INT,
    ReadOp,
    SliceLength,
    SliceSpec,
    UpdateOp,
    as_idx_spec,
    basic_static_shape,
    check_basic_inputs,
    check_update_value,
    idx_str,
    numpy_index,
    slice_length,
    split_inputs,
    unflatten_index_variables,
)
from opgraph.tensor.shape import (
    MakeVector,
    Shape,
    as_index_scalar,
    is_int_dtype,
    shape_padleft,
    squeeze,
    static_int,
)
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "AdvancedIncSubtensor",
    "AdvancedIncSubtensor1",
    "AdvancedSubtensor",
    "AdvancedSubtensor1",
    "IncSubtensor",
    "SliceLength",
    "SliceSpec",
    "Subtensor",
    "advanced_inc_subtensor1",
    "advanced_set_subtensor1",
    "advanced_subtensor1",
    "as_index_constant",
    "get_item",
    "inc_subtensor",
    "set_subtensor",
    "unflatten_index_variables",
]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


# --------------------------------------------------------------------------- Subtensor


@attrs.frozen(repr=False)
class Subtensor(ReadOp):
    """Basic indexing ``x[idx]`` (ints and slices); the output is a view of ``x``."""

    idx_spec: tuple = attrs.field(alias="idx_list", converter=as_idx_spec)
    view_map = {0: [0]}

    def make_node(self, x: Any, *inputs: Any) -> Apply:
        x = as_tensor_variable(x)
        idx = check_basic_inputs(self, x, self.idx_spec, inputs)
        out_shape = basic_static_shape(x, self.idx_spec, idx)
        return Apply(self, [x, *idx], [TensorType(x.type.dtype, out_shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, *values = inputs
        out = x[numpy_index(self.idx_spec, values)]
        output_storage[0][0] = out if isinstance(out, np.ndarray) else np.asarray(out)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        x_shape = input_shapes[0]
        parts = split_inputs(self.idx_spec, node.inputs[1:])
        out = []
        for axis, (entry, part) in enumerate(zip(self.idx_spec, parts)):
            if isinstance(entry, SliceSpec):
                out.append(slice_length(x_shape[axis], part))
        return [tuple(out) + tuple(x_shape[len(self.idx_spec) :])]

    def update_op(self) -> IncSubtensor:
        return IncSubtensor(self.idx_spec)

    def __str__(self) -> str:
        return f"Subtensor{{{idx_str(self.idx_spec)}}}"


@attrs.frozen(repr=False)
class IncSubtensor(UpdateOp):
    """``x`` with ``x[idx]`` incremented by (or set to) ``y``; in place when ``inplace``."""

    idx_spec: tuple = attrs.field(alias="idx_list", converter=as_idx_spec)
    inplace: bool = False
    set_instead_of_inc: bool = False

    def make_node(self, x: Any, y: Any, *inputs: Any) -> Apply:
        x = as_tensor_variable(x)
        y = as_tensor_variable(y)
        idx = check_basic_inputs(self, x, self.idx_spec, inputs)
        sub_shape = basic_static_shape(x, self.idx_spec, idx)
        what = "set_subtensor" if self.set_instead_of_inc else "inc_subtensor"
        check_update_value(x, y, sub_shape, what)
        return Apply(self, [x, y, *idx], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y, *values = inputs
        index = numpy_index(self.idx_spec, values)
        output_storage[0][0] = self._write(x, index, y, accumulate=False)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def read_op(self) -> Subtensor:
        return Subtensor(self.idx_spec)

    def __str__(self) -> str:
        return f"IncSubtensor{{{self._label()};{idx_str(self.idx_spec)}}}"


# --------------------------------------------------------------------------- AdvancedSubtensor1


def _as_index_vector(ilist: Any, x: Variable) -> Variable:
    ilist = as_tensor_variable(ilist)
    if ilist.type.ndim != 1 or not is_int_dtype(ilist.type.dtype):
        raise TypeError(
            f"index of {_name(x)} on axis 0 must be an integer vector, got {_name(ilist)} "
            f"of type {ilist.type}"
        )
    if isinstance(ilist, Constant) and x.type.shape and x.type.shape[0] is not None:
        n = x.type.shape[0]
        data = np.asarray(ilist.data)
        bad = data[(data < -n) | (data >= n)]
        if bad.size:
            raise StaticIndexError(
                f"index {int(bad[0])} is out of bounds for axis 0 of {_name(x)} with size {n}"
            )
    return ilist


class AdvancedSubtensor1(ReadOp):
    """``x[ilist]`` for an integer vector ``ilist`` (rows of ``x``, repeats allowed)."""

    __props__ = ()
    # One array index on the first axis, in the idx_spec encoding of the other indexing
    # Ops, so code reading ``op.idx_spec`` (or PyTensor 3's ``op.idx_list``) of any works.
    idx_spec = (ARRAY,)

    def make_node(self, x: Any, ilist: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim == 0:
            raise IndexError(f"cannot index the 0-d tensor {_name(x)} with an integer vector")
        ilist = _as_index_vector(ilist, x)
        out_shape = (ilist.type.shape[0], *x.type.shape[1:])
        return Apply(self, [x, ilist], [TensorType(x.type.dtype, out_shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, ilist = inputs
        try:
            output_storage[0][0] = x[ilist]
        except IndexError as exc:
            raise IndexError(f"indexing {_name(node.inputs[0])}: {exc}") from None

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        x_shape, i_shape = input_shapes
        return [(i_shape[0], *x_shape[1:])]

    def update_op(self) -> AdvancedIncSubtensor1:
        return AdvancedIncSubtensor1()


_advanced_subtensor1 = AdvancedSubtensor1()


def advanced_subtensor1(x: Any, ilist: Any) -> Variable:
    """``x[ilist]`` for an integer vector ``ilist``."""
    return _advanced_subtensor1(x, ilist)


@attrs.frozen(repr=False)
class AdvancedIncSubtensor1(UpdateOp):
    """``x`` with rows ``ilist`` incremented by ``y`` (repeats accumulate, like np.add.at,
    unless ``ignore_duplicates``: then ``x[ilist] += y``)."""

    idx_spec = (ARRAY,)  # as AdvancedSubtensor1's
    inplace: bool = False
    set_instead_of_inc: bool = False
    ignore_duplicates: bool = False

    def make_node(self, x: Any, y: Any, ilist: Any) -> Apply:
        x = as_tensor_variable(x)
        y = as_tensor_variable(y)
        if x.type.ndim == 0:
            raise IndexError(f"cannot index the 0-d tensor {_name(x)} with an integer vector")
        ilist = _as_index_vector(ilist, x)
        sub_shape = (ilist.type.shape[0], *x.type.shape[1:])
        what = "set_subtensor" if self.set_instead_of_inc else "inc_subtensor"
        check_update_value(x, y, sub_shape, what)
        return Apply(self, [x, y, ilist], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y, ilist = inputs
        ilist = np.asarray(ilist)
        if np.ndim(y):
            # Only dimensions of static length 1 broadcast (as everywhere in opgraph).
            region = (len(ilist), *x.shape[1:])[-np.ndim(y):]
            static = node.inputs[1].type.shape
            for d, (ys, rs) in enumerate(zip(np.shape(y), region)):
                if ys == 1 and rs != 1 and static[d] != 1:
                    raise ValueError(
                        f"Runtime broadcasting not allowed. AdvancedIncSubtensor1 was asked to "
                        f"broadcast the value {node.inputs[1]} (shape {np.shape(y)}) along "
                        f"dimension {d} to the indexed region of shape {region}, but its type "
                        f"{node.inputs[1].type} does not declare that dimension of length 1"
                    )
        output_storage[0][0] = self._write(x, ilist, y, accumulate=not self.ignore_duplicates)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def read_op(self) -> AdvancedSubtensor1:
        return _advanced_subtensor1

    def __str__(self) -> str:
        return f"AdvancedIncSubtensor1{{{self._label()}}}"


def advanced_inc_subtensor1(x: Any, y: Any, ilist: Any) -> Variable:
    """``x`` with ``y`` added to rows ``ilist`` (repeated rows accumulate)."""
    return AdvancedIncSubtensor1()(x, y, ilist)


def advanced_set_subtensor1(x: Any, y: Any, ilist: Any) -> Variable:
    """``x`` with rows ``ilist`` replaced by ``y``."""
    return AdvancedIncSubtensor1(set_instead_of_inc=True)(x, y, ilist)


# --------------------------------------------------------------------------- get_item


def _classify(entry: Any, x: Variable) -> tuple[str, Any]:
    """('none'|'ellipsis'|'int'|'slice'|'array', value) for one user index entry."""
    if entry is None or (isinstance(entry, Constant) and entry.data is None):  # NoneConst
        return "none", None
    if entry is Ellipsis:
        return "ellipsis", None
    if isinstance(entry, slice):
        parts = tuple(
            None if p is None else as_index_scalar(p, f"slice bound of {_name(x)}")
            for p in (entry.start, entry.stop, entry.step)
        )
        return "slice", parts
    if isinstance(entry, bool | np.bool_):
        raise NotImplementedError(
            f"indexing {_name(x)} with the scalar boolean {entry!r} is not supported"
        )
    if isinstance(entry, int | np.integer):
        return "int", as_index_scalar(entry)
    if isinstance(entry, float | np.floating):
        raise TypeError(f"index of {_name(x)} must be an integer, got the float {entry!r}")
    if isinstance(entry, list | tuple) and len(entry) == 0:
        entry = np.array([], dtype="int64")  # NumPy reads [] as an empty integer index
    var = as_tensor_variable(entry)
    dtype = var.type.dtype
    if dtype != "bool" and not is_int_dtype(dtype):
        raise TypeError(
            f"index of {_name(x)} must be integers or booleans, got {_name(var)} of type "
            f"{var.type}"
        )
    if var.type.ndim == 0 and dtype != "bool":
        return "int", var
    return "array", var


def _expand(x: Variable, index: Any) -> list[tuple[str, Any]]:
    if not isinstance(index, tuple):
        index = (index,)
    entries = [_classify(e, x) for e in index]
    n_ellipsis = sum(1 for kind, _ in entries if kind == "ellipsis")
    if n_ellipsis > 1:
        raise IndexError(f"an index of {_name(x)} can only have a single ellipsis ('...')")
    consumed = 0
    for kind, value in entries:
        if kind in ("int", "slice"):
            consumed += 1
        elif kind == "array":
            consumed += value.type.ndim if value.type.dtype == "bool" else 1
    if consumed > x.type.ndim:
        raise IndexError(
            f"too many indices for {_name(x)}: it has {x.type.ndim} dimension(s), "
            f"{consumed} were indexed"
        )
    if n_ellipsis:
        pos = next(i for i, (kind, _) in enumerate(entries) if kind == "ellipsis")
        fill = [("slice", (None, None, None))] * (x.type.ndim - consumed)
        entries = entries[:pos] + fill + entries[pos + 1 :]
    return entries


def _basic_idx(entries: Sequence[tuple[str, Any]]) -> tuple[tuple, list[Variable]]:
    idx_list: list[Any] = []
    inputs: list[Variable] = []
    for kind, value in entries:
        if kind == "int":
            idx_list.append(INT)
            inputs.append(value)
        else:
            idx_list.append(SliceSpec(*(p is not None for p in value)))
            inputs.extend(p for p in value if p is not None)
    # Trailing full slices say nothing: drop them so equal indexings merge.
    while idx_list and idx_list[-1] == SliceSpec():
        idx_list.pop()
    return tuple(idx_list), inputs


def _is_full_slice(kind: str, value: Any) -> bool:
    return kind == "slice" and all(p is None for p in value)


def get_item(x: Any, index: Any) -> Variable:
    """``x[index]`` with NumPy's meaning, built from Subtensor and the advanced ops."""
    x = as_tensor_variable(x)
    entries = _expand(x, index)
    kinds = [kind for kind, _ in entries]
    if "array" in kinds:
        return _advanced_get_item(x, entries)
    real = [(k, v) for k, v in entries if k != "none"]
    idx_list, inputs = _basic_idx(real)
    written = index if isinstance(index, tuple) else (index,)
    if not idx_list and "none" not in kinds and any(isinstance(i, slice) for i in written):
        # x[:] is a Subtensor node, as in PyTensor, so set_subtensor(x[:], y) works
        # (rewrites remove the useless indexing); x[:, None] stays a bare DimShuffle.
        idx_list = (SliceSpec(),)
    out = Subtensor(idx_list)(x, *inputs) if idx_list else x
    if "none" not in kinds:
        return out
    new_order: list[Any] = []
    dim = 0
    for kind in kinds:
        if kind == "none":
            new_order.append("x")
        elif kind == "slice":
            new_order.append(dim)
            dim += 1
    new_order.extend(range(dim, out.type.ndim))
    return DimShuffle(input_ndim=out.type.ndim, new_order=tuple(new_order))(out)


def _advanced_get_item(x: Variable, entries: list[tuple[str, Any]]) -> Variable:
    kinds = [kind for kind, _ in entries]
    if "none" in kinds:
        # x[..., None, ...] is x with a length-1 axis inserted there, indexed with a full
        # slice in place of the None: NumPy's result, placement of the advanced axes included.
        order: list[Any] = []
        dim = 0
        for kind, value in entries:
            if kind == "none":
                order.append("x")
                continue
            used = value.type.ndim if kind == "array" and value.type.dtype == "bool" else 1
            order.extend(range(dim, dim + used))
            dim += used
        order.extend(range(dim, x.type.ndim))
        full = ("slice", (None, None, None))
        entries = [full if kind == "none" else (kind, value) for kind, value in entries]
        return _advanced_get_item(x.dimshuffle(*order), entries)
    first_kind, first_value = entries[0]
    if (
        first_kind == "array"
        and first_value.type.ndim == 1
        and first_value.type.dtype != "bool"
        and all(_is_full_slice(k, v) for k, v in entries[1:])
    ):
        return _advanced_subtensor1(x, first_value)
    idx_list: list[Any] = []
    inputs: list[Variable] = []
    for kind, value in entries:
        if kind == "array":
            idx_list.append(ARRAY)
            inputs.append(value)
        elif kind == "int":
            idx_list.append(INT)
            inputs.append(value)
        else:
            idx_list.append(SliceSpec(*(p is not None for p in value)))
            inputs.extend(p for p in value if p is not None)
    return AdvancedSubtensor(tuple(idx_list))(x, *inputs)


# --------------------------------------------------------------------------- set / inc


def _update(x: Any, y: Any, inplace: bool, set_instead_of_inc: bool, who: str,
            ignore_duplicates: bool = False) -> Variable:
    if not isinstance(x, Variable) or x.owner is None:
        raise TypeError(
            f"{who}: the first argument must be the result of indexing a tensor (x[...]), "
            f"got {x!r:.60}"
        )
    y = as_tensor_variable(y)
    op = x.owner.op
    inputs = x.owner.inputs
    if isinstance(op, Subtensor):
        return IncSubtensor(op.idx_spec, inplace, set_instead_of_inc)(inputs[0], y, *inputs[1:])
    if isinstance(op, AdvancedSubtensor1):
        return AdvancedIncSubtensor1(inplace, set_instead_of_inc, ignore_duplicates)(
            inputs[0], y, inputs[1]
        )
    if isinstance(op, AdvancedSubtensor):
        return AdvancedIncSubtensor(op.idx_spec, inplace, set_instead_of_inc, ignore_duplicates)(
            inputs[0], y, *inputs[1:]
        )
    if isinstance(op, DimShuffle) and _only_adds_axes(op):
        inner = inputs[0]
        y = _drop_added_axes(y, x, op, who)
        return _update(inner, y, inplace, set_instead_of_inc, who, ignore_duplicates)
    raise TypeError(
        f"{who}: the first argument must be the result of indexing a tensor (x[...]), "
        f"got {_name(x)}, the output of {op}"
    )


def _only_adds_axes(op: Any) -> bool:
    kept = [o for o in op.new_order if o != "x"]
    return kept == list(range(op.input_ndim))


def _drop_added_axes(y: Variable, x: Variable, op: Any, who: str) -> Variable:
    if y.type.ndim > x.type.ndim:
        raise ValueError(
            f"{who}: the value {_name(y)} has {y.type.ndim} dimension(s), more than the "
            f"{x.type.ndim} of the indexed part"
        )
    y = shape_padleft(y, x.type.ndim - y.type.ndim) if y.type.ndim < x.type.ndim else y
    added = [i for i, o in enumerate(op.new_order) if o == "x"]
    return squeeze(y, axis=added) if added else y


def set_subtensor(
    x: Any, y: Any, inplace: bool = False, tolerate_inplace_aliasing: bool = False
) -> Variable:
    """The tensor ``x`` was indexed from, with that part replaced by ``y``.

    ``set_subtensor(a[1:3], 0)`` is ``a`` with rows 1 and 2 zeroed (a new tensor).
    """
    return _update(x, y, inplace, True, "set_subtensor")


def inc_subtensor(
    x: Any,
    y: Any,
    inplace: bool = False,
    set_instead_of_inc: bool = False,
    tolerate_inplace_aliasing: bool = False,
    ignore_duplicates: bool = False,
) -> Variable:
    """The tensor ``x`` was indexed from, with ``y`` added to that part.

    Repeated integer indices accumulate (like ``np.add.at``); with
    ``ignore_duplicates`` a repeated position is incremented once (``x[i] += y``).
    """
    who = "set_subtensor" if set_instead_of_inc else "inc_subtensor"
    return _update(x, y, inplace, set_instead_of_inc, who, ignore_duplicates)


def as_index_constant(a: Any) -> Any:
    """An index entry with Python ints as int64 constants (slices bound by bound)."""
    if a is None or isinstance(a, Variable):
        return a
    if isinstance(a, slice):
        return slice(*(as_index_constant(p) for p in (a.start, a.stop, a.step)))
    if isinstance(a, int | np.integer) and not isinstance(a, bool | np.bool_):
        return as_index_scalar(a)
    return as_tensor_variable(a)


def _subtensor_constant(v: Variable, owner: Apply, elemwise: bool, budget: int) -> Any:
    """An indexed part of a constant, of a shape, of make_vector, or of a filled tensor.

    The rule of Subtensor in tensor/constant_value.py's table.
    """
    base = owner.inputs[0]
    idx_list = owner.op.idx_spec
    known = [static_int(i) for i in owner.inputs[1:]]
    if all(k is not None for k in known):
        index = numpy_index(idx_list, known)
        if isinstance(base, Constant):
            return unique_value(np.asarray(base.data)[index])
        single = len(idx_list) == 1 and idx_list[0] == INT
        if single and base.owner is not None and isinstance(base.owner.op, Shape):
            static = base.owner.inputs[0].type.shape
            if -len(static) <= known[0] < len(static) and static[known[0]] is not None:
                return static[known[0]]
        if single and base.owner is not None and isinstance(base.owner.op, MakeVector):
            inputs = base.owner.inputs
            if -len(inputs) <= known[0] < len(inputs):
                return get_underlying_scalar_constant_value(inputs[known[0]], True, False, budget)
    # Any part of a tensor filled with one value holds that value.
    return get_underlying_scalar_constant_value(base, True, False, budget)


register_constant_rule(Subtensor, _subtensor_constant)


# PyTensor's indexing helpers live in subtensor_more (built on this module).
__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(
    ("_is_provably_non_negative", "_is_provably_positive", "advanced_inc_subtensor",
     "advanced_set_subtensor", "advanced_subtensor", "as_index_literal", "basic_shape",
     "flip", "get_canonical_form_slice", "indexed_result_shape", "slice_at_axis", "take"),
    "opgraph.tensor.subtensor_more",
))

# ``x[i]``, ``x[i].set(y)``, ``x[i].inc(y)`` (the operators live in opgraph.tensor.variable).
