"""PyTensor's small index rewrites, under PyTensor's names; each reads the same
elements and keeps every error the original raises.

- ``x[:, 0]`` on a static length-1 axis -> ``x.dimshuffle(0)``
  (``local_subtensor_remove_broadcastable_index``);
- ``x[:, -2]`` on an axis of static length 3 -> ``x[:, 1]``
  (``local_convert_negative_indices``);
- ``x[[0, 1, ..., n-1]]`` of a length-n axis -> ``x`` (``local_useless_AdvancedSubtensor1``);
- an AdvancedIncSubtensor with one integer vector on the first axis ->
  AdvancedIncSubtensor1 (``local_AdvancedIncSubtensor_to_AdvancedIncSubtensor1``);
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.advanced import AdvancedIncSubtensor
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.indexing import ARRAY, SliceSpec, split_inputs
from opgraph.tensor.shape import static_int
from opgraph.tensor.subtensor import AdvancedIncSubtensor1, AdvancedSubtensor1, Subtensor, get_item
from opgraph_rewrites.subtensor_lift import basic_index
from opgraph_rewrites.utils import keep_type

__all__ = [
    "local_AdvancedIncSubtensor_to_AdvancedIncSubtensor1",
    "local_blockwise_of_subtensor",
    "local_convert_negative_indices",
    "local_subtensor_remove_broadcastable_index",
    "local_useless_AdvancedSubtensor1",
    "subtensor_index_rewriters",
]


def _fixed(node: Apply, new: Variable) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else None


@node_rewriter([Subtensor], name="local_subtensor_remove_broadcastable_index")
def local_subtensor_remove_broadcastable_index(fgraph: Any, node: Apply) -> Any:
    """x[0, :, -1] with axes 0 and 2 of static length 1 -> x.dimshuffle(1)."""
    x = node.inputs[0]
    drop = []
    for axis, entry in enumerate(basic_index(node)):
        if isinstance(entry, slice):
            if entry != slice(None):
                return None
        elif x.type.shape[axis] == 1 and static_int(entry) in (0, -1):
            drop.append(axis)
        else:
            return None
    if not drop:
        return None
    keep = tuple(a for a in range(x.type.ndim) if a not in drop)
    return _fixed(node, DimShuffle(input_ndim=x.type.ndim, new_order=keep)(x))


@node_rewriter([Subtensor], name="local_convert_negative_indices")
def local_convert_negative_indices(fgraph: Any, node: Apply) -> Any:
    """x[:, -2] -> x[:, 1] on an axis of static length 3 (an index out of range stays)."""
    x = node.inputs[0]
    index = basic_index(node)
    changed = False
    for axis, entry in enumerate(index):
        n = x.type.shape[axis]
        if isinstance(entry, slice) or n is None or not isinstance(entry, Constant):
            continue
        value = int(np.asarray(entry.data))
        if value >= 0 or value + n < 0:
            continue
        index[axis] = value + n
        changed = True
    if not changed:
        return None
    return _fixed(node, get_item(x, tuple(index)))


@node_rewriter([AdvancedSubtensor1], name="local_useless_AdvancedSubtensor1")
def local_useless_AdvancedSubtensor1(fgraph: Any, node: Apply) -> Any:
    """x[[0, 1, ..., n-1]] -> x when axis 0 has static length n."""
    x, idx = node.inputs
    n = x.type.shape[0]
    if n is None or not isinstance(idx, Constant):
        return None
    values = np.asarray(idx.data)
    if values.shape != (n,) or not np.array_equal(values, np.arange(n)):
        return None
    return _fixed(node, x)


@node_rewriter([AdvancedIncSubtensor],
               name="local_AdvancedIncSubtensor_to_AdvancedIncSubtensor1")
def local_AdvancedIncSubtensor_to_AdvancedIncSubtensor1(fgraph: Any, node: Apply) -> Any:
    """x[idx].inc(y) with one integer vector ``idx`` on axis 0 (whole slices after it)
    -> AdvancedIncSubtensor1, which accumulates repeats the same way."""
    op = node.op
    if getattr(op, "ignore_duplicates", False):
        return None
    x, y, *idx = node.inputs
    parts = split_inputs(op.idx_spec, idx)
    if not op.idx_spec or op.idx_spec[0] != ARRAY:
        return None
    first = parts[0]
    if first.type.ndim != 1 or first.type.dtype[:3] not in ("int", "uin"):
        return None
    for entry, part in zip(op.idx_spec[1:], parts[1:]):
        if not isinstance(entry, SliceSpec) or any(p is not None for p in part):
            return None
    new = AdvancedIncSubtensor1(set_instead_of_inc=op.set_instead_of_inc)(x, y, first)
    return _fixed(node, new)


@node_rewriter([Blockwise], name="local_blockwise_of_subtensor")
def local_blockwise_of_subtensor(fgraph: Any, node: Apply) -> Any:
    """Blockwise(x[a:b]) with unbatched bounds -> x[:, a:b]: the batch axes become leading
    whole slices."""
    core = node.op.core_op
    if not isinstance(core, Subtensor):
        return None
    x, *idx = node.inputs
    if any(any(s != 1 for s in i.type.shape) for i in idx):
        return None  # a batched index: every batch reads its own part
    nb = node.outputs[0].type.ndim - len(node.op.outputs_sig[0])
    if nb <= 0 or x.type.ndim != nb + len(node.op.inputs_sig[0]):
        return None
    flat = [i if i.type.ndim == 0 else i.reshape(()) for i in idx]
    parts = split_inputs(core.idx_spec, flat)
    core_index = [slice(*p) if isinstance(e, SliceSpec) else p
                  for e, p in zip(core.idx_spec, parts)]
    return _fixed(node, get_item(x, (*[slice(None)] * nb, *core_index)))


def subtensor_index_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags), as PyTensor registers them."""
    both = [
        ("local_subtensor_remove_broadcastable_index",
         local_subtensor_remove_broadcastable_index, ()),
        ("local_useless_AdvancedSubtensor1", local_useless_AdvancedSubtensor1, ()),
    ]
    return {
        "canonicalize": [*both,
                         ("local_convert_negative_indices", local_convert_negative_indices, ())],
        "stabilize": [("local_blockwise_of_subtensor", local_blockwise_of_subtensor, ())],
        "specialize": [*both,
                       ("local_blockwise_of_subtensor", local_blockwise_of_subtensor, ()),
                       ("local_AdvancedIncSubtensor_to_AdvancedIncSubtensor1",
                        local_AdvancedIncSubtensor_to_AdvancedIncSubtensor1, ())],
    }
