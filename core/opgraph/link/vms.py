"""PyTensor's VM classes (``pytensor.link.vm``): callables that run prepared thunks.

Code that builds thunks itself (``map_storage`` + ``op.make_thunk``) runs them
with these: ``Loop`` calls every thunk in order, ``Stack`` evaluates on
demand from the outputs and honours lazy thunks (IfElse), both apply
``update_vars`` after a run and return the output values.  ``function()``
uses the linker plugins' own machines; these are the reference versions.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.link.basic import LinkerResult, map_storage, raise_with_op

__all__ = ["VM", "Loop", "Stack", "UpdatingVM", "calculate_reallocate_info",
           "make_stack_result"]


class VM:
    """Base: ``nodes`` with one thunk each; ``pre_call_clear`` cells are emptied per call."""

    need_update_inputs = True

    def __init__(self, fgraph: Any, nodes: Sequence[Apply], thunks: Sequence[Any],
                 pre_call_clear: Sequence[list]) -> None:
        nodes = list(nodes)
        if len(nodes) != len(thunks):
            raise ValueError(
                f"`nodes` and `thunks` must be the same length: {len(nodes)} nodes, "
                f"{len(thunks)} thunks")
        self.fgraph = fgraph
        self.nodes = nodes
        self.thunks = list(thunks)
        self.pre_call_clear = list(pre_call_clear)
        self.call_counts = [0] * len(nodes)
        self.call_times = [0.0] * len(nodes)
        self.time_thunks = False

    def __call__(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")

    def clear_storage(self) -> None:
        """Free what the machine holds between calls (nothing in the base class)."""

    def update_profile(self, profile: Any) -> None:
        """Add the per-node call times to ``profile.apply_time`` and reset them."""
        apply_time = getattr(profile, "apply_time", None)
        if isinstance(apply_time, dict):
            for node, t in zip(self.nodes, self.call_times):
                apply_time[(self.fgraph, node)] = apply_time.get((self.fgraph, node), 0) + t
        self.call_times = [0.0] * len(self.nodes)
        self.call_counts = [0] * len(self.nodes)

    def _run(self, i: int) -> Any:
        thunk = self.thunks[i]
        if not self.time_thunks:
            self.call_counts[i] += 1
            return thunk()
        t0 = time.perf_counter()
        result = thunk()
        self.call_times[i] += time.perf_counter() - t0
        self.call_counts[i] += 1
        return result


class UpdatingVM(VM):
    """A VM that writes ``update_vars`` (input -> new value variable) back after a run."""

    need_update_inputs = False

    def __init__(self, fgraph: Any, nodes: Sequence[Apply], thunks: Sequence[Any],
                 pre_call_clear: Sequence[list], storage_map: dict, input_storage: list,
                 output_storage: list, update_vars: dict[Variable, Variable]) -> None:
        super().__init__(fgraph, nodes, thunks, pre_call_clear)
        self.storage_map = storage_map
        self.input_storage = input_storage
        self.output_storage = output_storage
        outs = list(fgraph.outputs)
        self.inp_storage_and_out_idx = tuple(
            (storage_map[inp], outs.index(out)) for inp, out in update_vars.items())

    def perform_updates(self) -> list[Any]:
        """The output values, after copying each update into its input's cell."""
        values = [cell[0] for cell in self.output_storage]
        for cell, k in self.inp_storage_and_out_idx:
            cell[0] = values[k]
        return values


class Loop(UpdatingVM):
    """Runs every thunk in order; ``post_thunk_clear[i]`` cells are freed after thunk i."""

    def __init__(self, fgraph: Any, nodes: Sequence[Apply], thunks: Sequence[Any],
                 pre_call_clear: Sequence[list], storage_map: dict, input_storage: list,
                 output_storage: list, update_vars: dict[Variable, Variable],
                 post_thunk_clear: list | None = None) -> None:
        super().__init__(fgraph, nodes, thunks, pre_call_clear, storage_map, input_storage,
                         output_storage, update_vars)
        if post_thunk_clear is not None:
            if not len(self.nodes) == len(self.thunks) == len(post_thunk_clear):
                raise ValueError(
                    "`nodes`, `thunks` and `post_thunk_clear` must be the same length: "
                    f"{len(self.nodes)}, {len(self.thunks)}, {len(post_thunk_clear)}")
        self.allow_gc = post_thunk_clear is not None
        self.post_thunk_clear = list(post_thunk_clear or [])

    def __call__(self) -> list[Any]:
        for cell in self.pre_call_clear:
            cell[0] = None
        for i, node in enumerate(self.nodes):
            try:
                self._run(i)
            except Exception as exc:
                raise raise_with_op(exc, node, self.storage_map) from None
            if self.allow_gc:
                for cell in self.post_thunk_clear[i]:
                    cell[0] = None
        return self.perform_updates()


