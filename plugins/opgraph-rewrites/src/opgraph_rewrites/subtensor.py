"""What PyTensor code imports from ``pytensor.tensor.rewriting.subtensor``: indexing in
its cheapest equivalent form.

- whole slices (``x[0:n:1]`` on an axis of length n) become ``:`` and trailing
  ones are dropped (``x[:, :] -> x``);
- an advanced index with one integer array and whole slices becomes
  ``AdvancedSubtensor1`` on a transposed view (``x[:, idx]``);
- a constant arithmetic progression of in-range indices becomes a slice;
- ``x[arange(d) + r, arange(d) + c]`` of a matrix becomes its diagonal;
- ``x + zeros[idx].set(v)`` becomes ``x[idx].inc(v)`` when ``idx`` cannot
  repeat (with repeats the set keeps one value and the increment adds all);
- a Blockwise of a basic ``inc_subtensor`` becomes one ``inc_subtensor`` over
  the batch axes.

Every rule picks the same elements in the same order, so values are exact.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

import opgraph.tensor.basic as tensor_basic
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.plugins import MissingPluginName
from opgraph.scalar.arith import Add
from opgraph.tensor import take
from opgraph.tensor.advanced import AdvancedIncSubtensor, AdvancedSubtensor
from opgraph.tensor.basic import as_tensor_variable
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.creation import Alloc, arange
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.indexing import ARRAY, SliceSpec, split_inputs
from opgraph.tensor.math import clip
from opgraph.tensor.shape import Shape, reshape, shape, static_int
from opgraph.tensor.subtensor import (
    AdvancedIncSubtensor1,
    AdvancedSubtensor1,
    IncSubtensor,
    Subtensor,
    advanced_subtensor1,
    get_item,
    inc_subtensor,
)
from opgraph.tensor.type_other import NoneTypeT
from opgraph_rewrites.registering import register_useless
from opgraph_rewrites.subtensor_index import (
    local_AdvancedIncSubtensor_to_AdvancedIncSubtensor1,
    local_blockwise_of_subtensor,
    local_convert_negative_indices,
    local_subtensor_remove_broadcastable_index,
    local_useless_AdvancedSubtensor1,
)
from opgraph_rewrites.subtensor_inplace import (
    local_inplace_AdvancedIncSubtensor,
    local_inplace_AdvancedIncSubtensor1,
    local_inplace_setsubtensor,
)
from opgraph_rewrites.subtensor_lift import _diag_indices, basic_index
from opgraph_rewrites.subtensor_merge import (
    local_join_subtensors,
    local_subtensor_merge_integer,
    local_subtensor_merge_slice,
    merge_two_slices,
)
from opgraph_rewrites.subtensor_writes import (
    local_incsubtensor_of_zeros,
    local_incsubtensor_of_zeros_to_setsubtensor,
    local_read_of_write_same_indices,
    local_set_to_inc_subtensor,
    local_setsubtensor_of_constants,
    local_useless_inc_subtensor,
    local_write_of_write_same_indices,
)
from opgraph_rewrites.useless import is_dim_of
from opgraph_rewrites.utils import const_value, keep_type

__all__ = [
    "_diag_indices",
    "_slice_to_arange",
    "eager_add_zero",
    "get_advsubtensor_axis",
    "is_full_slice",
    "local_AdvancedIncSubtensor_to_AdvancedIncSubtensor1",
    "local_add_of_sparse_write",
    "local_adv_idx_to_diagonal",
    "local_adv_idx_to_slice",
    "local_blockwise_inc_subtensor",
    "local_blockwise_of_subtensor",
    "local_convert_negative_indices",
    "local_incsubtensor_of_zeros",
    "local_incsubtensor_of_zeros_to_setsubtensor",
    "local_inplace_AdvancedIncSubtensor",
    "local_inplace_AdvancedIncSubtensor1",
    "local_inplace_setsubtensor",
    "local_join_subtensors",
    "local_read_of_write_same_indices",
    "local_replace_AdvancedSubtensor",
    "local_set_to_inc_subtensor",
    "local_setsubtensor_of_constants",
    "local_subtensor_merge_integer",
    "local_subtensor_merge_slice",
    "local_subtensor_remove_broadcastable_index",
    "local_useless_AdvancedSubtensor1",
    "local_useless_inc_subtensor",
    "local_useless_slice",
    "local_useless_subtensor",
    "local_write_of_write_same_indices",
    "merge_two_slices",
    "register_useless",
    "subtensor_rewriters",
    "subtensor_specialize_rewriters",
    "transform_take",
]

_EVAL_BUDGET = 16


def is_full_slice(x: Any) -> bool:
    """Whether ``x`` is a slice taking a whole axis (``:``, every bound None)."""
    if not isinstance(x, slice):
        return False
    return all(b is None or isinstance(getattr(b, "type", None), NoneTypeT)
               for b in (x.start, x.stop, x.step))


def _is_array_index(idx: Any) -> bool:
    ndim = getattr(getattr(idx, "type", None), "ndim", None)
    return (ndim if ndim is not None else np.ndim(idx)) > 0


def get_advsubtensor_axis(indices: Any) -> int | None:
    """The axis a take-like index ``x[:, :, idx]`` applies its one array to, else None
    (anything but whole slices around a single array index)."""
    found = None
    for axis, idx in enumerate(indices):
        if is_full_slice(idx):
            continue
        if found is not None or isinstance(idx, slice) or not _is_array_index(idx):
            return None
        found = axis
    return found


def _const_array(var: Variable, budget: int = _EVAL_BUDGET) -> np.ndarray | None:
    """The value of ``var`` when it is computed from constants only (a small graph)."""
    if isinstance(var, Constant):
        return np.asarray(var.data)
    node = var.owner
    if node is None or budget <= 0 or node.op.destroy_map:
        return None
    if isinstance(node.op, Shape) and None not in node.inputs[0].type.shape:
        return np.asarray(node.inputs[0].type.shape, dtype="int64")  # a static shape
    values = []
    for i in node.inputs:
        v = _const_array(i, budget - 1)
        if v is None:
            return None
        values.append(v)
    cells: list[list[Any]] = [[None] for _ in node.outputs]
    try:
        node.op.perform(node, values, list(cells))
    except Exception:  # an op that cannot run here: not a known constant
        return None
    return np.asarray(cells[node.outputs.index(var)][0])


def eager_add_zero(x: Any, y: Any) -> Variable:
    """``x + y``, or the other term alone when one is a constant zero that adds nothing
    (no broadcast, no dtype change), so rewrites do not build ``x + 0``."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    for zero, other in ((x, y), (y, x)):
        if (const_value(zero) == 0 and isinstance(zero, Constant)
                and zero.type.ndim <= other.type.ndim
                and all(s == 1 for s in zero.type.shape)
                and zero.type.dtype == other.type.dtype):
            return other
    return x + y


