"""Two basic indexings in a row as one: ``x[a:b:c][d:e:f] -> x[a':b':c*f]`` and
``x[a:b:c][i] -> x[a + i'*c]`` (PyTensor's ``local_subtensor_merge_slice`` and
``local_subtensor_merge_integer``).

The slices are normalized against the run-time lengths (Python's
``slice.indices``), composed, and turned back into one slice; an integer into a
slice is checked against the slice's length, so ``x[5:][0]`` of a length-3
``x`` still raises ``IndexError`` (PyTensor drops that error). Only constant
steps are composed (the sign of a symbolic step is unknown); a whole ``:`` on
either side needs no arithmetic at all.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.raise_op import CheckAndRaise
from opgraph.tensor.join import Join, join
from opgraph.tensor.math import and_, clip, ge, gt, int_div, lt, maximum, switch
from opgraph.tensor.shape import static_int
from opgraph.tensor.subtensor import Subtensor, get_item
from opgraph.tensor.variable import constant
from opgraph_rewrites.subtensor_lift import basic_index
from opgraph_rewrites.utils import keep_type

__all__ = [
    "local_join_subtensors",
    "local_subtensor_merge_integer",
    "local_subtensor_merge_slice",
    "merge_two_slices",
    "subtensor_merge_rewriters",
]

_check_index = CheckAndRaise(IndexError, "index out of bounds of the sliced axis")


def _step(entry: slice) -> int | None:
    if entry.step is None:
        return 1
    step = static_int(entry.step)
    return None if step in (None, 0) else int(step)


def _bound(value: Any, n: Variable, lo: Any, hi: Any) -> Variable:
    """A slice bound of a length-``n`` axis, negative ones counted from the end, clipped."""
    wrapped = switch(lt(value, 0), value + n, value)
    return clip(wrapped, lo, hi)


def _normalize(entry: slice, step: int, n: Variable) -> tuple[Variable, Variable]:
    """(first index, number of elements) of ``entry`` on a length-``n`` axis."""
    if step > 0:
        start = constant(0, dtype="int64") if entry.start is None else _bound(entry.start, n, 0, n)
        stop = n if entry.stop is None else _bound(entry.stop, n, 0, n)
        length = int_div(stop - start + (step - 1), step)
    else:
        start = n - 1 if entry.start is None else _bound(entry.start, n, -1, n - 1)
        stop = constant(-1, dtype="int64") if entry.stop is None else _bound(
            entry.stop, n, -1, n - 1)
        length = int_div(start - stop + (-step - 1), -step)
    return start, maximum(length, 0)


def merge_two_slices(
    n: Variable, first: slice, second: slice,
) -> slice | None:
    """One slice of a length-``n`` axis picking what ``first`` then ``second`` pick."""
    s1, s2 = _step(first), _step(second)
    if s1 is None or s2 is None:
        return None
    start1, len1 = _normalize(first, s1, n)
    start2, len2 = _normalize(second, s2, len1)
    step = s1 * s2
    start = start1 + start2 * s1
    stop = start + len2 * step
    if step < 0:
        # stop -1 would mean "the end": any negative stop below -n means "before 0"
        stop = switch(lt(stop, 0), -n - 1, stop)
        start = switch(gt(len2, 0), start, 0)
        stop = switch(gt(len2, 0), stop, 0)
    return slice(start, stop, None if step == 1 else step)


def _merge_integer(n: Variable, first: slice, index: Any) -> Variable | None:
    """The index of ``x`` that ``x[first][index]`` reads, checked against the slice length."""
    s1 = _step(first)
    if s1 is None:
        return None
    start1, len1 = _normalize(first, s1, n)
    wrapped = switch(lt(index, 0), index + len1, index)
    checked = _check_index(wrapped, and_(ge(wrapped, 0), lt(wrapped, len1)))
    return start1 + checked * s1


def _is_full(entry: Any) -> bool:
    return isinstance(entry, slice) and entry == slice(None)


def _merged_index(x: Variable, first: list[Any], second: list[Any],
                  integers: bool) -> list[Any] | None:
    """The index of ``x`` equal to ``[first][second]``; None where not supported."""
    merged: list[Any] = []
    rest = iter(second)
    used_integer = False
    for axis in range(x.type.ndim):
        if axis < len(first) and not isinstance(first[axis], slice):
            merged.append(first[axis])  # an integer: the axis is gone in the middle result
            continue
        outer = next(rest, slice(None))
        inner = first[axis] if axis < len(first) else slice(None)
        if _is_full(inner):
            merged.append(outer)
        elif _is_full(outer):
            merged.append(inner)
        elif isinstance(outer, slice):
            new = merge_two_slices(x.shape[axis], inner, outer)
            if new is None:
                return None
            merged.append(new)
        else:
            if not integers:
                return None
            new = _merge_integer(x.shape[axis], inner, outer)
            if new is None:
                return None
            used_integer = True
            merged.append(new)
    if integers and not used_integer:
        return None  # the slice rewrite's case
    while merged and _is_full(merged[-1]):
        merged.pop()
    return merged


def _merge(node: Apply, integers: bool) -> Any:
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Subtensor):
        return None
    x = inner.inputs[0]
    merged = _merged_index(x, basic_index(inner), basic_index(node), integers)
    if merged is None:
        return None
    new = get_item(x, tuple(merged)) if merged else x
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else None


@node_rewriter([Subtensor], name="local_subtensor_merge_slice")
def local_subtensor_merge_slice(fgraph: Any, node: Apply) -> Any:
    """x[s1][s2] -> x[s] for slices (and integers the first indexing already had)."""
    return _merge(node, integers=False)


@node_rewriter([Subtensor], name="local_subtensor_merge_integer")
def local_subtensor_merge_integer(fgraph: Any, node: Apply) -> Any:
    """x[s1][i] -> x[j] for an integer into a slice, bounds checked (IndexError)."""
    return _merge(node, integers=True)


def _nonneg_const(value: Any) -> int | None:
    if value is None:
        return None
    v = static_int(value)
    return None if v is None or v < 0 else int(v)


def _same_entry(a: Any, b: Any) -> bool:
    if isinstance(a, slice) and isinstance(b, slice):
        return all(_same_entry(p, q) for p, q in ((a.start, b.start), (a.stop, b.stop),
                                                   (a.step, b.step)))
    if a is b:
        return True
    va, vb = (None if v is None else static_int(v) for v in (a, b))
    return va is not None and va == vb


def _join_piece(var: Variable, axis: int) -> tuple[Variable, list[Any], int, int | None] | None:
    """(x, index, start, stop) of ``var = x[index]`` with a constant, non-negative,
    step-1 slice on ``axis`` (stop None: to the end)."""
    node = var.owner
    if node is None or not isinstance(node.op, Subtensor):
        return None
    index = basic_index(node)
    if any(not isinstance(e, slice) for e in index):
        return None
    index += [slice(None)] * (node.inputs[0].type.ndim - len(index))
    sl = index[axis]
    if sl.step is not None and static_int(sl.step) != 1:
        return None
    start = 0 if sl.start is None else _nonneg_const(sl.start)
    stop = None if sl.stop is None else _nonneg_const(sl.stop)
    if start is None or (sl.stop is not None and (stop is None or stop < start)):
        return None
    return node.inputs[0], index, start, stop


def _mergeable(a: Any, b: Any, axis: int) -> bool:
    xa, ia, _, stop_a = a
    xb, ib, start_b, _ = b
    return (xa is xb and stop_a is not None and stop_a == start_b
            and all(_same_entry(p, q) for k, (p, q) in enumerate(zip(ia, ib)) if k != axis))


@node_rewriter([Join], name="local_join_subtensors")
def local_join_subtensors(fgraph: Any, node: Apply) -> Any:
    """join(axis, x[a:b], x[b:c]) -> x[a:c] for constant 0 <= a <= b <= c.

    Only constant non-negative bounds in order: then clipping to the run-time
    length keeps the pieces adjacent (with a negative or symbolic bound the
    first piece can be empty while the merged slice is not; PyTensor merges
    ``x[1:s], x[s:5]`` although ``s = 0`` then gives a different result).
    """
    axis = static_int(node.inputs[0])
    if axis is None:
        return None
    tensors = node.inputs[1:]
    ndim = node.outputs[0].type.ndim
    axis = axis + ndim if axis < 0 else axis
    pieces = [_join_piece(t, axis) for t in tensors]
    groups: list[list[int]] = []
    for k, piece in enumerate(pieces):
        if groups and piece is not None and pieces[groups[-1][-1]] is not None and _mergeable(
                pieces[groups[-1][-1]], piece, axis):
            groups[-1].append(k)
        else:
            groups.append([k])
    if len(groups) == len(tensors):
        return None
    new_tensors = []
    for group in groups:
        if len(group) == 1:
            new_tensors.append(tensors[group[0]])
            continue
        x, index, start, _ = pieces[group[0]]
        stop = pieces[group[-1]][3]
        index = list(index)
        index[axis] = slice(start or None, stop)
        while index and index[-1] == slice(None):
            index.pop()
        new_tensors.append(get_item(x, tuple(index)) if index else x)
    new = new_tensors[0] if len(new_tensors) == 1 else join(node.inputs[0], *new_tensors)
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else None


def subtensor_merge_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for canonicalize and specialize (PyTensor's tags;
    canonicalize adds ``fast_compile``)."""
    return [
        ("local_subtensor_merge_slice", local_subtensor_merge_slice, ()),
        ("local_subtensor_merge_integer", local_subtensor_merge_integer, ("shape_unsafe",)),
    ]
