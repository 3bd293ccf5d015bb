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
from opgraph.tensor.math import and_, clip, ge, gt, int_div, lt, maximum, switch
from opgraph.tensor.shape import static_int
from opgraph.tensor.subtensor import Subtensor, get_item
from opgraph.tensor.variable import constant
from opgraph_rewrites.subtensor_lift import basic_index
from opgraph_rewrites.utils import keep_type

__all__ = [
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


def subtensor_merge_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for canonicalize and specialize (PyTensor's tags;
    canonicalize adds ``fast_compile``)."""
    return [
        ("local_subtensor_merge_slice", local_subtensor_merge_slice, ()),
        ("local_subtensor_merge_integer", local_subtensor_merge_integer, ("shape_unsafe",)),
    ]
