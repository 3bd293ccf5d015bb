"""Small Features rewriters attach to watch a graph: ``ChangeTracker`` (did anything
change?), ``DispatchingFeature`` (callbacks from plain functions) and
``CheckStackTraceFeature`` (``config.check_stack_trace``: every new node must carry a
creation trace)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from opgraph.config import config
from opgraph.graph.features import AlreadyThere, Feature
from opgraph.graph.rewriting.utils import check_stack_trace

__all__ = ["ChangeTracker", "CheckStackTraceFeature", "DispatchingFeature"]


class ChangeTracker(Feature):
    """Records whether the graph changed (a node imported or an input changed) since the
    last ``reset``; ``nb_imported`` counts the imported nodes.  Reachable as
    ``fgraph.change_tracker``."""

    def __init__(self) -> None:
        self.changed = False
        self.nb_imported = 0

    def clone(self) -> ChangeTracker:
        return type(self)()

    def on_attach(self, fgraph: Any) -> None:
        if hasattr(fgraph, "change_tracker"):
            raise AlreadyThere("a ChangeTracker is already attached (fgraph.change_tracker)")
        fgraph.change_tracker = self

    def on_detach(self, fgraph: Any) -> None:
        del fgraph.change_tracker

    def on_import(self, fgraph: Any, node: Any, reason: Any) -> None:
        self.nb_imported += 1
        self.changed = True

    def on_change_input(self, fgraph: Any, node: Any, i: int, r: Any, new_r: Any,
                        reason: Any = None) -> None:
        self.changed = True

    def reset(self) -> None:
        self.changed = False


class DispatchingFeature(Feature):
    """A Feature whose callbacks are plain functions: ``importer(node)``, ``pruner(node)``,
    ``chin(node, i, old, new, reason)`` (each may be None)."""

    def __init__(self, importer: Callable | None, pruner: Callable | None,
                 chin: Callable | None, name: str | None = None) -> None:
        self.importer, self.pruner, self.chin, self.name = importer, pruner, chin, name

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{self.name}}}"

    def on_import(self, fgraph: Any, node: Any, reason: Any) -> None:
        if self.importer:
            self.importer(node)

    def on_prune(self, fgraph: Any, node: Any, reason: Any) -> None:
        if self.pruner:
            self.pruner(node)

    def on_change_input(self, fgraph: Any, node: Any, i: int, r: Any, new_r: Any,
                        reason: Any = None) -> None:
        if self.chin:
            self.chin(node, i, r, new_r, reason)

    def on_detach(self, fgraph: Any) -> None:
        self.importer = self.pruner = self.chin = None  # picklable once detached


class CheckStackTraceFeature(Feature):
    """On each import, checks that every node's outputs carry a creation trace, as
    ``config.check_stack_trace`` says: ``raise`` (AssertionError naming the rewrite),
    ``warn`` or ``log`` (a placeholder trace naming it; ``warn`` also warns), ``off``."""

    def on_import(self, fgraph: Any, node: Any, reason: Any) -> None:
        mode = config.check_stack_trace
        if mode == "off" or check_stack_trace(fgraph, "all", bug_print="ignore"):
            return
        message = f"Empty stack trace. The rewrite that inserted this variable is {reason}."
        if mode == "raise":
            raise AssertionError(message)
        for apply in fgraph.apply_nodes:
            for out in apply.outputs:
                if not getattr(out.tag, "trace", None):
                    out.tag.trace = [[("", 0, message, "")]]
        if mode == "warn":
            warnings.warn(message, stacklevel=2)
