"""The "cvm" linker: one C thunk per node, driven by a Python loop (PyTensor's CVM shape).

Each node with C becomes its own small cached module bound to the node's
storage cells; nodes without C use their Python thunk.  The loop frees
intermediates after their last use.  It exists for comparison and for
debugging one node at a time: the "c" linker runs the same C with no Python
between nodes and is faster on every graph measured (see docs/c_linker.md).

Under ``function(..., profile=...)`` the loop times each node's thunk with
``time.perf_counter``; the per-node modules stay the normal (untimed) ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from opgraph.config import config
from opgraph.graph.basic import Constant, Variable
from opgraph.link.basic import (
    Linker,
    LinkerResult,
    StorageCell,
    compute_free_lists,
    raise_with_op,
)
from opgraph.link.vm import VMLinker
from opgraph_c import progress
from opgraph_c.codegen.module import constant_values
from opgraph_c.linker import _python_thunk, compile_graph_module, pool_handler

__all__ = ["CVMLinker"]


class CVMLinker(VMLinker):
    """Per-node C thunks in a Python loop; options as :class:`~opgraph_c.linker.CLinker`.

    It is a :class:`opgraph.link.vm.VMLinker` with ``use_cloop=True``, as
    PyTensor's CVM linker is (PyMC checks ``isinstance(mode.linker, VMLinker)``
    and ``linker.use_cloop`` for its ``backend="c"``).
    """

    name = "cvm"

    def __init__(self, *, allow_gc: bool = True, openmp: bool | None = None,
                 **options: Any) -> None:
        Linker.__init__(self, allow_gc=allow_gc, openmp=openmp, **options)
        if openmp is None:
            openmp = config.openmp
        self.openmp = bool(openmp)
        self.use_cloop = True
        self.lazy = None
        self.callback = self.callback_input = None

    clone = Linker.clone  # VMLinker.clone builds a delegating VMLinker; keep this class

    def _node_thunk(self, node: Any, storage_map: dict, compute_map: dict) -> Any:
        one = SimpleNamespace(inputs=list(node.inputs), outputs=list(node.outputs))
        module, msrc, origins = compile_graph_module(
            one, [node], openmp=self.openmp, keep_live=set()
        )
        if origins[0] == "python":
            return _python_thunk(node, storage_map, compute_map, list(self.no_recycling))
        layout = msrc.layout
        cells = [storage_map[v] for v in sorted(layout.index, key=layout.index.get)]
        modes = bytearray(len(cells))
        for var, k in layout.index.items():
            if var in node.outputs and var not in self.no_recycling:
                modes[k] = 2
        labels = (*(f"input {i} of {node.op}" for i in range(len(node.inputs))), "", str(node.op))
        return module.bind(
            tuple(storage_map[v] for v in node.inputs),
            tuple(storage_map[v] for v in node.outputs),
            constant_values(layout), (None,), tuple(cells), None, labels, msrc.params,
            bytes(modes), pool_handler(module),
        )

    def make_thunk(
        self,
        input_storage: Sequence[StorageCell] | None = None,
        output_storage: Sequence[StorageCell] | None = None,
        storage_map: dict[Variable, StorageCell] | None = None,
    ) -> LinkerResult:
        fgraph, order, input_storage, output_storage, storage_map = self.schedule(
            input_storage, output_storage, storage_map
        )
        compute_map = {v: [True] for v in storage_map}
        with progress.compiling(len(order)):
            thunks = [self._node_thunk(node, storage_map, compute_map) for node in order]
        keep = set(fgraph.inputs) | set(fgraph.outputs) | {
            v for v in storage_map if isinstance(v, Constant)
        }
        free = compute_free_lists(order, keep) if self.allow_gc else [[] for _ in order]
        steps = [
            (k, thunk, tuple(storage_map[v] for v in dead))
            for k, (thunk, dead) in enumerate(zip(thunks, free))
        ]
        if self.profile is None:
            run = _plain_run(steps, order, storage_map)
        else:
            run = _timed_run(steps, order, storage_map, self.profile.node_timers(order))
        return LinkerResult(run, list(input_storage), list(output_storage), thunks, order)


Step = tuple[int, Callable[[], Any], tuple[StorageCell, ...]]


def _plain_run(steps: list[Step], order: list[Any], storage_map: dict) -> Callable[[], None]:
    def run() -> None:
        k = -1
        try:
            for step in steps:
                k, thunk, dead = step
                thunk()
                for cell in dead:
                    cell[0] = None
        except Exception as exc:
            raise_with_op(exc, order[k], storage_map)
            raise

    return run


def _timed_run(
    steps: list[Step], order: list[Any], storage_map: dict,
    timers: tuple[list[float], list[int]],
) -> Callable[[], None]:
    """The same loop, adding each thunk's time and call to ``timers`` (freeing untimed)."""
    times, counts = timers
    clock = time.perf_counter

    def run() -> None:
        k = -1
        try:
            for step in steps:
                k, thunk, dead = step
                t0 = clock()
                thunk()
                times[k] += clock() - t0
                counts[k] += 1
                for cell in dead:
                    cell[0] = None
        except Exception as exc:
            raise_with_op(exc, order[k], storage_map)
            raise

    return run
