"""PyTensor's indexing helpers: literal indices, canonical slices, result shapes,
``flip``/``take``/``slice_at_axis`` and the ``advanced_*subtensor`` functions.

They are written on top of ``get_item``/``set_subtensor`` so every result is an
ordinary indexing graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Constant, Variable
from opgraph.scalar.structural import Cast
from opgraph.scalar.type import ScalarType
from opgraph.tensor import math as ptm
from opgraph.tensor.arrays import take
from opgraph.tensor.constant_value import get_scalar_constant_value
from opgraph.tensor.creation import zeros
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.exceptions import NotScalarConstantError
from opgraph.tensor.shape import Shape, Shape_i
from opgraph.tensor.subtensor import Subtensor, get_item, inc_subtensor, set_subtensor
from opgraph.tensor.type_other import NoneConst
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "advanced_inc_subtensor",
    "advanced_set_subtensor",
    "advanced_subtensor",
    "as_index_literal",
    "basic_shape",
    "flip",
    "get_canonical_form_slice",
    "indexed_result_shape",
    "slice_at_axis",
    "take",
]


def as_index_literal(idx: Any) -> Any:
    """An index entry with its constant parts as Python ints (``None``/``Ellipsis`` kept).

    Raises NotScalarConstantError when a part is only known at run time.
    """
    if idx is None or idx is Ellipsis or idx is NoneConst:
        return None if idx is NoneConst else idx
    if isinstance(idx, slice):
        return slice(*(as_index_literal(p) for p in (idx.start, idx.stop, idx.step)))
    if isinstance(idx, int | np.integer):
        return int(idx)
    if isinstance(idx, Constant) and isinstance(getattr(idx, "data", None), slice):
        return as_index_literal(idx.data)
    return int(get_scalar_constant_value(idx))


def slice_at_axis(sl: slice, axis: int) -> tuple:
    """An index tuple applying ``sl`` on ``axis`` only (a negative axis counts from the end).

    ``(slice(None),) * axis + (sl, ...)``, or ``(..., sl) + (slice(None),) * (-1 - axis)``.
    """
    if axis < 0:
        return (Ellipsis, sl) + (slice(None),) * (-1 - axis)
    return (slice(None),) * axis + (sl, Ellipsis)


def flip(arr: Any, axis: int | Sequence[int] | None = None) -> Variable:
    """``arr`` with the order of elements reversed along ``axis`` (all axes when None)."""
    arr = as_tensor_variable(arr)
    ndim = arr.type.ndim
    axes = range(ndim) if axis is None else ([axis] if isinstance(axis, int) else axis)
    index = [slice(None)] * ndim
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise ValueError(f"flip: axis {ax} is out of bounds for a {ndim}-d array")
        index[ax % ndim] = slice(None, None, -1)
    return get_item(arr, tuple(index))


def advanced_subtensor(x: Any, *args: Any) -> Variable:
    """``x[args]`` (PyTensor's functional spelling of advanced indexing)."""
    return get_item(as_tensor_variable(x), tuple(args))


def advanced_inc_subtensor(x: Any, y: Any, *args: Any, set_instead_of_inc: bool = False,
                           ignore_duplicates: bool = False, inplace: bool = False) -> Variable:
    """``x`` with ``y`` added at (or, with ``set_instead_of_inc``, written to) ``x[args]``."""
    sub = get_item(as_tensor_variable(x), tuple(args))
    if set_instead_of_inc:
        return set_subtensor(sub, y, inplace=inplace)
    return inc_subtensor(sub, y, inplace=inplace, ignore_duplicates=ignore_duplicates)


def advanced_set_subtensor(x: Any, y: Any, *args: Any, inplace: bool = False) -> Variable:
    """``x`` with ``y`` written at ``x[args]``."""
    return advanced_inc_subtensor(x, y, *args, set_instead_of_inc=True, inplace=inplace)


def _dummy(shape: Any, dtype: str) -> Variable:
    return zeros([s for s in shape], dtype=dtype)


def indexed_result_shape(array_shape: Sequence[Any], indices: Sequence[Any],
                         indices_are_shapes: bool = False) -> tuple:
    """The shape of ``x[indices]`` for an ``x`` of ``array_shape`` (NumPy's rules).

    With ``indices_are_shapes`` the array entries of ``indices`` are the shapes of
    the index arrays rather than the arrays.
    """
    idx = []
    for entry in indices:
        if indices_are_shapes and isinstance(entry, tuple | list | Variable | np.ndarray) \
                and not isinstance(entry, slice):
            idx.append(_dummy(entry, "int64"))
        else:
            idx.append(entry)
    out = get_item(_dummy(array_shape, "int8"), tuple(idx))
    return tuple(out.shape[i] for i in range(out.type.ndim))


def basic_shape(shape: Sequence[Any], indices: Sequence[Any]) -> tuple:
    """The lengths the basic ``indices`` (slices, ``None``) give, one per index.

    As PyTensor's: index ``i`` is paired with ``shape[i]`` (a ``None`` gives 1), and
    dimensions after the last index are not included.
    """
    out: list[Any] = []
    for n, entry in zip(shape[: len(indices)], indices):
        if isinstance(entry, slice):
            out.append(indexed_result_shape((n,), (entry,))[0])
        elif entry is None:
            out.append(as_tensor_variable(np.int64(1)))
        else:
            raise ValueError(f"basic_shape: only slices and None are basic indices, got {entry!r}")
    return tuple(out)


def _is_int_like(x: Any) -> bool:
    if isinstance(x, int | np.integer) and not isinstance(x, bool):
        return True
    return isinstance(x, Variable) and getattr(x.type, "ndim", None) == 0 and str(
        x.type.dtype).startswith(("int", "uint"))


def get_canonical_form_slice(theslice: Any, length: Any) -> tuple[Any, int | Variable]:
    """An increasing slice (or index) and a direction (1 or -1) such that
    ``x[theslice] == x[canonical][::direction]`` for ``len(x) == length``.

    An integer index becomes non-negative (``i + length`` when ``i < 0``).
    """
    if _is_int_like(theslice):
        if isinstance(theslice, int | np.integer):
            value = int(theslice)
            return (value + length if value < 0 else value), 1
        try:
            value = int(get_scalar_constant_value(theslice))
        except NotScalarConstantError:
            t = as_tensor_variable(theslice)
            return ptm.switch(ptm.lt(t, 0), t + length, t), 1
        if value >= 0:
            return theslice, 1
        return as_tensor_variable(theslice) + length, 1
    if not isinstance(theslice, slice):
        raise ValueError(f"get_canonical_form_slice: {theslice!r} is not a supported slice")
    start, stop, step = theslice.start, theslice.stop, theslice.step
    literal = [as_index_literal_or_none(p) for p in (start, stop, step, length)]
    if all(v is not None or p is None for v, p in zip(literal, (start, stop, step, length),
                                                      strict=True)):
        s0, s1, st, n = literal
        first, last, stp = slice(s0, s1, st).indices(n)
        count = len(range(first, last, stp))
        if stp > 0:
            return slice(first, first + count * stp if count else first, stp), 1
        if count == 0:
            return slice(0, 0, 1), -1
        low = first + (count - 1) * stp
        return slice(low, first + 1, -stp), -1
    return _symbolic_canonical(start, stop, step, length)


def as_index_literal_or_none(part: Any) -> int | None:
    """``as_index_literal`` for one slice part, None when it is not a constant."""
    if part is None:
        return None
    try:
        return as_index_literal(part)
    except (NotScalarConstantError, TypeError):
        return None


def _symbolic_canonical(start: Any, stop: Any, step: Any, length: Any) -> tuple:
    """``slice.indices`` and reversal written as a graph (parts known only at run time)."""
    n = as_tensor_variable(length)
    one = as_tensor_variable(np.int64(1))
    st = one if step is None else as_tensor_variable(step)
    pos = ptm.gt(st, 0)

    def norm(v: Any, default_pos: Any, default_neg: Any) -> Variable:
        if v is None:
            return ptm.switch(pos, default_pos, default_neg)
        v = as_tensor_variable(v)
        v = ptm.switch(ptm.lt(v, 0), v + n, v)
        low = ptm.switch(pos, 0, -1)
        high = ptm.switch(pos, n, n - 1)
        return ptm.minimum(ptm.maximum(v, low), high)

    first = norm(start, 0, n - 1)
    last = norm(stop, n, -1)
    abs_st = ptm.abs(st)
    span = ptm.switch(pos, last - first, first - last)
    count = ptm.maximum(0, (span + abs_st - 1) // abs_st)
    low = ptm.switch(pos, first, first - (count - 1) * abs_st)
    low = ptm.switch(ptm.gt(count, 0), low, 0)
    high = ptm.switch(ptm.gt(count, 0), low + (count - 1) * abs_st + 1, 0)
    direction = ptm.switch(pos, 1, -1)
    return slice(low, high, abs_st), direction


def _provably(var: Any, strict: bool) -> bool:
    """Whether ``var`` is > 0 (``strict``) or >= 0 everywhere, from its graph alone."""
    if isinstance(var, int | float | np.number):
        return var > 0 if strict else var >= 0
    var = as_tensor_variable(var) if not isinstance(var.type, ScalarType) else var
    if isinstance(var, Constant):
        data = np.asarray(var.data)
        return bool(np.all(data > 0) if strict else np.all(data >= 0))
    dtype = str(getattr(var.type, "dtype", ""))
    owner = var.owner
    if owner is None:
        return (dtype.startswith("uint") and not strict) or (dtype == "bool" and not strict)
    op = owner.op
    if isinstance(op, Shape | Shape_i):
        return not strict
    if dtype.startswith("uint") and not strict:
        return True
    if isinstance(op, Elemwise):
        scalar = op.scalar_op
        if scalar == ptm.minimum.scalar_op:
            return all(_provably(i, strict) for i in owner.inputs)
        if scalar == ptm.maximum.scalar_op:
            return any(_provably(i, strict) for i in owner.inputs)
        if scalar == ptm.abs.scalar_op or scalar == ptm.sqr.scalar_op:
            return not strict
        if scalar == ptm.exp.scalar_op:
            return True
        if isinstance(scalar, Cast):
            # a cast keeps the sign, but float -> int may round a positive value to zero
            return _provably(owner.inputs[0], strict) and (
                not strict or not dtype.startswith(("int", "uint"))
            )
    if isinstance(op, Subtensor) and owner.inputs[0].owner is not None and isinstance(
        owner.inputs[0].owner.op, Shape
    ):
        return not strict
    return False


def _is_provably_non_negative(var: Any) -> bool:
    """Whether every value of ``var`` is >= 0, judged from the graph (False: unknown)."""
    return _provably(var, strict=False)


def _is_provably_positive(var: Any, strict: bool = True) -> bool:
    """Whether every value of ``var`` is > 0 (``strict``) or >= 0, from the graph."""
    return _provably(var, strict=strict)
