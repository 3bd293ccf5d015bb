"""``VMLinker`` as PyTensor code constructs it, backed by the installed linker plugins.

``VMLinker(lazy=..., use_cloop=..., allow_gc=...)`` picks the plugin linker
that does what was asked: ``use_cloop=True`` the per-node C linker "cvm"
(opgraph-c), ``lazy=False`` the eager "py" linker (every node runs, even in
an untaken IfElse branch), otherwise the lazy Python VM "vm"
(opgraph-numpy).  The choice is made through the plugin registry when the
linker is bound to a graph, so this module imports no plugin.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Variable
from opgraph.link.basic import Linker, LinkerResult, StorageCell
from opgraph.link.vms import (
    VM,
    Loop,
    Stack,
    UpdatingVM,
    calculate_reallocate_info,
    make_stack_result,
)
from opgraph.plugins.manager import linker_records

__all__ = ["VM", "Loop", "Stack", "UpdatingVM", "VMLinker", "calculate_reallocate_info"]


class VMLinker(Linker):
    """PyTensor's ``VMLinker`` options mapped onto the "vm", "py" and "cvm" linkers."""

    name = "vm"

    def __init__(
        self,
        allow_gc: bool | None = None,
        use_cloop: bool = False,
        callback: Any = None,
        callback_input: Any = None,
        lazy: bool | None = None,
        schedule: Any = None,
        c_thunks: bool | None = None,
        allow_partial_eval: bool | None = None,
    ) -> None:
        if schedule is not None:
            raise NotImplementedError(
                "VMLinker(schedule=...) is not supported: the node order is the graph's "
                "toposort (with the DestroyHandler's orderings)"
            )
        # With a callback the graph runs on opgraph.link.vms.Stack (see make_thunk).
        self.callback = callback
        self.callback_input = callback_input
        super().__init__(allow_gc=True if allow_gc is None else bool(allow_gc),
                         use_cloop=bool(use_cloop), lazy=lazy, c_thunks=c_thunks,
                         allow_partial_eval=allow_partial_eval)
        self.use_cloop = bool(use_cloop)
        self.lazy = lazy

    def clone(self, **overrides: Any) -> VMLinker:
        kwargs = {"allow_gc": self.allow_gc, "use_cloop": self.use_cloop, "lazy": self.lazy,
                  "callback": self.callback, "callback_input": self.callback_input}
        kwargs.update({k: v for k, v in overrides.items() if k in kwargs})
        return VMLinker(**kwargs)

    def target_name(self) -> str:
        """The plugin linker that runs the graph: "cvm", "py" or "vm"."""
        if self.use_cloop:
            return "cvm"
        return "py" if self.lazy is False else "vm"

    def _target(self) -> Linker:
        name = self.target_name()
        record = linker_records().get(name)
        if record is None:
            raise ValueError(
                f"VMLinker needs the linker {name!r}, which no installed plugin provides "
                "(install opgraph-numpy for 'vm'/'py', opgraph-c for 'cvm')"
            )
        reason = record.unavailable_reason()
        if reason is not None:
            raise ValueError(f"VMLinker needs the linker {name!r}, which cannot run here: "
                             f"{reason}")
        return record.load()(allow_gc=self.allow_gc)

    def make_thunk(
        self,
        input_storage: Sequence[StorageCell] | None = None,
        output_storage: Sequence[StorageCell] | None = None,
        storage_map: dict[Variable, StorageCell] | None = None,
    ) -> LinkerResult:
        if self.callback is not None or self.callback_input is not None:
            return make_stack_result(self._require_fgraph(), self.no_recycling, input_storage,
                                     output_storage, storage_map, self.allow_gc,
                                     self.callback, self.callback_input)
        inner = self._target().accept(self._require_fgraph(), self.no_recycling, self.profile)
        return inner.make_thunk(input_storage, output_storage, storage_map)
