"""Whole-graph passes that swap nodes, one by one, for view or in-place twins.

``random_make_inplace`` and ``ifelse_make_view`` have the same shape: walk
the graph in order, build the twin of each eligible node, and let the
DestroyHandler refuse (through ``replace_all_validate``) the swaps that
would overwrite or alias something still needed.  A subclass only says
which twin a node has.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Apply, Variable, io_toposort
from opgraph.graph.destroyhandler import ensure_destroy_handler
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats
from opgraph.graph.utils import InconsistencyError

__all__ = ["NodeSwapRewriter"]


class NodeSwapRewriter(GraphRewriter):
    """Replace each node that has a twin by it, where the DestroyHandler agrees."""

    name = ""

    def twin_outputs(self, fgraph: Any, node: Apply) -> Sequence[Variable] | None:
        """The outputs of ``node``'s twin, or None to leave the node alone."""
        raise NotImplementedError

    def add_requirements(self, fgraph: Any) -> None:
        super().add_requirements(fgraph)
        ensure_destroy_handler(fgraph)

    def apply(self, fgraph: Any) -> RewriterStats:
        t0 = time.perf_counter()
        ensure_destroy_handler(fgraph)
        count = 0
        for node in io_toposort(fgraph.inputs, fgraph.outputs):
            new_outs = self.twin_outputs(fgraph, node)
            if new_outs is None:
                continue
            try:
                fgraph.replace_all_validate(
                    list(zip(node.outputs, new_outs, strict=True)), reason=self.name
                )
            except InconsistencyError:
                continue
            count += 1
        return RewriterStats.single_pass(self.name, count, time.perf_counter() - t0)
