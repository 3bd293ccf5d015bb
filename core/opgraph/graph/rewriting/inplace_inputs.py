"""One pass for every Op that can overwrite its inputs (PyTensor's ``inplace_on_inputs``).

An Op that implements ``inplace_on_inputs(allowed)`` returns a version of itself
that writes its outputs into some of the ``allowed`` inputs.  Which nodes take
part and which inputs they may be offered differ per family (Blockwise, the
linear-algebra decompositions); how the offer is made does not: all candidates
at once, and where the DestroyHandler refuses (an input still read later, or
protected), one more input at a time, keeping what was granted.
"""

from __future__ import annotations

import time
from typing import Any

from opgraph.graph.basic import Apply, io_toposort
from opgraph.graph.destroyhandler import ensure_destroy_handler
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats
from opgraph.graph.utils import InconsistencyError

__all__ = ["InplaceOnInputs"]


class InplaceOnInputs(GraphRewriter):
    """Swap nodes for their ``inplace_on_inputs`` versions where the DestroyHandler allows.

    A subclass says which nodes take part (:meth:`wants`) and which of their inputs
    may be offered (:meth:`candidates`).
    """

    name = ""

    def wants(self, node: Apply) -> bool:
        """Whether ``node`` takes part (it does not destroy anything yet)."""
        raise NotImplementedError

    def candidates(self, fgraph: Any, node: Apply) -> list[int]:
        """The indices of the inputs ``node`` may be offered."""
        raise NotImplementedError

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
            if node not in fgraph.apply_nodes or not self.wants(node):
                continue
            allowed = self.candidates(fgraph, node)
            if not allowed:
                continue
            if self._try(fgraph, node, allowed) is not None:
                count += 1
                continue
            granted: list[int] = []
            current = node
            for i in allowed if len(allowed) > 1 else []:
                new = self._try(fgraph, current, [*granted, i])
                if new is not None:
                    granted.append(i)
                    current = new
            count += bool(granted)
        return RewriterStats.single_pass(self.name, count, time.perf_counter() - t0)
