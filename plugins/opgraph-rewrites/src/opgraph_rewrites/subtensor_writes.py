"""PyTensor's rewrites of writes (``inc_subtensor``/``set_subtensor``) and of reads of
writes, under PyTensor's names, in the forms that keep NumPy's values and errors.

- ``x[:, ::-1].set(y) -> y[:, ::-1]`` (allocated to x's shape when it may be
  smaller), ``x[:].inc(y) -> x + y`` (``local_useless_inc_subtensor``);
- ``x[idx].inc(zeros) -> x`` and ``c[idx].set(c) -> c`` for a constant-valued
  ``c`` (``local_incsubtensor_of_zeros``, ``local_setsubtensor_of_constants``):
  the check that the value fits ``x[idx]`` (and that a constant index is in
  range) stays as an assertion, where PyTensor drops it;
- ``x[idx].inc(v)[idx] -> x[idx] + v`` and ``x[sl].set(v)[sl] -> v``
  (``local_read_of_write_same_indices``) when ``idx`` cannot repeat a position;
- ``x[idx].set(a)[idx].inc(b) -> x[idx].set(a + b)`` and ``x[idx].set(a)[idx].set(b)
  -> x[idx].set(b)`` when ``a`` provably fits (``local_write_of_write_same_indices``);
- ``x[i].set(x[i] + v) -> x[i].inc(v)`` for constant unique ``i``
  (``local_set_to_inc_subtensor``).

A rewrite that would change a value (a set with repeated indices, an increment
regrouped) or drop an error is not done: docs/migrating.md lists the PyTensor tests
that expect it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.raise_op import CheckAndRaise
from opgraph.scalar.arith import Add
from opgraph.tensor.basic import cast
from opgraph.tensor.creation import alloc
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.indexing import SliceSpec, split_inputs
from opgraph.tensor.math import and_, eq, ge, lt, or_
from opgraph.tensor.shape import shape, static_int
from opgraph.tensor.subtensor import (
    AdvancedIncSubtensor1,
    AdvancedSubtensor1,
    IncSubtensor,
    Subtensor,
)
from opgraph_rewrites.utils import const_value, keep_type

__all__ = [
    "local_incsubtensor_of_zeros",
    "local_incsubtensor_of_zeros_to_setsubtensor",
    "local_read_of_write_same_indices",
    "local_set_to_inc_subtensor",
    "local_setsubtensor_of_constants",
    "local_useless_inc_subtensor",
    "local_write_of_write_same_indices",
    "subtensor_write_rewriters",
]

_WRITES = (IncSubtensor, AdvancedIncSubtensor1)
_check_fit = CheckAndRaise(ValueError, "the written value does not fit the indexed part")
_check_range = CheckAndRaise(IndexError, "index out of bounds")


def _fixed(node: Apply, new: Variable) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else None


def _entries(op: Any, idx: list[Variable]) -> list[Any]:
    """The index as Python entries (variables and slices of them)."""
    if isinstance(op, AdvancedSubtensor1 | AdvancedIncSubtensor1):
        return list(idx)
    parts = split_inputs(op.idx_spec, idx)
    return [slice(*p) if isinstance(e, SliceSpec) else p for e, p in zip(op.idx_spec, parts)]


def _const_index(var: Variable) -> np.ndarray | None:
    if isinstance(var, Constant):
        return np.asarray(var.data)
    return None


def _unique_positions(op: Any, idx: list[Variable]) -> bool:
    """The index cannot name one position twice: basic indexing, or a constant vector of
    distinct entries of one sign (``0`` and ``-n`` may alias)."""
    if isinstance(op, IncSubtensor | Subtensor):
        return True
    values = _const_index(idx[0])
    if values is None or values.ndim != 1:
        return False
    one_sign = bool(np.all(values >= 0) or np.all(values < 0))
    return one_sign and np.unique(values).size == values.size


def _read(op: Any, x: Variable, idx: list[Variable]) -> Variable:
    """``x[idx]`` with the read Op matching the write ``op``."""
    return op.read_op()(x, *idx)


def _fit_conditions(y: Variable, region: Variable, runtime_one: bool) -> list[Variable]:
    """Run-time conditions that ``y`` broadcasts onto ``region`` (static ones dropped);
    ``runtime_one``: a length 1 known only at run time broadcasts too (IncSubtensor, as
    NumPy; AdvancedIncSubtensor1 refuses it)."""
    conds = []
    offset = region.type.ndim - y.type.ndim
    for d, ys in enumerate(y.type.shape):
        rs = region.type.shape[offset + d]
        if ys == 1 or (ys is not None and rs is not None):
            continue  # broadcasts, or make_node already compared the static lengths
        length = shape(y)[d]
        same = eq(length, shape(region)[offset + d])
        conds.append(or_(eq(length, 1), same) if runtime_one else same)
    return conds


def _range_conditions(op: Any, x: Variable, idx: list[Variable]) -> list[Variable] | None:
    """Run-time conditions that the index is in range; None when it cannot be written
    (a symbolic integer or array index)."""
    conds: list[Variable] = []
    for axis, entry in enumerate(_entries(op, idx)):
        if isinstance(entry, slice):
            continue  # a slice never raises
        values = _const_index(entry)
        if values is None:
            i = static_int(entry)
            if i is None:
                return None
            values = np.asarray([i])
        if values.size == 0:
            continue
        n = x.type.shape[axis]
        lo, hi = int(values.min()), int(values.max())
        if n is not None:
            if lo < -n or hi >= n:
                return None  # raises: leave the node to raise it
            continue
        length = shape(x)[axis]
        conds.append(and_(ge(lo, -length), lt(hi, length)))
    return conds


def _all(conds: list[Variable]) -> Variable:
    out = conds[0]
    for c in conds[1:]:
        out = and_(out, c)
    return out


def _x_checked(node: Apply) -> Any:
    """``x`` (the written tensor) carrying the checks the write did, or None."""
    x, y, *idx = node.inputs
    ranges = _range_conditions(node.op, x, idx)
    if ranges is None:
        return None
    fits = _fit_conditions(y, _read(node.op, x, idx), isinstance(node.op, IncSubtensor))
    out = x  # the range check first (inner): NumPy's IndexError comes before the fit
    if ranges:
        out = _check_range(out, _all(ranges))
    if fits:
        out = _check_fit(out, _all(fits))
    return _fixed(node, out)


@node_rewriter([IncSubtensor, AdvancedIncSubtensor1], name="local_incsubtensor_of_zeros")
def local_incsubtensor_of_zeros(fgraph: Any, node: Apply) -> Any:
    """x[idx].inc(zeros) -> x (the value's fit and the index range still checked)."""
    if node.op.set_instead_of_inc or const_value(node.inputs[1]) != 0:
        return None
    return _x_checked(node)


@node_rewriter([IncSubtensor, AdvancedIncSubtensor1], name="local_setsubtensor_of_constants")
def local_setsubtensor_of_constants(fgraph: Any, node: Apply) -> Any:
    """c[idx].set(c) -> c for a tensor ``c`` holding one constant value everywhere."""
    if not node.op.set_instead_of_inc:
        return None
    x, y = node.inputs[:2]
    cx, cy = const_value(x), const_value(y)
    if cx is None or cy is None or np.isnan(cx) or np.asarray(cy).astype(x.type.dtype) != cx:
        return None
    return _x_checked(node)


def _is_whole(entry: Any) -> bool:
    """``:`` or ``::-1`` (every element, possibly reversed)."""
    if not isinstance(entry, slice) or entry.start is not None or entry.stop is not None:
        return False
    return entry.step is None or static_int(entry.step) == -1


@node_rewriter([IncSubtensor], name="local_incsubtensor_of_zeros_to_setsubtensor")
def local_incsubtensor_of_zeros_to_setsubtensor(fgraph: Any, node: Apply) -> Any:
    """zeros[idx].inc(y) -> zeros[idx].set(y) for a constant of zeros (0 + y is y, as the
    standard ``zeros + y -> y``)."""
    x = node.inputs[0]
    if node.op.set_instead_of_inc or not isinstance(x, Constant) or np.any(x.data):
        return None
    op = IncSubtensor(node.op.idx_spec, inplace=node.op.inplace, set_instead_of_inc=True)
    return _fixed(node, op(*node.inputs))


@node_rewriter([IncSubtensor], name="local_useless_inc_subtensor")
def local_useless_inc_subtensor(fgraph: Any, node: Apply) -> Any:
    """x[:, ::-1].set(y) -> y[:, ::-1]; zeros[:].inc(y) -> y; x[:].inc(y) -> x + y."""
    x, y, *idx = node.inputs
    entries = _entries(node.op, idx)
    if not all(_is_whole(e) for e in entries):
        return None
    out_dtype = node.outputs[0].type.dtype
    if not _fits_without_runtime_broadcast(fgraph, x, y):
        # IncSubtensor broadcasts a length that is 1 only at run time (as NumPy does);
        # alloc and elemwise refuse to: the write stays
        return None
    if y.type.dtype != out_dtype:
        y = cast(y, out_dtype)
    if not _same_lengths(fgraph, x, y):
        y = alloc(y, *[shape(x)[k] for k in range(x.type.ndim)])  # static 1s broadcast
    if any(e.step is not None for e in entries):
        y = Subtensor(node.op.idx_spec)(y, *idx)
    if node.op.set_instead_of_inc or const_value(x) == 0:  # as the standard zeros + y -> y
        return _fixed(node, y)
    return _fixed(node, x + y)


def _fits_without_runtime_broadcast(fgraph: Any, x: Variable, y: Variable) -> bool:
    """Each axis of ``y`` is static 1 (it broadcasts) or provably as long as ``x``'s."""
    feature = getattr(fgraph, "shape_feature", None)
    offset = x.type.ndim - y.type.ndim
    for d, ys in enumerate(y.type.shape):
        xs = x.type.shape[offset + d]
        if ys == 1 or (ys is not None and ys == xs):
            continue
        if feature is None or not feature.same_shape(x, y, offset + d, d):
            return False
    return True


def _same_lengths(fgraph: Any, x: Variable, y: Variable) -> bool:
    """``y`` has ``x``'s shape: statically, or as the ShapeFeature proves it."""
    if y.type.ndim != x.type.ndim:
        return False
    if None not in x.type.shape and x.type.shape == y.type.shape:
        return True
    feature = getattr(fgraph, "shape_feature", None)
    return feature is not None and all(
        (xs is not None and xs == ys) or feature.same_shape(x, y, d, d)
        for d, (xs, ys) in enumerate(zip(x.type.shape, y.type.shape)))


def _same_write(read: Apply, write: Apply) -> bool:
    """``read`` indexes ``write``'s output exactly where ``write`` wrote."""
    if read.op.idx_spec != write.op.idx_spec:
        return False
    r_idx, w_idx = read.inputs[1:], write.inputs[2:]
    return len(r_idx) == len(w_idx) and all(a is b for a, b in zip(r_idx, w_idx))


def _broadcast_safe(base: Variable, v: Variable) -> bool:
    """``base + v`` broadcasts ``base`` nowhere (its static 1s meet static 1s in ``v``)."""
    if v.type.ndim > base.type.ndim:
        return False
    offset = base.type.ndim - v.type.ndim
    return all(not (b == 1 and v.type.shape[d - offset] != 1)
               for d, b in enumerate(base.type.shape) if d >= offset)


@node_rewriter([Subtensor, AdvancedSubtensor1], name="local_read_of_write_same_indices")
def local_read_of_write_same_indices(fgraph: Any, node: Apply) -> Any:
    """x[idx].inc(v)[idx] -> x[idx] + v; x[sl].set(v)[sl] -> v (idx never repeats)."""
    write = node.inputs[0].owner
    if write is None or not isinstance(write.op, _WRITES) or not _same_write(node, write):
        return None
    x, v, *idx = write.inputs
    if v.type.dtype != x.type.dtype or not _unique_positions(write.op, idx):
        return None
    region = _read(write.op, x, idx)
    if isinstance(write.op, IncSubtensor) and not _fits_statically(v, region):
        return None  # the write broadcasts a run-time length 1; alloc and add would not
    if write.op.set_instead_of_inc:
        if not all(isinstance(e, slice) for e in _entries(write.op, idx)):
            return None  # an integer index could raise; v alone would not
        if v.type.shape != region.type.shape or None in v.type.shape:
            v = alloc(v, *[shape(region)[k] for k in range(region.type.ndim)])
        return _fixed(node, v)
    if not _broadcast_safe(region, v):
        return None
    return _fixed(node, region + v)


def _fits_statically(a: Variable, region: Variable) -> bool:
    offset = region.type.ndim - a.type.ndim
    return all(s == 1 or (s is not None and s == region.type.shape[offset + d])
               for d, s in enumerate(a.type.shape))


@node_rewriter([IncSubtensor, AdvancedIncSubtensor1], name="local_write_of_write_same_indices")
def local_write_of_write_same_indices(fgraph: Any, node: Apply) -> Any:
    """x[idx].set(a)[idx].inc(b) -> x[idx].set(a + b); x[idx].set(a)[idx].set(b) ->
    x[idx].set(b) when ``a`` provably fits (its shape check is not lost)."""
    inner = node.inputs[0].owner
    if inner is None or type(inner.op) is not type(node.op) or not inner.op.set_instead_of_inc:
        return None
    if fgraph is not None and len(fgraph.clients.get(node.inputs[0], ())) != 1:
        return None
    x, a, *idx = inner.inputs
    b, *outer_idx = node.inputs[1:]
    if getattr(inner.op, "inplace", False) or len(idx) != len(outer_idx):
        return None
    if node.op.idx_spec != inner.op.idx_spec or any(p is not q for p, q in zip(idx, outer_idx)):
        return None
    if not _unique_positions(node.op, idx):
        return None
    if node.op.set_instead_of_inc:
        if not _fits_statically(a, _read(node.op, x, idx)):
            return None
        return _fixed(node, inner.op(x, b, *idx))
    if not (a.type.dtype == b.type.dtype == x.type.dtype):
        return None
    if isinstance(node.op, IncSubtensor):
        region = _read(node.op, x, idx)
        if not (_fits_statically(a, region) and _fits_statically(b, region)):
            return None  # the writes broadcast a run-time length 1; a + b would not
    return _fixed(node, inner.op(x, a + b, *idx))


@node_rewriter([AdvancedIncSubtensor1], name="local_set_to_inc_subtensor")
def local_set_to_inc_subtensor(fgraph: Any, node: Apply) -> Any:
    """x[i].set(x[i] + v) -> x[i].inc(v) for a constant ``i`` without repeats (with
    repeats the set keeps one sum and the increment adds every ``v``)."""
    if not node.op.set_instead_of_inc:
        return None
    x, y, ilist = node.inputs
    add = y.owner
    if add is None or not isinstance(add.op, Elemwise) or not isinstance(
            add.op.scalar_op, Add) or len(add.inputs) != 2:
        return None
    if not _unique_positions(node.op, [ilist]):
        return None
    for read, other in (add.inputs, add.inputs[::-1]):
        owner = read.owner
        if owner is None or not isinstance(owner.op, AdvancedSubtensor1):
            continue
        if owner.inputs[0] is not x or owner.inputs[1] is not ilist:
            continue
        if other.type.dtype != x.type.dtype or y.type.dtype != x.type.dtype:
            return None
        if not _broadcast_safe(read, other):
            return None
        op = AdvancedIncSubtensor1(ignore_duplicates=node.op.ignore_duplicates)
        return _fixed(node, op(x, other, ilist))
    return None


def subtensor_write_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags), as PyTensor registers them."""
    return {
        "canonicalize": [
            ("local_useless_inc_subtensor", local_useless_inc_subtensor, ()),
            ("local_incsubtensor_of_zeros", local_incsubtensor_of_zeros,
             ("local_incsubtensor_of_allocs",)),
            ("local_setsubtensor_of_constants", local_setsubtensor_of_constants,
             ("local_setsubtensor_of_allocs",)),
            ("local_read_of_write_same_indices", local_read_of_write_same_indices, ()),
            ("local_write_of_write_same_indices", local_write_of_write_same_indices, ()),
            ("local_set_to_inc_subtensor", local_set_to_inc_subtensor, ()),
            ("local_incsubtensor_of_zeros_to_setsubtensor",
             local_incsubtensor_of_zeros_to_setsubtensor, ()),
        ],
        "stabilize": [
            ("local_incsubtensor_of_zeros", local_incsubtensor_of_zeros,
             ("local_incsubtensor_of_allocs",)),
            ("local_setsubtensor_of_constants", local_setsubtensor_of_constants,
             ("local_setsubtensor_of_allocs",)),
            ("local_write_of_write_same_indices", local_write_of_write_same_indices, ()),
        ],
        "specialize": [
            ("local_useless_inc_subtensor", local_useless_inc_subtensor, ()),
            ("local_read_of_write_same_indices", local_read_of_write_same_indices, ()),
            ("local_write_of_write_same_indices", local_write_of_write_same_indices, ()),
            ("local_set_to_inc_subtensor", local_set_to_inc_subtensor, ()),
            ("local_incsubtensor_of_zeros_to_setsubtensor",
             local_incsubtensor_of_zeros_to_setsubtensor, ()),
        ],
    }