def _fixed(node: Apply, new: Variable) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else None


# -- slices -----------------------------------------------------------------------------


def _is_whole(x: Variable, axis: int, sl: slice, fgraph: Any = None) -> bool:
    """``sl`` takes every element of ``x``'s ``axis`` in order."""
    step = 1 if sl.step is None else static_int(sl.step)
    if step != 1:
        return False
    if sl.start is not None and static_int(sl.start) != 0:
        return False
    if sl.stop is None:
        return True
    n = x.type.shape[axis]
    stop = static_int(sl.stop)
    if stop is not None:
        return n is not None and stop >= n
    return is_dim_of(fgraph, sl.stop, x, axis)


def _default_bounds(x: Variable, axis: int, sl: slice, fgraph: Any) -> slice:
    """``sl`` with each bound that equals its default left out: a step of 1; for a
    positive step a start of 0 (or <= -n) and a stop >= n (or n itself); for a negative
    step a start of -1 (or >= n - 1) and a stop < -n.  A symbolic step leaves the
    bounds (their defaults depend on its sign)."""
    if sl.step is None:
        step: int | None = 1
    else:
        step = static_int(sl.step)
        if step is None:
            return sl
    n = x.type.shape[axis]
    start = None if sl.start is None else static_int(sl.start)
    stop = None if sl.stop is None else static_int(sl.stop)
    new_start, new_stop = sl.start, sl.stop
    if step > 0:
        if start is not None and (start == 0 or (n is not None and start <= -n)):
            new_start = None
        if sl.stop is not None and (
                (stop is not None and n is not None and stop >= n)
                or (stop is None and is_dim_of(fgraph, sl.stop, x, axis))):
            new_stop = None
    else:
        if start is not None and (start == -1 or (n is not None and start >= n - 1)):
            new_start = None
        if stop is not None and n is not None and stop < -n:
            new_stop = None
    return slice(new_start, new_stop, None if step == 1 else sl.step)


