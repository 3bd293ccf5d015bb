"""Inplace Elemwise: an output reuses the buffer of an input nobody needs afterwards.

Each candidate is offered to the graph through replace_all_validate; the
DestroyHandler refuses it (InconsistencyError) when the input is a graph
input, a constant, a view of one, or still read by a node that could run
later. Runs last, after fusion, so fused nodes benefit.
"""

from __future__ import annotations

import time
from typing import Any

from opgraph.graph.basic import Constant, io_toposort
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats
from opgraph.graph.utils import InconsistencyError

__all__ = ["InplaceElemwiseOptimizer"]


class InplaceElemwiseOptimizer(GraphRewriter):
    """Turns Elemwise nodes inplace where the DestroyHandler allows it."""

    name = "inplace_elemwise"

    def add_requirements(self, fgraph: Any) -> None:
        super().add_requirements(fgraph)
        if not hasattr(fgraph, "destroy_handler"):
            from opgraph.graph.destroyhandler import DestroyHandler

            fgraph.attach_feature(DestroyHandler())

    def apply(self, fgraph: Any) -> RewriterStats:
        from opgraph.tensor.elemwise import Elemwise

        stats = RewriterStats()
        t0 = time.perf_counter()
        if not hasattr(fgraph, "destroy_handler"):
            self.add_requirements(fgraph)
        dh = fgraph.destroy_handler
        replace = fgraph.replace_all_validate
        count = 0
        for node in io_toposort(fgraph.inputs, fgraph.outputs):
            op = node.op
            if not isinstance(op, Elemwise) or op.inplace_pattern or len(node.outputs) != 1:
                continue
            if node not in fgraph.apply_nodes:
                continue
            out = node.outputs[0]
            for i, inp in enumerate(node.inputs):
                if isinstance(inp, Constant) or inp.type != out.type or dh.is_protected(inp):
                    continue
                if inp in node.inputs[:i]:
                    continue
                try:
                    new_node = Elemwise(op.scalar_op, {0: i}).make_node(*node.inputs)
                except (TypeError, ValueError):
                    continue
                try:
                    replace([(out, new_node.outputs[0])], reason=self.name)
                except InconsistencyError:
                    continue
                count += 1
                break
        stats.applied[self.name] = count
        stats.total_time = stats.time[self.name] = time.perf_counter() - t0
        stats.calls[self.name] = 1
        return stats
