"""``ifelse_make_view``: let IfElse return the chosen branch itself instead of a copy.

An ``IfElse(as_view=False)`` copies the value of the branch it takes; the
view form hands that value on.  The swap is checked by the DestroyHandler
(an output that an in-place op later destroys must not alias a protected
input), and undone where it would be unsafe.  It runs in the in-place phase,
tagged ``inplace``, so ``mode.excluding("inplace")`` keeps the copying form.
"""

from __future__ import annotations

import time
from typing import Any

from opgraph.graph.basic import io_toposort
from opgraph.graph.destroyhandler import DestroyHandler
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats
from opgraph.graph.utils import InconsistencyError
from opgraph.tensor.ifelse import IfElse

__all__ = ["IfElseMakeView", "ifelse_make_view"]

BIG_GRAPH = 500
"""Above this many nodes, IfElses with only scalar outputs are left as they are.

Copying a scalar costs nothing, and each swap re-validates the whole graph.
"""


class IfElseMakeView(GraphRewriter):
    """Swaps each ``IfElse(as_view=False)`` for its view twin where the graph allows it."""

    name = "ifelse_make_view"

    def add_requirements(self, fgraph: Any) -> None:
        super().add_requirements(fgraph)
        if not hasattr(fgraph, "destroy_handler"):
            fgraph.attach_feature(DestroyHandler())

    def apply(self, fgraph: Any) -> RewriterStats:
        stats = RewriterStats()
        t0 = time.perf_counter()
        if not hasattr(fgraph, "destroy_handler"):
            self.add_requirements(fgraph)
        big = len(fgraph.apply_nodes) >= BIG_GRAPH
        count = 0
        for node in io_toposort(fgraph.inputs, fgraph.outputs):
            op = node.op
            if not isinstance(op, IfElse) or op.as_view:
                continue
            if big and all(getattr(o.type, "ndim", None) == 0 for o in node.outputs):
                continue
            new_op = IfElse(op.n_outs, as_view=True, name=op.name)
            new_outs = new_op(*node.inputs, return_list=True)
            try:
                fgraph.replace_all_validate(
                    list(zip(node.outputs, new_outs, strict=True)), reason=self.name
                )
            except InconsistencyError:
                continue
            count += 1
        stats.applied[self.name] = count
        stats.total_time = stats.time[self.name] = time.perf_counter() - t0
        stats.calls[self.name] = 1
        return stats


ifelse_make_view = IfElseMakeView()
