"""DebugMode: run every node by every available implementation and check everything.

For each call, node by node in order:

* the Python implementation (``perform``) and, when a C linker is usable, the
  node compiled alone by it run on private copies of the inputs; their
  outputs must agree (:class:`BadThunkOutput`), optionally also when the
  output buffers are preallocated with other memory layouts;
* an input that changed must be listed in ``destroy_map``
  (:class:`BadDestroyMap`); an output sharing memory with an input must be
  listed in ``view_map`` (:class:`BadViewMap`);
* every output must be a valid value of its type, and finite when
  ``check_isfinite`` (:class:`InvalidValueError`).

At compile time the rewrites run ``stability_patience`` times on fresh
copies of the graph and must give the same graph (:class:`StochasticOrder`);
at run time every variable a rewrite replaced is recomputed and compared
with its replacement (:class:`BadOptimization`, naming the rewrite).

Everything is slow on purpose; it is for finding bugs in Ops and rewrites.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from opgraph.compile.debug.checks import (
    check_output_values,
    copy_value,
    run_on_copies,
    values_match,
)
from opgraph.compile.debug.errors import (
    BadDestroyMap,
    BadOptimization,
    BadThunkOutput,
    BadViewMap,
    DebugModeError,
    InvalidValueError,
    StochasticOrder,
)
from opgraph.compile.debug.rewritecheck import (
    ReplacementTracker,
    check_replacements,
    compare_rewrites,
)
from opgraph.compile.flags import flag
from opgraph.compile.linkers import LinkerUnavailableError, UnknownModeError, resolve_linker
from opgraph.compile.moderecord import Mode
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.fg import OUTPUT, FunctionGraph
from opgraph.link.basic import (
    BackendCompileError,
    Linker,
    LinkerResult,
    StorageCell,
    raise_with_op,
)

__all__ = [
    "BadDestroyMap",
    "BadOptimization",
    "BadThunkOutput",
    "BadViewMap",
    "DebugLinker",
    "DebugMode",
    "DebugModeError",
    "InvalidValueError",
    "StochasticOrder",
]

PREALLOC_MODES = ("c_contiguous", "f_contiguous", "initial", "previous", "neg_strides",
                  "strided", "wrong_size", "ALL")
"""What ``check_preallocated_output`` accepts (PyTensor's names); opgraph fills the
output buffers for "c_contiguous" and "f_contiguous" and treats "ALL" as both."""


def _prealloc_kinds(spec: Any) -> tuple[str, ...]:
    if not spec:
        return ()
    items = spec.split(":") if isinstance(spec, str) else list(spec)
    for item in items:
        if item not in PREALLOC_MODES:
            raise ValueError(
                f"DebugMode: check_preallocated_output entries must be among "
                f"{list(PREALLOC_MODES)}, got {item!r}"
            )
    if "ALL" in items:
        return ("c_contiguous", "f_contiguous")
    return tuple(i for i in items if i in ("c_contiguous", "f_contiguous"))


def _prealloc(kind: str, like: Any) -> Any:
    """A buffer shaped like ``like`` in the requested layout, filled with garbage."""
    if not isinstance(like, np.ndarray):
        return None
    order = "F" if kind == "f_contiguous" else "C"
    buf = np.empty(like.shape, dtype=like.dtype, order=order)
    if buf.dtype.kind in "fc":
        buf.fill(np.nan)
    return buf


class _NodeC:
    """One node compiled alone by the C linker, run on given input values."""

    def __init__(self, result: LinkerResult) -> None:
        self.result = result

    def __call__(self, inputs: list, cells: list) -> None:
        res = self.result
        for cell, value in zip(res.input_storage, inputs):
            cell[0] = value
        for cell, out in zip(res.output_storage, cells):
            cell[0] = out[0]
        res.fn()
        for cell, out in zip(res.output_storage, cells):
            out[0] = cell[0]
            cell[0] = None
        for cell in res.input_storage:
            cell[0] = None


class DebugLinker(Linker):
    """The linker of DebugMode: see the module docstring for what it checks."""

    name = "debug"

    def __init__(
        self,
        *,
        allow_gc: bool = True,
        check_py_code: bool = True,
        check_c_code: bool = True,
        check_isfinite: bool = True,
        check_preallocated_output: Any = (),
        **options: Any,
    ) -> None:
        super().__init__(allow_gc=allow_gc, check_py_code=check_py_code,
                         check_c_code=check_c_code, check_isfinite=check_isfinite,
                         check_preallocated_output=check_preallocated_output, **options)
        self.check_py_code = bool(check_py_code)
        self.check_c_code = bool(check_c_code)
        self.check_isfinite = bool(check_isfinite)
        self.prealloc_kinds = _prealloc_kinds(check_preallocated_output)

    def _c_linker(self) -> Linker | None:
        if not self.check_c_code:
            return None
        try:
            return resolve_linker("c")
        except (LinkerUnavailableError, UnknownModeError):
            return None

    def _node_c(self, node: Apply, c_linker: Linker | None) -> _NodeC | None:
        """``node`` compiled alone by the C linker, or None when that is impossible."""
        if c_linker is None:
            return None
        inputs = [v.type() for v in node.inputs]
        alone = node.clone_with_new_inputs(inputs)
        fgraph = FunctionGraph(inputs, list(alone.outputs), clone=False)
        try:
            result = c_linker.accept(fgraph, no_recycling=[]).make_thunk()
        except BackendCompileError as exc:
            first = str(exc).strip().splitlines()[:3]
            log = f" (full log: {exc.log_path})" if getattr(exc, "log_path", None) else ""
            warnings.warn(
                f"DebugMode: the C linker cannot build node {node.op} alone, so only its "
                f"Python implementation is checked: {' / '.join(first)}{log}",
                UserWarning,
                stacklevel=2,
            )
            return None
        return _NodeC(result)

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
        for node in order:
            node.op.prepare_node(node, storage_map, compute_map, "py")
        c_linker = self._c_linker()
        c_thunks = [self._node_c(node, c_linker) for node in order]
        tracker = next((f for f in fgraph._features if isinstance(f, ReplacementTracker)), None)
        clients = fgraph.clients

        def used_later(var: Variable) -> bool:
            return any(client != OUTPUT for client, _ in clients.get(var, ()))

        recycle = [storage_map[v] for v in self.no_recycling if v.owner is not None]
        keep = set(fgraph.inputs) | set(fgraph.outputs)
        intermediates = [storage_map[v] for node in order for v in node.outputs if v not in keep]
        allow_gc = self.allow_gc
        timers = self.profile.node_timers(order) if self.profile is not None else None

        def run() -> None:
            for cell in recycle:
                cell[0] = None
            for k, node in enumerate(order):
                try:
                    self._run_node(node, storage_map, c_thunks[k], used_later)
                except DebugModeError:
                    raise
                except Exception as exc:
                    if tracker is not None:
                        tracker.annotate(exc, node)
                    raise_with_op(exc, node, storage_map)
                    raise
                if timers is not None:
                    timers[1][k] += 1
            if tracker is not None:
                check_replacements(tracker, storage_map)
            if allow_gc:
                for cell in intermediates:
                    cell[0] = None

        return LinkerResult(run, input_storage, output_storage, [], order)

    def _run_node(self, node: Apply, storage_map: dict, node_c: _NodeC | None,
                  used_later: Callable[[Variable], bool]) -> None:
        inputs = [storage_map[v][0] for v in node.inputs]
        reference: list[Any] | None = None
        ref_label = ""
        if self.check_py_code or node_c is None:
            def perform(ins: list, cells: list) -> None:
                node.op.perform(node, ins, cells)

            reference = run_on_copies(node, inputs, perform, "perform", used_later)
            ref_label = "perform"
        if node_c is not None:
            reference, ref_label = self._check_c(node, inputs, node_c, used_later,
                                                 reference, ref_label)
        assert reference is not None
        check_output_values(node, reference, self.check_isfinite)
        for var, value in zip(node.outputs, reference):
            storage_map[var][0] = value

    def _check_c(self, node: Apply, inputs: list, node_c: _NodeC,
                 used_later: Callable[[Variable], bool], reference: list[Any] | None,
                 ref_label: str) -> tuple[list[Any], str]:
        c_out = run_on_copies(node, inputs, node_c, "c_code", used_later)
        if reference is None:
            reference, ref_label = c_out, "c_code"
        else:
            _compare(node, inputs, ref_label, reference, "c_code", c_out)
        for kind in self.prealloc_kinds:
            bufs = [_prealloc(kind, v) for v in reference]
            out = run_on_copies(node, inputs, node_c, f"c_code ({kind} output buffers)",
                                used_later, prealloc=bufs)
            _compare(node, inputs, ref_label, reference,
                     f"c_code with {kind} preallocated outputs", out)
        return reference, ref_label


def _compare(node: Apply, inputs: list, label1: str, vals1: list, label2: str,
             vals2: list) -> None:
    for var, a, b in zip(node.outputs, vals1, vals2):
        if not values_match(var, a, b):
            raise BadThunkOutput(var, label1, a, label2, b, [copy_value(v) for v in inputs])


class DebugMode(Mode):
    """A Mode that checks Ops and rewrites thoroughly (slow; for finding bugs).

    ``stability_patience``: how many times the rewrites run to check they are
    deterministic.  ``check_c_code`` / ``check_py_code``: which
    implementations run.  ``check_isfinite``: NaN/Inf outputs are errors.
    ``check_preallocated_output``: also run C with output buffers of these
    layouts (``["c_contiguous", "f_contiguous"]``).  Defaults come from the
    ``DebugMode__*`` flags.
    """

    def __init__(
        self,
        optimizer: Any = "fast_run",
        stability_patience: int | None = None,
        check_c_code: bool | None = None,
        check_py_code: bool | None = None,
        check_isfinite: bool | None = None,
        check_preallocated_output: Any = None,
        require_matching_strides: int | None = None,
        linker: Any = None,
    ) -> None:
        if linker is not None and not isinstance(linker, DebugLinker):
            raise ValueError(
                f"DebugMode runs its own linker (every implementation of every node); "
                f"got linker={linker!r}. Use Mode(linker=...) for another linker"
            )
        pick = (lambda value, name: flag(name) if value is None else value)
        self.stability_patience = int(pick(stability_patience, "DebugMode__patience"))
        if self.stability_patience < 1:
            raise ValueError(
                f"DebugMode: stability_patience must be at least 1, got {stability_patience}"
            )
        self.check_c_code = bool(pick(check_c_code, "DebugMode__check_c"))
        self.check_py_code = bool(pick(check_py_code, "DebugMode__check_py"))
        self.check_isfinite = bool(pick(check_isfinite, "DebugMode__check_finite"))
        self.check_preallocated_output = pick(check_preallocated_output,
                                              "DebugMode__check_preallocated_output")
        self.require_matching_strides = int(pick(require_matching_strides,
                                                 "DebugMode__check_strides"))
        if not (self.check_c_code or self.check_py_code):
            raise ValueError("DebugMode: check_c_code and check_py_code cannot both be False")
        linker = linker or DebugLinker(
            check_py_code=self.check_py_code,
            check_c_code=self.check_c_code,
            check_isfinite=self.check_isfinite,
            check_preallocated_output=self.check_preallocated_output,
        )
        super().__init__(linker=linker, optimizer=optimizer, name="DebugMode")

    def graph_features(self, fgraph: Any) -> list[Any]:
        return [ReplacementTracker()]

    def check_rewrites(self, fresh_graph: Any, rewrite: Any, fgraph: Any) -> None:
        compare_rewrites(fresh_graph, rewrite, fgraph, self.stability_patience)

    def __str__(self) -> str:
        return (f"DebugMode(optimizer={self.optimizer!r}, "
                f"stability_patience={self.stability_patience}, "
                f"check_c_code={self.check_c_code}, check_py_code={self.check_py_code})")
