"""PyTensor's ``local_subtensor_of_alloc``: basic indexing moved before an Alloc, so the
broadcast copy is made of the indexed part only.

``alloc(v, 7, 5)[:3, :2] -> alloc(v[:3], 3, 2)`` (``v`` of shape (7, 1)): an index on
an axis ``v`` broadcasts along is dropped (an integer) or left whole (a slice), the
others index ``v`` itself.  What the original raises stays: an integer on an axis the
Alloc adds or broadcasts is range-checked (statically, or by an assertion), and
``v``'s lengths are still compared with the Alloc's where the slice would hide a
mismatch.  Advanced indices are not lifted (PyTensor also lifts some of them).
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.raise_op import CheckAndRaise
from opgraph.tensor.creation import Alloc, alloc
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.indexing import slice_length
from opgraph.tensor.math import and_, eq, ge, lt
from opgraph.tensor.shape import shape, static_int
from opgraph.tensor.subtensor import Subtensor, get_item
from opgraph_rewrites.subtensor_index_entries import basic_index
from opgraph_rewrites.utils import keep_type

__all__ = [
    "lift_subtensor_through_alloc",
    "local_basic_subtensor_of_alloc",
    "local_subtensor_of_alloc",
]

_check_range = CheckAndRaise(IndexError, "index out of bounds of the allocated axis")
_check_alloc = CheckAndRaise(ValueError, "alloc: the value's length differs from the shape")


def _all(conds: list[Variable]) -> Variable:
    out = conds[0]
    for c in conds[1:]:
        out = and_(out, c)
    return out


def _in_range(entry: Variable, dim: Variable, conds: list[Variable]) -> bool:
    """Record the condition that integer ``entry`` indexes an axis of length ``dim``;
    False when it is statically out of range (the node then raises as it is)."""
    i, n = static_int(entry), static_int(dim)
    if i is not None and n is not None:
        return -n <= i < n
    conds.append(and_(ge(entry, -dim), lt(entry, dim)))
    return True


def lift_subtensor_through_alloc(fgraph: Any, node: Apply) -> Any:
    """alloc(v, *dims)[idx] -> alloc(v[idx'], *dims') for a basic index (see above)."""
    src = node.inputs[0].owner
    if src is None or not isinstance(src.op, Alloc) or not isinstance(node.op, Subtensor):
        return None
    val, *dims = src.inputs
    out_nd = len(dims)
    added = out_nd - val.type.ndim
    index = basic_index(node)
    index += [slice(None)] * (out_nd - len(index))
    if all(isinstance(e, slice) and e == slice(None) for e in index):
        return None
    ranges: list[Variable] = []
    lengths: list[Variable] = []
    val_index: list[Any] = []
    squeeze: list[int] = []
    new_dims: list[Any] = []
    for k, (entry, d) in enumerate(zip(index, dims)):
        bcast = k < added or (val.type.shape[k - added] == 1 and static_int(d) != 1)
        if k >= added:
            j = k - added
            if bcast:  # v has length 1 here: keep it whole, drop it after an integer
                if not isinstance(entry, slice):
                    squeeze.append(sum(1 for e in val_index if isinstance(e, slice)))
                val_index.append(slice(None))
            else:
                val_index.append(entry)
                n_val, n_d = val.type.shape[j], static_int(d)
                if not (n_val is not None and n_val == n_d):
                    lengths.append(eq(shape(val)[j], d))  # the index could hide a mismatch
        if isinstance(entry, slice):
            new_dims.append(slice_length(d, (entry.start, entry.stop, entry.step)))
        elif bcast and not _in_range(entry, d, ranges):
            return None
    while val_index and isinstance(val_index[-1], slice) and val_index[-1] == slice(None):
        val_index.pop()
    new_val = get_item(val, tuple(val_index)) if val_index else val
    if squeeze:
        kept = [a for a in range(new_val.type.ndim) if a not in squeeze]
        new_val = DimShuffle(input_ndim=new_val.type.ndim, new_order=tuple(kept))(new_val)
    if lengths:
        new_val = _check_alloc(new_val, _all(lengths))
    if ranges:
        new_val = _check_range(new_val, _all(ranges))
    out = node.outputs[0]
    if new_val.type.ndim == out.type.ndim and all(
            a == b for a, b in zip(new_val.type.shape, out.type.shape) if a == 1 or b == 1):
        new = new_val  # nothing left to broadcast
    else:
        new = alloc(new_val, *new_dims)
    fixed = keep_type(out, new)
    return [fixed] if fixed is not None else None


@node_rewriter([Subtensor], name="local_basic_subtensor_of_alloc")
def local_basic_subtensor_of_alloc(fgraph: Any, node: Apply) -> Any:
    """alloc(v, *dims)[idx] -> alloc(v[idx'], *dims') (PyTensor's infer_shape entry)."""
    return lift_subtensor_through_alloc(fgraph, node)


@node_rewriter([Subtensor], name="local_subtensor_of_alloc")
def local_subtensor_of_alloc(fgraph: Any, node: Apply) -> Any:
    """alloc(v, *dims)[idx] -> alloc(v[idx'], *dims') (canonicalize and specialize)."""
    return lift_subtensor_through_alloc(fgraph, node)
