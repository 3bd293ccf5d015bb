"""Two exact rewrites of PyTensor's ``tensor.rewriting.basic``:

- ``local_join_to_repeat``: ``join(axis, x, x, ..., x)`` (``k`` times the same
  tensor) -> one broadcast copy of ``x`` with ``k`` along a new axis, reshaped: no
  join of ``k`` pieces, the same elements in the same order (``np.tile``);
- ``extract_diag_of_transpose``: ``diagonal(swapaxes(x, a1, a2), k, a1, a2) ->
  diagonal(x, -k, a1, a2)``: the diagonal read without the transpose.
"""

from __future__ import annotations

from typing import Any

import opgraph.tensor.basic as tensor_basic
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.plugins import MissingPluginName
from opgraph.tensor.creation import alloc
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.join import Join
from opgraph.tensor.reduction import CAReduce
from opgraph.tensor.shape import reshape, static_int
from opgraph_rewrites.utils import keep_type

__all__ = ["basic_join_diag_rewriters", "extract_diag_of_transpose", "local_join_to_repeat"]

_found = getattr(tensor_basic, "ExtractDiag", None)
ExtractDiag = None if _found is None or isinstance(_found, MissingPluginName) else _found


class _NoExtractDiag(Op):
    """Tracked in ExtractDiag's place without opgraph-linalg: no node has it."""

    __props__ = ()


def _fixed(node: Apply, new: Variable) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else None


@node_rewriter([Join], name="local_join_to_repeat")
def local_join_to_repeat(fgraph: Any, node: Apply) -> Any:
    """join(axis, x, x, x) -> x repeated as a block three times along ``axis``."""
    axis = static_int(node.inputs[0])
    tensors = node.inputs[1:]
    if axis is None or len(tensors) < 2 or any(t is not tensors[0] for t in tensors):
        return None
    if fgraph is not None and any(isinstance(getattr(client, "op", None), CAReduce)
                                  for client, _ in fgraph.clients.get(node.outputs[0], ())):
        return None  # a reduction of the join: local_reduce_join makes it elementwise
    x = tensors[0]
    ndim = x.type.ndim
    axis = axis + ndim if axis < 0 else axis
    k = len(tensors)
    order = (*range(axis), "x", *range(axis, ndim))
    expanded = DimShuffle(input_ndim=ndim, new_order=order)(x)
    dims = [x.shape[i] for i in range(ndim)]
    copies = alloc(expanded, *dims[:axis], k, *dims[axis:])
    joined = [*dims[:axis], dims[axis] * k, *dims[axis + 1:]]
    return _fixed(node, reshape(copies, joined, ndim=ndim))


@node_rewriter([ExtractDiag if ExtractDiag is not None else _NoExtractDiag],
               name="extract_diag_of_transpose")
def extract_diag_of_transpose(fgraph: Any, node: Apply) -> Any:
    """diagonal(x with axes a1, a2 swapped, offset, a1, a2) -> diagonal(x, -offset)."""
    (xt,) = node.inputs
    ds = xt.owner
    if ds is None or not isinstance(ds.op, DimShuffle):
        return None
    ndim = xt.type.ndim
    a1, a2 = node.op.axis1 % ndim, node.op.axis2 % ndim
    swapped = list(range(ndim))
    swapped[a1], swapped[a2] = a2, a1
    if ds.op.input_ndim != ndim or list(ds.op.new_order) != swapped:
        return None
    op = type(node.op)(-node.op.offset, node.op.axis1, node.op.axis2)
    return _fixed(node, op(ds.inputs[0]))


def basic_join_diag_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags), PyTensor's placement."""
    diag = ("extract_diag_of_transpose", extract_diag_of_transpose)
    return {
        "canonicalize": [("local_join_to_repeat", local_join_to_repeat, ("fast_compile",)),
                         (*diag, ("fast_compile",))],
        "stabilize": [(*diag, ())],
        "specialize": [(*diag, ())],
    }
