"""The "vm" linker: precomputed thunks over storage cells, GC, lazy evaluation.

Graphs without lazy Ops run as one generated straight-line function: each
node's ``perform`` is called with its input values and output cells bound as
closure variables, and each intermediate's cell is emptied right after its
last reader.  Graphs with a lazy Op (IfElse) run on a stack machine that asks
each lazy thunk which inputs it still needs, so an untaken branch is never
computed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.link.basic import (
    Linker,
    LinkerResult,
    StorageCell,
    compute_free_lists,
    raise_with_op,
)
from opgraph_numpy.thunks import make_node_thunk, uses_default_thunk

__all__ = ["VMLinker"]

#: Above this many nodes the straight-line code would be slow to compile: use a loop.
MAX_GENERATED_NODES = 3000


class VMLinker(Linker):
    """Python virtual machine over storage cells (PyTensor's ``VMLinker`` role).

    Options: ``allow_gc`` (free intermediates after their last use),
    ``impl`` (passed to ``Op.make_thunk``; "py" runs ``perform``).
    """

    name = "vm"

    def __init__(self, *, allow_gc: bool = True, impl: str | None = "py", **options: Any) -> None:
        super().__init__(allow_gc=allow_gc, impl=impl, **options)
        self.impl = impl

    def make_thunk(
        self,
        input_storage: Sequence[StorageCell] | None = None,
        output_storage: Sequence[StorageCell] | None = None,
        storage_map: dict[Variable, StorageCell] | None = None,
    ) -> LinkerResult:
        fgraph, order, input_storage, output_storage, storage_map = self.schedule(
            input_storage, output_storage, storage_map
        )
        given = set(fgraph.inputs)
        compute_map = {
            v: [v in given or isinstance(v, Constant) or v.owner is None] for v in storage_map
        }
        no_recycling = [v for v in self.no_recycling if v.owner is not None and v in storage_map]
        plan = _NodePlan.build(order, storage_map, compute_map, no_recycling, self.impl)
        keep = set(fgraph.inputs) | set(fgraph.outputs)
        intermediates = [
            storage_map[v]
            for node in order
            for v in node.outputs
            if v not in keep
        ]
        timers = self.profile.node_timers(order) if self.profile is not None else None
        recycle_cells = [storage_map[v] for v in dict.fromkeys(no_recycling)]

        def on_error(exc: BaseException, k: int) -> None:
            if 0 <= k < len(order):
                raise_with_op(exc, order[k], storage_map)
            for cell in intermediates:
                cell[0] = None

        if any(plan.lazy):
            fn = _lazy_runner(
                fgraph, order, plan, storage_map, compute_map, recycle_cells,
                keep, self.allow_gc, timers, on_error,
            )
        else:
            free = compute_free_lists(order, keep) if self.allow_gc else [[] for _ in order]
            free_cells = [[storage_map[v] for v in vs] for vs in free]
            if len(order) <= MAX_GENERATED_NODES:
                fn = _generated_runner(plan, free_cells, recycle_cells, timers, on_error)
            else:
                fn = _loop_runner(plan, free_cells, recycle_cells, timers, on_error)
        return LinkerResult(fn, input_storage, output_storage, plan.thunks, order)


class _NodePlan:
    """How each node runs: its direct perform call, or its thunk."""

    def __init__(self) -> None:
        self.nodes: list[Apply] = []
        self.direct: list[bool] = []
        self.performs: list[Callable[..., Any] | None] = []
        self.in_cells: list[list[StorageCell]] = []
        self.out_cells: list[list[StorageCell]] = []
        self.thunks: list[Callable[[], Any]] = []
        self.lazy: list[bool] = []

    @classmethod
    def build(
        cls,
        order: Sequence[Apply],
        storage_map: dict[Variable, StorageCell],
        compute_map: dict[Variable, list],
        no_recycling: Sequence[Variable],
        impl: str | None,
    ) -> _NodePlan:
        plan = cls()
        for node in order:
            op = node.op
            direct = uses_default_thunk(op)
            if direct:
                op.prepare_node(node, storage_map, compute_map, impl)
            thunk = make_node_thunk(node, storage_map, compute_map, no_recycling, impl)
            plan.nodes.append(node)
            plan.direct.append(direct)
            plan.performs.append(op.perform if direct else None)
            plan.in_cells.append([storage_map[v] for v in node.inputs])
            plan.out_cells.append([storage_map[v] for v in node.outputs])
            plan.thunks.append(thunk)
            plan.lazy.append(bool(getattr(thunk, "lazy", False)))
        return plan


def _generated_runner(
    plan: _NodePlan,
    free_cells: list[list[StorageCell]],
    recycle_cells: list[StorageCell],
    timers: tuple[list[float], list[int]] | None,
    on_error: Callable[[BaseException, int], None],
) -> Callable[[], None]:
    """Compile a straight-line function calling every node in order."""
    names: dict[int, str] = {}
    env: dict[str, Any] = {}

    def bind(obj: Any, prefix: str) -> str:
        key = id(obj)
        name = names.get(key)
        if name is None:
            name = names[key] = f"{prefix}{len(names)}"
            env[name] = obj
        return name

    body: list[str] = [cell_name + "[0] = None" for cell_name in
                       (bind(c, "s") for c in recycle_cells)]
    profiled = timers is not None
    for k, node in enumerate(plan.nodes):
        body.append(f"k = {k}")
        if profiled:
            body.append("t0 = clock()")
        if plan.direct[k]:
            perform = bind(plan.performs[k], "p")
            node_name = bind(node, "n")
            args = ", ".join(bind(c, "s") + "[0]" for c in plan.in_cells[k])
            outs = bind(plan.out_cells[k], "o")
            body.append(f"{perform}({node_name}, [{args}], {outs})")
        else:
            body.append(bind(plan.thunks[k], "t") + "()")
        if profiled:
            body.append(f"times[{k}] += clock() - t0")
            body.append(f"counts[{k}] += 1")
        for cell in free_cells[k]:
            body.append(bind(cell, "s") + "[0] = None")
    if profiled:
        env["times"], env["counts"] = timers
        env["clock"] = time.perf_counter
    env["on_error"] = on_error
    params = ", ".join(env)
    inner = "\n".join("            " + line for line in body) or "            pass"
    source = (
        f"def factory({params}):\n"
        "    def vm_run():\n"
        "        k = -1\n"
        "        try:\n"
        f"{inner}\n"
        "        except Exception as exc:\n"
        "            on_error(exc, k)\n"
        "            raise\n"
        "    return vm_run\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, "<opgraph vm>", "exec"), namespace)
    return namespace["factory"](**env)


def _loop_runner(
    plan: _NodePlan,
    free_cells: list[list[StorageCell]],
    recycle_cells: list[StorageCell],
    timers: tuple[list[float], list[int]] | None,
    on_error: Callable[[BaseException, int], None],
) -> Callable[[], None]:
    """The same schedule as a loop, for graphs too big to generate code for."""
    steps = list(zip(plan.thunks, free_cells))
    clock = time.perf_counter

    def vm_run() -> None:
        k = -1
        try:
            for cell in recycle_cells:
                cell[0] = None
            for k, (thunk, frees) in enumerate(steps):
                if timers is None:
                    thunk()
                else:
                    t0 = clock()
                    thunk()
                    timers[0][k] += clock() - t0
                    timers[1][k] += 1
                for cell in frees:
                    cell[0] = None
        except Exception as exc:
            on_error(exc, k)
            raise

    return vm_run


class _LazyTables(NamedTuple):
    """What the lazy stack machine reads per node, by position in the order."""

    prereq: list[list[int]]
    input_owner: list[list[int]]
    input_computed: list[list[list]]
    output_computed: list[list[list]]
    reset_cells: list[list]
    roots: list[int]
    readers: dict[Variable, int]
    freeable: list[list[tuple[StorageCell, Variable]]]
    intermediates: list[StorageCell]


def _lazy_tables(fgraph: Any, order: list[Apply], storage_map: dict[Variable, StorageCell],
                 compute_map: dict[Variable, list], keep: set[Variable]) -> _LazyTables:
    """The per-node tables of :func:`_lazy_runner`, built once per function."""
    index = {node: k for k, node in enumerate(order)}
    # Destroy/view orderings (readers before destroyers) become hard prerequisites.
    orderings = fgraph.orderings() if hasattr(fgraph, "orderings") else {}
    # GC: a value dies when every reader that runs has run; leftovers die at the end.
    readers: dict[Variable, int] = {}
    for node in order:
        for v in dict.fromkeys(node.inputs):
            readers[v] = readers.get(v, 0) + 1
    return _LazyTables(
        prereq=[[index[p] for p in orderings.get(node, ()) if p in index] for node in order],
        input_owner=[[index[v.owner] if v.owner is not None and v.owner in index else -1
                      for v in node.inputs] for node in order],
        input_computed=[[compute_map[v] for v in node.inputs] for node in order],
        output_computed=[[compute_map[v] for v in node.outputs] for node in order],
        reset_cells=[compute_map[v] for node in order for v in node.outputs],
        roots=[index[v.owner] for v in fgraph.outputs
               if v.owner is not None and v.owner in index],
        readers=readers,
        freeable=[[(storage_map[v], v) for v in dict.fromkeys(node.inputs)
                   if v not in keep and v.owner is not None] for node in order],
        intermediates=[storage_map[v] for node in order for v in node.outputs
                       if v not in keep],
    )


def _missing_inputs(op: Any, k: int, needed: list[int], owners: list[int],
                    computed: list[list], asked: dict[int, Any]) -> list[int]:
    """The nodes to run before lazy node ``k`` (which asked for inputs ``needed``) can go on;
    empty when they are all computed already and the node is to run again."""
    missing = [owners[i] for i in needed if not computed[i][0]]
    if not missing:
        if asked.get(k) == needed:
            raise RuntimeError(
                f"lazy thunk of {op} asked twice for inputs {needed} that are already computed"
            )
        asked[k] = needed
        return []
    if any(m < 0 for m in missing):
        raise RuntimeError(f"lazy thunk of {op} asked for an input that no node computes")
    asked.pop(k, None)
    return missing


def _lazy_runner(
    fgraph: Any,
    order: list[Apply],
    plan: _NodePlan,
    storage_map: dict[Variable, StorageCell],
    compute_map: dict[Variable, list],
    recycle_cells: list[StorageCell],
    keep: set[Variable],
    allow_gc: bool,
    timers: tuple[list[float], list[int]] | None,
    on_error: Callable[[BaseException, int], None],
) -> Callable[[], None]:
    """A stack machine: compute a node's inputs only when it asks for them."""
    n = len(order)
    t = _lazy_tables(fgraph, order, storage_map, compute_map, keep)
    prereq, input_owner, input_computed = t.prereq, t.input_owner, t.input_computed
    output_computed, freeable = t.output_computed, t.freeable
    thunks = plan.thunks
    lazy = plan.lazy
    clock = time.perf_counter

    def run_node(k: int) -> Any:
        if timers is None:
            return thunks[k]()
        t0 = clock()
        result = thunks[k]()
        timers[0][k] += clock() - t0
        timers[1][k] += 1
        return result

    def vm_run() -> None:
        k = -1
        try:
            for cell in t.reset_cells:
                cell[0] = False
            for cell in recycle_cells:
                cell[0] = None
            remaining = dict(t.readers) if allow_gc else None
            done = [False] * n
            stack = list(reversed(t.roots))
            asked: dict[int, Any] = {}
            while stack:
                k = stack[-1]
                if done[k]:
                    stack.pop()
                    continue
                waiting = [p for p in prereq[k] if not done[p]]
                if not lazy[k]:
                    waiting += [
                        input_owner[k][i]
                        for i, c in enumerate(input_computed[k])
                        if not c[0] and input_owner[k][i] >= 0
                    ]
                if waiting:
                    stack.extend(waiting)
                    continue
                if lazy[k]:
                    needed = run_node(k)
                    if needed:
                        stack.extend(_missing_inputs(order[k].op, k, list(needed),
                                                     input_owner[k], input_computed[k], asked))
                        continue
                else:
                    run_node(k)
                    for c in output_computed[k]:
                        c[0] = True
                done[k] = True
                stack.pop()
                if remaining is not None:
                    for cell, v in freeable[k]:
                        left = remaining[v] - 1
                        remaining[v] = left
                        if left == 0:
                            cell[0] = None
            if allow_gc:
                for cell in t.intermediates:
                    cell[0] = None
        except Exception as exc:
            on_error(exc, k)
            raise

    return vm_run
