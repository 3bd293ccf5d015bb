"""``ScanInplaceOptimizer`` (``scan_make_inplace``): a loop writes its history into its
outer state buffers.

``scan`` gives each recurrent output an outer buffer with room for its whole
history (PyTensor's layout).  When nothing else needs that buffer afterwards
(the DestroyHandler decides: not a graph input, not a constant, not read by
a later node), the Scan may write the history into it instead of allocating
its own: its ``destroy_map`` says so.  The Python loop then does; backends that
allocate their own buffers anyway (C, JAX) are still correct, a destroy_map
allows writing into an input but does not require it.
"""

from __future__ import annotations

import time
from typing import Any

from opgraph.graph.basic import Apply, Constant
from opgraph.graph.destroyhandler import ensure_destroy_handler
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats
from opgraph.graph.utils import InconsistencyError
from opgraph.scan.op import Scan

__all__ = ["ScanInplaceOptimizer"]


def _inplace_node(node: Apply, states: list[int]) -> Apply:
    op = node.op
    first = op.outer_slices()["states"].start
    new_op = op.clone()
    new_op.destroy_map = {op.info.n_mit_mot + m: [first + m] for m in states}
    new_op._key = None
    return new_op.make_node(*node.inputs)


class ScanInplaceOptimizer(GraphRewriter):
    """Makes Scans write into their state buffers where the DestroyHandler allows it."""

    name = "scan_make_inplace"

    def add_requirements(self, fgraph: Any) -> None:
        super().add_requirements(fgraph)
        ensure_destroy_handler(fgraph)

    def apply(self, fgraph: Any) -> RewriterStats:
        t0 = time.perf_counter()
        ensure_destroy_handler(fgraph)
        dh = fgraph.destroy_handler
        count = 0
        for node in fgraph.toposort():
            if not isinstance(node.op, Scan) or node.op.destroy_map or \
                    node not in fgraph.apply_nodes:
                continue
            first = node.op.outer_slices()["states"].start
            candidates = [m for m in range(node.op.info.n_states)
                          if not isinstance(node.inputs[first + m], Constant)
                          and not dh.is_protected(node.inputs[first + m])
                          and node.inputs.count(node.inputs[first + m]) == 1]
            if candidates and self._try(fgraph, node, candidates):
                count += 1
                continue
            done: list[int] = []  # one at a time: keep those the DestroyHandler allows
            current = node
            for m in candidates if len(candidates) > 1 else []:
                new = self._try(fgraph, current, [*done, m])
                if new is not None:
                    done.append(m)
                    current = new
            count += bool(done)
        return RewriterStats.single_pass(self.name, count, time.perf_counter() - t0)

    def _try(self, fgraph: Any, node: Apply, states: list[int]) -> Apply | None:
        new_node = _inplace_node(node, states)
        try:
            fgraph.replace_all_validate(list(zip(node.outputs, new_node.outputs)),
                                        reason=self.name)
        except InconsistencyError:
            return None
        return new_node