class Stack(UpdatingVM):
    """Evaluates on demand from the outputs; a lazy thunk returns the input indices it
    still needs (IfElse), so untaken branches never run."""

    def __init__(self, fgraph: Any, nodes: Sequence[Apply], thunks: Sequence[Any],
                 pre_call_clear: Sequence[list], storage_map: dict, input_storage: list,
                 output_storage: list, update_vars: dict[Variable, Variable],
                 compute_map: dict, allow_gc: bool,
                 dependencies: dict | None = None, callback: Any = None,
                 callback_input: Any = None) -> None:
        super().__init__(fgraph, nodes, thunks, pre_call_clear, storage_map, input_storage,
                         output_storage, update_vars)
        self.compute_map = compute_map
        self.allow_gc = allow_gc
        self.dependencies = dependencies
        self.callback = callback
        self.callback_input = callback_input
        self.outputs = list(fgraph.outputs)
        self.node_idx = {node: i for i, node in enumerate(self.nodes)}
        self.node_executed_order: list[Apply] = []

    def _computed(self, var: Variable) -> bool:
        return var.owner is None or bool(self.compute_map[var][0])

    def _evaluate(self, root: Apply) -> None:
        stack = [root]
        while stack:
            node = stack[-1]
            if all(self._computed(o) for o in node.outputs):
                stack.pop()
                continue
            i = self.node_idx[node]
            thunk = self.thunks[i]
            lazy = getattr(thunk, "lazy", False)
            if not lazy:
                missing = [v.owner for v in node.inputs if not self._computed(v)]
                if missing:
                    stack.extend(missing)
                    continue
            try:
                need = self._run(i)
            except Exception as exc:
                raise raise_with_op(exc, node, self.storage_map) from None
            if lazy and need:
                self._notify(node, thunk)
                stack.extend(node.inputs[k].owner for k in need)
                continue
            for o in node.outputs:
                self.compute_map[o][0] = True
            self.node_executed_order.append(node)
            self._notify(node, thunk)
            stack.pop()

    def _notify(self, node: Apply, thunk: Any) -> None:
        if self.callback is not None:
            self.callback(node=node, thunk=thunk, storage_map=self.storage_map,
                          compute_map=self.compute_map)

    def __call__(self, output_subset: Sequence[int] | None = None) -> list[Any]:
        for cell in self.pre_call_clear:
            cell[0] = None
        for var, cell in self.compute_map.items():
            cell[0] = var.owner is None
        self.node_executed_order = []
        if self.callback_input is not None:
            for var in self.fgraph.inputs:
                self.callback_input(var, self.storage_map[var][0])
        wanted = range(len(self.outputs)) if output_subset is None else output_subset
        outs = [self.outputs[k] for k in wanted]  # IndexError for an index out of range
        for out in outs:
            if out.owner is not None and out.owner in self.node_idx:
                self._evaluate(out.owner)
        for _inp, k in self.inp_storage_and_out_idx:
            out = self.outputs[k]
            if out.owner is not None and out.owner in self.node_idx:
                self._evaluate(out.owner)
        return self.perform_updates()


def calculate_reallocate_info(order: Sequence[Apply], fgraph: Any, storage_map: dict,
                              compute_map_re: dict, dependencies: dict) -> dict:
    """PyTensor's storage-reuse plan; opgraph's VMs free by last use instead: no reuse."""
    return {}


def make_stack_result(fgraph: Any, no_recycling: Sequence[Variable],
                      input_storage: Sequence[list] | None,
                      output_storage: Sequence[list] | None, storage_map: dict | None,
                      allow_gc: bool, callback: Any = None,
                      callback_input: Any = None) -> LinkerResult:
    """The graph run by a :class:`Stack` over each node's own thunk.

    What ``VMLinker(callback=...)`` runs: ``callback(node=, thunk=, storage_map=,
    compute_map=)`` is called after each thunk (a lazy node also when it asks
    for more inputs), ``callback_input(var, value)`` for each input per call.
    """
    order = list(fgraph.toposort())
    ins, outs, smap = map_storage(fgraph, order, input_storage, output_storage, storage_map)
    compute = {v: [v.owner is None] for v in smap}
    thunks = [n.op.make_thunk(n, smap, compute, list(no_recycling)) for n in order]
    clear = [smap[v] for v in no_recycling if v in smap and v.owner is not None]
    vm = Stack(fgraph, order, thunks, clear, smap, ins, outs, {}, compute, allow_gc,
               callback=callback, callback_input=callback_input)
    return LinkerResult(vm, ins, outs, thunks, order)
