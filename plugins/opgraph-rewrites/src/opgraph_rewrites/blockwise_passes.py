"""Whole-graph passes over Blockwise nodes and their registration.

``local_useless_unbatched_blockwise`` (post_specialize, FAST_RUN):
a Blockwise without batch axes, or of an Elemwise, becomes its core Op (after
specialize, so the linear-algebra rewrites still see their Blockwise nodes).

``blockwise_inplace``: a Blockwise overwrites inputs its core Op can overwrite.

A core Op that implements ``inplace_on_inputs`` (PyTensor's protocol) says
which inputs it can write its outputs into.  A Blockwise input qualifies when
it has the type of one of the node's outputs (so no batch broadcasting: the
result fits it exactly).  All qualifying inputs are tried at once, and if the
DestroyHandler refuses (an input still needed, or protected), one at a time.
Phase ``inplace``, tags ``fast_run`` and ``inplace``.
"""

from __future__ import annotations

import time
from typing import Any

from opgraph.graph.basic import Apply, Constant, io_toposort
from opgraph.graph.destroyhandler import ensure_destroy_handler
from opgraph.graph.op import Op
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats
from opgraph.graph.rewriting.walking import in2out
from opgraph.graph.utils import InconsistencyError
from opgraph.tensor.blockwise import Blockwise, local_useless_blockwise

__all__ = ["BlockwiseInplace", "blockwise_inplace", "register_blockwise_passes"]


def _candidates(node: Apply) -> list[int]:
    out_types = [o.type for o in node.outputs]
    return [i for i, inp in enumerate(node.inputs)
            if not isinstance(inp, Constant) and inp.type in out_types]


class BlockwiseInplace(GraphRewriter):
    """Swaps Blockwise nodes for their inplace versions where the DestroyHandler allows."""

    name = "blockwise_inplace"

    def add_requirements(self, fgraph: Any) -> None:
        super().add_requirements(fgraph)
        ensure_destroy_handler(fgraph)

    def _try(self, fgraph: Any, node: Apply, allowed: list[int]) -> Apply | None:
        op = node.op.inplace_on_inputs(allowed)
        if op is node.op or not op.destroy_map:
            return None
        new = op.make_node(*node.inputs)
        try:
            fgraph.replace_all_validate(list(zip(node.outputs, new.outputs, strict=True)),
                                        reason=self.name)
        except InconsistencyError:
            return None
        return new

    def apply(self, fgraph: Any) -> RewriterStats:
        t0 = time.perf_counter()
        ensure_destroy_handler(fgraph)
        count = 0
        for node in io_toposort(fgraph.inputs, fgraph.outputs):
            op = node.op
            if not isinstance(op, Blockwise) or op.destroy_map:
                continue
            if type(op.core_op).inplace_on_inputs is Op.inplace_on_inputs:
                continue
            allowed = _candidates(node)
            if not allowed:
                continue
            if self._try(fgraph, node, allowed) is not None:
                count += 1
                continue
            granted: list[int] = []
            current = node
            for i in allowed:
                new = self._try(fgraph, current, [*granted, i]) if len(allowed) > 1 else None
                if new is not None:
                    granted.append(i)
                    current = new
            count += bool(granted)
        return RewriterStats.single_pass(self.name, count, time.perf_counter() - t0)


blockwise_inplace = BlockwiseInplace()


def register_blockwise_passes(db: Any) -> None:
    """Add ``local_useless_unbatched_blockwise`` and ``blockwise_inplace`` to ``db``."""
    db.register("local_useless_unbatched_blockwise",
                in2out(local_useless_blockwise, name="local_useless_unbatched_blockwise"),
                "fast_run", "blockwise", phase="post_specialize")
    db.register("blockwise_inplace", blockwise_inplace, "fast_run", "inplace", phase="inplace")
