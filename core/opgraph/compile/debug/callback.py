"""A linker that runs every node's Python thunk and calls hooks around each node.

MonitorMode and NanGuardMode are built on it.  A hook is called as
``hook(fgraph, i, node, fn)`` where ``fn.inputs`` / ``fn.outputs`` are the
node's storage cells (``[value]`` lists), as in PyTensor.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from opgraph.graph.basic import Constant, Variable
from opgraph.link.basic import Linker, LinkerResult, StorageCell, raise_with_op

__all__ = ["CallbackLinker", "NodeHook"]

NodeHook = Callable[[Any, int, Any, Any], Any]


class _Thunk:
    """What a hook sees as ``fn``: the node's cells, and a way to run it."""

    def __init__(self, node: Any, inner: Callable[[], Any], storage_map: dict) -> None:
        self.inner = inner
        self.lazy = bool(getattr(inner, "lazy", False))
        self.inputs = [storage_map[v] for v in node.inputs]
        self.outputs = [storage_map[v] for v in node.outputs]

    def __call__(self) -> Any:
        return self.inner()


class CallbackLinker(Linker):
    """Nodes in order through their Python thunks; ``pre_func`` / ``post_func`` around each."""

    name = "callback"

    def __init__(self, *, allow_gc: bool = True, pre_func: NodeHook | None = None,
                 post_func: NodeHook | None = None, **options: Any) -> None:
        super().__init__(allow_gc=allow_gc, pre_func=pre_func, post_func=post_func, **options)
        self.pre_func = pre_func
        self.post_func = post_func

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
        thunks = [
            _Thunk(node, node.op.make_thunk(node, storage_map, compute_map, self.no_recycling,
                                             "py"), storage_map)
            for node in order
        ]
        computed = [compute_map[v] for node in order for v in node.outputs]
        recycle = [storage_map[v] for v in self.no_recycling if v.owner is not None]
        keep = set(fgraph.inputs) | set(fgraph.outputs)
        intermediates = [storage_map[v] for node in order for v in node.outputs if v not in keep]
        pre, post, allow_gc = self.pre_func, self.post_func, self.allow_gc
        timers = self.profile.node_timers(order) if self.profile is not None else None

        def run() -> None:
            for cell in computed:
                cell[0] = False
            for cell in recycle:
                cell[0] = None
            for k, (node, thunk) in enumerate(zip(order, thunks)):
                try:
                    if pre is not None:
                        pre(fgraph, k, node, thunk)
                    t0 = time.perf_counter()
                    needed = thunk()
                    for _ in range(len(node.inputs) + 1):
                        if not (thunk.lazy and needed):
                            break
                        needed = thunk()
                    if timers is not None:
                        timers[0][k] += time.perf_counter() - t0
                        timers[1][k] += 1
                    for v in node.outputs:
                        compute_map[v][0] = True
                    if post is not None:
                        post(fgraph, k, node, thunk)
                except Exception as exc:
                    for cell in intermediates:
                        cell[0] = None
                    raise_with_op(exc, node, storage_map)
                    raise
            if allow_gc:
                for cell in intermediates:
                    cell[0] = None

        return LinkerResult(run, input_storage, output_storage, list(thunks), order)
