"""The "py" linker: every node's thunk in toposort order, nothing clever.

It is the reference the other backends are checked against, so it stays
as plain as possible: a loop over thunks, intermediates dropped at the end of
the call.  Lazy thunks are simply called until they report nothing missing;
in toposort order all their inputs are already computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Constant, Variable
from opgraph.link.basic import Linker, LinkerResult, StorageCell, raise_with_op
from opgraph_numpy.thunks import make_node_thunk

__all__ = ["PerformLinker"]


class PerformLinker(Linker):
    """Run ``perform`` of every node, in order (PyTensor's ``PerformLinker``)."""

    name = "py"

    def make_thunk(
        self,
        input_storage: Sequence[StorageCell] | None = None,
        output_storage: Sequence[StorageCell] | None = None,
        storage_map: dict[Variable, StorageCell] | None = None,
    ) -> LinkerResult:
        fgraph, order, input_storage, output_storage, storage_map = self.schedule(
            input_storage, output_storage, storage_map
        )
        compute_map = {v: [isinstance(v, Constant) or v.owner is None] for v in storage_map}
        for v in fgraph.inputs:
            compute_map[v][0] = True
        thunks = [
            make_node_thunk(node, storage_map, compute_map, self.no_recycling, "py")
            for node in order
        ]
        keep = set(fgraph.inputs) | set(fgraph.outputs)
        computed = [compute_map[v] for node in order for v in node.outputs]
        recycle = [storage_map[v] for v in self.no_recycling if v.owner is not None]
        intermediates = [storage_map[v] for node in order for v in node.outputs if v not in keep]
        allow_gc = self.allow_gc
        timers = self.profile.node_timers(order) if self.profile is not None else None
        steps = list(enumerate(zip(order, thunks)))

        def run() -> None:
            import time

            for cell in computed:
                cell[0] = False
            for cell in recycle:
                cell[0] = None
            for k, (node, thunk) in steps:
                try:
                    t0 = time.perf_counter()
                    result: Any = thunk()
                    if thunk.lazy:
                        _finish_lazy(node, thunk, result)
                    if timers is not None:
                        timers[0][k] += time.perf_counter() - t0
                        timers[1][k] += 1
                except Exception as exc:
                    for cell in intermediates:
                        cell[0] = None
                    raise_with_op(exc, node, storage_map)
                    raise
            if allow_gc:
                for cell in intermediates:
                    cell[0] = None

        return LinkerResult(run, input_storage, output_storage, thunks, order)


def _finish_lazy(node: Any, thunk: Any, result: Any) -> None:
    """Call a lazy thunk again until it needs nothing (its inputs are all computed)."""
    for _ in range(len(node.inputs) + 2):
        if not result:
            return
        result = thunk()
    raise RuntimeError(f"lazy thunk of {node.op} keeps asking for inputs {list(result)}")