@node_rewriter([Subtensor], name="local_useless_slice")
def local_useless_slice(fgraph: Any, node: Apply) -> Any:
    """x[0:n:1, 1:5:2] -> x[:, 1::2] (n, 5 the lengths); x[a:b, :] -> x[a:b]; x[:, :] -> x.

    Each bound equal to its default goes (values are the same: NumPy clips bounds to
    the axis), then trailing whole slices."""
    x = node.inputs[0]
    index = basic_index(node)
    new = [_default_bounds(x, k, e, fgraph) if isinstance(e, slice) else e
           for k, e in enumerate(index)]
    while new and isinstance(new[-1], slice) and new[-1] == slice(None):
        new.pop()
    if len(new) == len(index) and all(
            a is b or (isinstance(a, slice) and isinstance(b, slice)
                       and (a.start, a.stop, a.step) == (b.start, b.stop, b.step))
            for a, b in zip(new, index)):
        return None
    return _fixed(node, get_item(x, tuple(new)) if new else x)


def _slice_to_arange(sl: slice, length: Any) -> Variable | None:
    """The indices ``sl`` takes from an axis of (symbolic) ``length``, as an ``arange``.

    Start, stop and step must be None or constant ints (None otherwise);
    negative values count from the end and are clipped as Python does.
    """
    parts = (sl.start, sl.stop, sl.step)
    known = [None if p is None else static_int(p) for p in parts]
    if any(p is not None and k is None for p, k in zip(parts, known)):
        return None
    start, stop, step = known
    step = 1 if step is None else step
    if step == 0:
        raise ValueError("slice step cannot be zero")

    def norm(v: int, low: Any, high: Any) -> Any:
        return clip(length + v, low, high) if v < 0 else clip(v, low, high)

    if step > 0:
        first = 0 if start is None else norm(start, 0, length)
        last = length if stop is None else norm(stop, 0, length)
    else:
        first = length - 1 if start is None else norm(start, -1, length - 1)
        last = -1 if stop is None else norm(stop, -1, length - 1)
    return arange(first, last, step, dtype="int64")


# -- advanced indices -------------------------------------------------------------------


def _single_array(node: Apply) -> tuple[int, Variable] | None:
    """(axis, index array) when the only advanced entry is one integer array and every
    other entry is a whole slice."""
    parts = split_inputs(node.op.idx_spec, node.inputs[1:])
    found = None
    for axis, (entry, part) in enumerate(zip(node.op.idx_spec, parts)):
        if isinstance(entry, SliceSpec):
            if any(p is not None for p in part):
                return None
        elif entry == ARRAY and found is None and part.type.dtype[:3] in ("int", "uin"):
            found = (axis, part)
        else:
            return None
    return found


@node_rewriter([AdvancedSubtensor], name="local_replace_AdvancedSubtensor")
def local_replace_AdvancedSubtensor(fgraph: Any, node: Apply) -> Any:
    """x[:, idx] -> AdvancedSubtensor1 on x with the indexed axis moved first, then moved
    back (an index array of any rank is flattened and its shape restored)."""
    found = _single_array(node)
    if found is None:
        return None
    axis, idx = found
    x = node.inputs[0]
    nd = x.type.ndim
    order = (axis, *[k for k in range(nd) if k != axis])
    xt = x if axis == 0 else DimShuffle(input_ndim=nd, new_order=order)(x)
    if idx.type.ndim == 1:
        taken = advanced_subtensor1(xt, idx)
    else:
        flat = advanced_subtensor1(xt, idx.ravel())
        rest = [shape(xt)[k] for k in range(1, nd)]
        taken = reshape(flat, [*[shape(idx)[k] for k in range(idx.type.ndim)], *rest],
                        ndim=idx.type.ndim + nd - 1)
    k = idx.type.ndim
    # taken: (idx dims..., x axes except `axis`); NumPy puts idx dims at `axis`
    back = (*range(k, k + axis), *range(k), *range(k + axis, k + nd - 1))
    new = taken if back == tuple(range(len(back))) else DimShuffle(
        input_ndim=taken.type.ndim, new_order=back)(taken)
    return _fixed(node, new)


