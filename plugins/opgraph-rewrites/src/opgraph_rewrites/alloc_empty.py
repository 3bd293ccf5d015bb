"""``set_subtensor(AllocEmpty(k, ...)[:k], y) -> y``: a buffer written whole is its value.

``scan`` builds the outer input of each recurrent output in PyTensor's layout,
the initial rows written into an uninitialised buffer with room for the whole
history; ``scan_save_mem`` may shrink it.  A buffer that holds exactly the
rows written (code that builds the layout with just the initial rows, as
opgraph's ``scan`` did before it followed PyTensor's lengths) is a copy of
them, wasted once nothing needs the layout.  The rewrite runs in specialize,
after canonicalize (which PyMC's logprob rewrites run, and which must still
see the layout).
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph.tensor.basic import AllocEmpty
from opgraph.tensor.indexing import SliceSpec
from opgraph.tensor.shape import static_int
from opgraph.tensor.subtensor import IncSubtensor
from opgraph_rewrites.utils import keep_type

__all__ = ["alloc_empty_rewriters", "local_set_whole_alloc_empty"]

_LEADING_ROWS = (SliceSpec(stop=True),)


def local_set_whole_alloc_empty() -> NodeRewriter:
    @node_rewriter([IncSubtensor], name="local_set_whole_alloc_empty")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """set_subtensor(AllocEmpty(k, ...)[:k], y) -> y when y is not broadcast into it.

        Every element of the buffer is written, so (for a ``y`` that fits: the
        set checks it, opgraph broadcasts only static length-1 dimensions) the
        result is ``y``'s value.
        """
        op = node.op
        if not op.set_instead_of_inc or op.idx_spec != _LEADING_ROWS:
            return None
        buf, y, stop = node.inputs
        if buf.owner is None or not isinstance(buf.owner.op, AllocEmpty):
            return None
        rows = static_int(buf.owner.inputs[0])
        if rows is None or static_int(stop) != rows or y.type.ndim != buf.type.ndim:
            return None
        if y.type.dtype != buf.type.dtype or y.type.shape[0] not in (rows, None):
            return None
        want = (rows, *buf.type.shape[1:])
        if any(ys == 1 and w != 1 for ys, w in zip(y.type.shape, want)):
            return None  # y would be broadcast: its value is not the buffer's
        new = keep_type(node.outputs[0], y)
        return None if new is None else [new]

    return rewrite


def alloc_empty_rewriters() -> list[tuple[str, NodeRewriter, tuple[str, ...]]]:
    return [("local_set_whole_alloc_empty", local_set_whole_alloc_empty(), ())]