def _progression(values: np.ndarray, n: int | None) -> slice | None:
    """The slice taking ``values`` (a 1-d integer array) from an axis of static length ``n``,
    when they form an arithmetic progression inside [0, n)."""
    if values.ndim != 1 or values.dtype.kind not in "iu" or n is None or values.size == 0:
        return None
    if values.min() < 0 or values.max() >= n:
        return None
    if values.size == 1:
        first = int(values[0])
        return slice(first, first + 1)
    steps = np.diff(values)
    step = int(steps[0])
    if step == 0 or not np.all(steps == step):
        return None
    first, last = int(values[0]), int(values[-1])
    stop = last + step
    # the shortest spelling: defaults left out (x[0:10:1] on a length-10 axis is x[:])
    start = None if (step > 0 and first == 0) or (step < 0 and first == n - 1) else first
    stop = None if stop < 0 or (step > 0 and stop >= n) else stop
    return slice(start, stop, None if step == 1 else step)


@node_rewriter([AdvancedSubtensor1, AdvancedSubtensor], name="local_adv_idx_to_slice")
def local_adv_idx_to_slice(fgraph: Any, node: Apply) -> Any:
    """x[[0, 2, 4]] -> x[0:6:2]: a constant in-range progression read as a slice."""
    x = node.inputs[0]
    if isinstance(node.op, AdvancedSubtensor1):
        axis, idx = 0, node.inputs[1]
    else:
        found = _single_array(node)
        if found is None:
            return None
        axis, idx = found
    values = _const_array(idx)
    if values is None:
        return None
    sl = _progression(values, x.type.shape[axis])
    if sl is None:
        return None
    index = [slice(None)] * axis + [sl]
    return _fixed(node, get_item(x, tuple(index)))


def _offset_arange(var: Variable) -> tuple[int, int] | None:
    """(length, offset) when ``var`` holds ``arange(length) + offset`` (constants)."""
    values = _const_array(var)
    if values is None or values.ndim != 1 or values.dtype.kind not in "iu" or not values.size:
        return None
    if not np.array_equal(values, np.arange(values.size) + values[0]):
        return None
    return int(values.size), int(values[0])


@node_rewriter([AdvancedSubtensor], name="local_adv_idx_to_diagonal")
def local_adv_idx_to_diagonal(fgraph: Any, node: Apply) -> Any:
    """m[arange(d) + r, arange(d) + c] -> diagonal(m, c - r) for a matrix whose static
    shape shows the index is the whole diagonal (and in range)."""
    x, *idx = node.inputs
    if x.type.ndim != 2 or len(idx) != 2 or node.op.idx_spec != (ARRAY, ARRAY):
        return None
    rows, cols = _offset_arange(idx[0]), _offset_arange(idx[1])
    n, m = x.type.shape
    if rows is None or cols is None or n is None or m is None or rows[0] != cols[0]:
        return None
    (d, r), (_, c) = rows, cols
    if min(r, c) != 0 or d != min(n - r, m - c) or d <= 0:
        return None
    diagonal = getattr(tensor_basic, "diagonal", None)
    if diagonal is None or isinstance(diagonal, MissingPluginName):
        return None  # opgraph-linalg, which serves the diagonal op, is absent or disabled
    return _fixed(node, diagonal(x, offset=c - r))


# -- writes -----------------------------------------------------------------------------


def _is_zeros_like(z: Variable, x: Variable, fgraph: Any) -> bool:
    value = const_value(z)
    if value is None or value != 0 or z.type.ndim != x.type.ndim:
        return False
    if isinstance(z, Constant):
        return z.type.shape == x.type.shape and None not in x.type.shape
    node = z.owner
    if node is None or not isinstance(node.op, Alloc) or len(node.inputs) - 1 != x.type.ndim:
        return False
    return all(is_dim_of(fgraph, d, x, k) for k, d in enumerate(node.inputs[1:]))


def _never_repeats(op: Any, idx: list[Variable]) -> bool:
    if isinstance(op, IncSubtensor):
        return True  # basic indexing never repeats a position
    if len(idx) != 1:
        return False
    values = _const_array(idx[0])
    return values is not None and values.ndim == 1 and np.unique(values).size == values.size


@node_rewriter([Elemwise], name="local_add_of_sparse_write")
def local_add_of_sparse_write(fgraph: Any, node: Apply) -> Any:
    """x + zeros_like(x)[idx].set(v) -> x[idx].inc(v) (also for .inc into zeros), when
    the write cannot repeat a position."""
    if not isinstance(node.op.scalar_op, Add) or len(node.inputs) != 2:
        return None
    out = node.outputs[0]
    for x, w in (node.inputs, node.inputs[::-1]):
        write = w.owner
        if write is None or not isinstance(
                write.op, IncSubtensor | AdvancedIncSubtensor1 | AdvancedIncSubtensor):
            continue
        if x.type != out.type or w.type.dtype != out.type.dtype:
            continue
        zeros, v, *idx = write.inputs
        if not _is_zeros_like(zeros, x, fgraph) or not _never_repeats(write.op, idx):
            continue
        op = type(write.op)(**{**_fields(write.op), "set_instead_of_inc": False,
                               "inplace": False})
        return _fixed(node, op(x, v, *idx))
    return None


def _fields(op: Any) -> dict[str, Any]:
    """The constructor arguments of an indexing Op (a class-level ``idx_list``, such as
    AdvancedIncSubtensor1's, is not one)."""
    names = {"idx_list": "idx_spec", "inplace": "inplace",
             "set_instead_of_inc": "set_instead_of_inc", "ignore_duplicates": "ignore_duplicates"}
    accepted = inspect.signature(type(op)).parameters
    return {k: getattr(op, a) for k, a in names.items() if hasattr(op, a) and k in accepted}


@node_rewriter([Blockwise], name="local_blockwise_inc_subtensor")
def local_blockwise_inc_subtensor(fgraph: Any, node: Apply) -> Any:
    """Blockwise(inc_subtensor) -> inc_subtensor(x[:, ..., idx], y): the batch axes become
    leading whole slices (only when the index inputs are not batched)."""
    core = node.op.core_op
    if not isinstance(core, IncSubtensor):
        return None
    x, y, *idx = node.inputs
    x_sig, y_sig = node.op.inputs_sig[0], node.op.inputs_sig[1]
    if any(i.type.ndim != len(sig) for i, sig in zip(idx, node.op.inputs_sig[2:])):
        return None
    nb = node.outputs[0].type.ndim - len(node.op.outputs_sig[0])
    if nb <= 0 or x.type.ndim != nb + len(x_sig):
        return None  # x itself is not batched: each batch would write its own copy
    parts = split_inputs(core.idx_spec, idx)
    core_index = [slice(*p) if isinstance(e, SliceSpec) else p
                  for e, p in zip(core.idx_spec, parts)]
    target = get_item(x, (*[slice(None)] * nb, *core_index))
    # y: its batch axes (left-padded to nb), then its core axes right-aligned with the
    # core of the target, as the core op broadcasts them
    y_batch = y.type.ndim - len(y_sig)
    sub_core = target.type.ndim - nb
    order = (["x"] * (nb - y_batch) + list(range(y_batch))
             + ["x"] * (sub_core - len(y_sig)) + list(range(y_batch, y.type.ndim)))
    y_full = y if order == list(range(y.type.ndim)) else DimShuffle(
        input_ndim=y.type.ndim, new_order=tuple(order))(y)
    new = inc_subtensor(target, y_full, set_instead_of_inc=core.set_instead_of_inc)
    return _fixed(node, new)


def subtensor_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase (local_replace_AdvancedSubtensor
    is a specialization, as in PyTensor: see subtensor_specialize_rewriters)."""
    return [
        ("local_useless_slice", local_useless_slice, ("fast_compile",)),
        ("local_adv_idx_to_slice", local_adv_idx_to_slice, ()),
        ("local_adv_idx_to_diagonal", local_adv_idx_to_diagonal, ()),
        ("local_add_of_sparse_write", local_add_of_sparse_write, ()),
        ("local_blockwise_inc_subtensor", local_blockwise_inc_subtensor, ()),
    ]


def subtensor_specialize_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the specialize phase."""
    return [("local_replace_AdvancedSubtensor", local_replace_AdvancedSubtensor, ())]


#: PyTensor's name: a Subtensor taking whole axes goes (``local_useless_slice``'s job).
local_useless_subtensor = local_useless_slice


def transform_take(a: Variable, indices: Variable, axis: int) -> Variable:
    """``a[:, ..., indices, ...]`` with ``indices`` on ``axis``: what ``np.take(a,
    indices, axis)`` gives, built from one-dimensional (AdvancedSubtensor1) indexing."""
    return take(a, indices, axis=axis)
