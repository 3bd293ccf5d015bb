"""Features: objects that watch a FunctionGraph and keep properties true as it changes.

A Feature gets a callback for each event (attach/detach, import, prune,
input change) and may add ``orderings`` that ``toposort`` honours. The
Features here give rewrites their safety net: ``History`` records changes
so they can be undone, ``Validator`` asks every Feature whether the graph is
still acceptable, and ``ReplaceValidate`` combines the two so a replacement
that breaks the graph is rolled back before the error reaches the caller.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from opgraph.config import config
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.utils import InconsistencyError

if TYPE_CHECKING:
    from opgraph.graph.fg import FunctionGraph

__all__ = [
    "AlreadyThere",
    "Bookkeeper",
    "Feature",
    "FullHistory",
    "GetCheckpoint",
    "History",
    "LambdaExtract",
    "NoOutputFromInplace",
    "NodeFinder",
    "PreserveVariableAttributes",
    "PrintListener",
    "ReplaceValidate",
    "ReplacementDidNotRemoveError",
    "Validator",
    "register_feature_callback",
]


class AlreadyThere(Exception):
    """Raised by ``on_attach`` when an equivalent Feature is already attached.

    ``FunctionGraph.attach_feature`` treats it as a refusal (the graph is
    unchanged); attaching the very same instance twice raises it to the caller.
    """


class ReplacementDidNotRemoveError(Exception):
    """A replacement left in the graph a node or variable it was meant to remove."""


def register_feature_callback(method: Any) -> Any:
    """Mark a Feature method as a callback that ``execute_callbacks`` dispatches to.

    The standard callbacks (``on_attach``, ``on_import``, ...) are already
    registered; subclasses inherit registrations when they override them.
    """
    method._is_feature_callback = True
    return method


class Feature:
    """Base class of FunctionGraph extensions: every callback is a no-op here.

    Subclasses override only the callbacks they need; the graph skips the
    others, so an unused callback costs nothing. Names in ``provides`` are
    methods the Feature installs on the graph (``fgraph.checkpoint()``); a
    name is either provided or a callback, never both.
    """

    #: Methods this Feature installs on the FunctionGraph it is attached to.
    provides: tuple[str, ...] = ()
    #: Callback names registered with :func:`register_feature_callback` (with bases).
    _feature_callbacks: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = {
            name
            for base in cls.__mro__
            for name, value in vars(base).items()
            if getattr(value, "_is_feature_callback", False)
        }
        cls._feature_callbacks = frozenset(names)
        clash = set(cls.provides) & names
        if clash:
            raise TypeError(
                f"{cls.__name__}: names {sorted(clash)} appear in both `provides` and as "
                "callbacks; a name is one or the other"
            )

    @register_feature_callback
    def on_attach(self, fgraph: FunctionGraph) -> None:
        """Called when attached, after the graph is populated: check it here.

        Raise AlreadyThere to refuse when an equivalent Feature is attached.
        """

    @register_feature_callback
    def on_detach(self, fgraph: FunctionGraph) -> None:
        """Called when removed: undo anything ``on_attach`` installed."""

    @register_feature_callback
    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        """Called for each node imported into the graph (not at construction)."""

    @register_feature_callback
    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        """Called for each node removed from the graph, after it is disconnected."""

    @register_feature_callback
    def on_change_input(
        self,
        fgraph: FunctionGraph,
        node: Apply | str,
        i: int,
        var: Variable,
        new_var: Variable,
        reason: str | None = None,
    ) -> None:
        """Called after ``node.inputs[i]`` changed from ``var`` to ``new_var``."""

    @register_feature_callback
    def orderings(self, fgraph: FunctionGraph) -> dict[Apply, list[Apply]]:
        """``{node: [nodes that must run before it]}`` for ``toposort``."""
        return {}

    @register_feature_callback
    def on_validate(self, fgraph: FunctionGraph) -> None:
        """Called by ``fgraph.validate()``: raise InconsistencyError to refuse the graph."""

    def clone(self) -> Feature:
        """A Feature to attach to a cloned graph; stateless Features return self."""
        return self


class Bookkeeper(Feature):
    """Replays the current nodes as imports on attach and as prunes on detach."""

    def on_attach(self, fgraph: FunctionGraph) -> None:
        for node in fgraph.toposort():
            self.on_import(fgraph, node, "on_attach")

    def on_detach(self, fgraph: FunctionGraph) -> None:
        for node in fgraph.toposort():
            self.on_prune(fgraph, node, "Bookkeeper.detach")


class GetCheckpoint:
    """Callable returning the current length of a graph's history."""

    def __init__(self, history: History, fgraph: FunctionGraph) -> None:
        self.h = history
        self.fgraph = fgraph

    def __call__(self) -> int:
        return len(self.h.history[self.fgraph])


class LambdaExtract:
    """Undo record of one input change: puts ``r`` back at ``node.inputs[i]``."""

    def __init__(
        self, fgraph: FunctionGraph, node: Apply | str, i: int, r: Variable, reason: Any = None
    ) -> None:
        self.fgraph = fgraph
        self.node = node
        self.i = i
        self.r = r
        self.reason = reason

    def __getstate__(self) -> dict[str, Any]:
        """The reason is kept as text: rewriters are often not picklable."""
        d = self.__dict__.copy()
        if not isinstance(d["reason"], str | tuple | type(None)):
            d["reason"] = str(d["reason"])
        return d

    def __call__(self) -> None:
        # check=False: a rewrite may have narrowed the type; going back must still work
        self.fgraph.change_node_input(
            self.node, self.i, self.r, reason=("Revert", self.reason), check=False
        )


class History(Feature):
    """Records input changes so ``fgraph.revert(checkpoint)`` can undo them.

    Installs ``fgraph.checkpoint()`` (a position in the history) and
    ``fgraph.revert(checkpoint)``.
    """

    provides: tuple[str, ...] = ("checkpoint", "revert")
    pickle_rm_attr = ("checkpoint", "revert")

    def __init__(self) -> None:
        self.history: dict[FunctionGraph, list[LambdaExtract] | None] = {}

    def on_attach(self, fgraph: FunctionGraph) -> None:
        if hasattr(fgraph, "checkpoint") or hasattr(fgraph, "revert"):
            raise AlreadyThere("History is already attached (fgraph has checkpoint/revert)")
        self.history[fgraph] = []
        fgraph.checkpoint = GetCheckpoint(self, fgraph)
        fgraph.revert = partial(self.revert, fgraph)

    def clone(self) -> History:
        return type(self)()

    def unpickle(self, fgraph: FunctionGraph) -> None:
        if self.history.get(fgraph) is None:
            self.history[fgraph] = []
        fgraph.checkpoint = GetCheckpoint(self, fgraph)
        fgraph.revert = partial(self.revert, fgraph)

    def on_detach(self, fgraph: FunctionGraph) -> None:
        for name in ("checkpoint", "revert"):
            if name in fgraph.__dict__:
                delattr(fgraph, name)
        self.history.pop(fgraph, None)

    def on_change_input(
        self,
        fgraph: FunctionGraph,
        node: Apply | str,
        i: int,
        r: Variable,
        new_r: Variable,
        reason: str | None = None,
    ) -> None:
        h = self.history.get(fgraph)
        if h is None:  # reverting: do not record the undo steps
            return
        h.append(LambdaExtract(fgraph, node, i, r, reason))

    def revert(self, fgraph: FunctionGraph, checkpoint: int) -> None:
        """Undo every recorded change after ``checkpoint``, newest first."""
        h = self.history[fgraph]
        if h is None:
            raise RuntimeError("History.revert called while already reverting")
        if not 0 <= checkpoint <= len(h):
            raise ValueError(f"checkpoint must be between 0 and {len(h)}, got {checkpoint}")
        self.history[fgraph] = None
        try:
            while len(h) > checkpoint:
                h.pop()()
        finally:
            self.history[fgraph] = h


class FullHistory(Feature):
    """Records every input change so the graph can be replayed back and forth.

    After rewriting, ``start()`` shows the graph as it was when attached,
    ``end()`` as it is now, and ``prev()`` / ``next()`` / ``goto(i)`` step
    through the intermediate states (each returns the graph). ``callback``,
    if given, is called after every step.
    """

    def __init__(self, callback: Any = None) -> None:
        self.fgraph: FunctionGraph | None = None
        self.changes: list[tuple[Any, int, Variable, Variable, Any]] = []
        self.pointer = 0
        self.callback = callback
        self._replaying = False

    def on_attach(self, fgraph: FunctionGraph) -> None:
        if self.fgraph is not None:
            raise ValueError("a FullHistory records one FunctionGraph only")
        self.fgraph = fgraph
        self.changes = []
        self.pointer = 0

    def on_detach(self, fgraph: FunctionGraph) -> None:
        self.fgraph = None

    def clone(self) -> FullHistory:
        return type(self)(self.callback)

    def on_change_input(
        self, fgraph: FunctionGraph, node: Apply | str, i: int, r: Variable, new_r: Variable,
        reason: str | None = None,
    ) -> None:
        if self._replaying:
            return
        del self.changes[self.pointer:]  # a new change forgets the undone ones
        self.changes.append((node, i, r, new_r, reason))
        self.pointer = len(self.changes)

    def _apply(self, k: int, forward: bool) -> None:
        node, i, r, new_r, reason = self.changes[k]
        if getattr(config, "optimizer_verbose", False):
            print(reason)
        self.fgraph.change_node_input(node, i, new_r if forward else r, check=False,
                                      reason=("FullHistory", reason))

    def goto(self, checkpoint: int) -> FunctionGraph:
        """Show the graph after the first ``checkpoint`` recorded changes."""
        if self.fgraph is None:
            raise ValueError("FullHistory.goto: not attached to a FunctionGraph")
        target = max(0, min(int(checkpoint), len(self.changes)))
        self._replaying = True
        try:
            while self.pointer > target:
                self.pointer -= 1
                self._apply(self.pointer, forward=False)
            while self.pointer < target:
                self._apply(self.pointer, forward=True)
                self.pointer += 1
        finally:
            self._replaying = False
        if self.callback is not None:
            self.callback()
        return self.fgraph

    def start(self) -> FunctionGraph:
        return self.goto(0)

    def end(self) -> FunctionGraph:
        return self.goto(len(self.changes))

    def prev(self) -> FunctionGraph:
        return self.goto(self.pointer - 1)

    def next(self) -> FunctionGraph:
        return self.goto(self.pointer + 1)


class Validator(Feature):
    """Installs ``fgraph.validate()`` and ``fgraph.consistent()``.

    ``validate`` calls the ``validate(fgraph)`` method of every Feature that
    has one; they raise InconsistencyError when the graph is unacceptable.
    """

    provides: tuple[str, ...] = ("validate", "consistent")
    pickle_rm_attr = ("validate", "consistent")

    def on_attach(self, fgraph: FunctionGraph) -> None:
        for attr in ("validate", "validate_time"):
            if hasattr(fgraph, attr):
                raise AlreadyThere(f"a Validator is already attached (fgraph has {attr})")
        fgraph.validate = partial(self.validate_, fgraph)
        fgraph.consistent = partial(self.consistent_, fgraph)

    def unpickle(self, fgraph: FunctionGraph) -> None:
        fgraph.validate = partial(self.validate_, fgraph)
        fgraph.consistent = partial(self.consistent_, fgraph)

    def on_detach(self, fgraph: FunctionGraph) -> None:
        for name in ("validate", "consistent", "validate_time"):
            if name in fgraph.__dict__:
                delattr(fgraph, name)

    def validate_(self, fgraph: FunctionGraph) -> bool:
        """Run every Feature's ``validate``; raise InconsistencyError if one objects."""
        t0 = time.perf_counter()
        fgraph.execute_callbacks("validate")
        fgraph.execute_callbacks("on_validate")
        fgraph.validate_time = getattr(fgraph, "validate_time", 0.0) + time.perf_counter() - t0
        return True

    def consistent_(self, fgraph: FunctionGraph) -> bool:
        """True when ``validate`` passes."""
        try:
            fgraph.validate()
            return True
        except InconsistencyError:
            return False


class ReplaceValidate(History, Validator):
    """Replacements that are validated and undone when validation fails.

    Installs ``fgraph.replace_validate``, ``fgraph.replace_all_validate`` and
    ``fgraph.replace_all_validate_remove``.
    """

    provides: tuple[str, ...] = (
        *History.provides,
        *Validator.provides,
        "replace_validate",
        "replace_all_validate",
        "replace_all_validate_remove",
    )
    pickle_rm_attr = (
        "replace_validate",
        "replace_all_validate",
        "replace_all_validate_remove",
        *History.pickle_rm_attr,
        *Validator.pickle_rm_attr,
    )

    def on_attach(self, fgraph: FunctionGraph) -> None:
        for attr in ("replace_validate", "replace_all_validate", "replace_all_validate_remove"):
            if hasattr(fgraph, attr):
                raise AlreadyThere(f"ReplaceValidate is already attached (fgraph has {attr})")
        History.on_attach(self, fgraph)
        try:
            Validator.on_attach(self, fgraph)
        except AlreadyThere:
            History.on_detach(self, fgraph)
            raise
        self.unpickle(fgraph)

    def clone(self) -> ReplaceValidate:
        return type(self)()

    def unpickle(self, fgraph: FunctionGraph) -> None:
        History.unpickle(self, fgraph)
        Validator.unpickle(self, fgraph)
        fgraph.replace_validate = partial(self.replace_validate, fgraph)
        fgraph.replace_all_validate = partial(self.replace_all_validate, fgraph)
        fgraph.replace_all_validate_remove = partial(self.replace_all_validate_remove, fgraph)

    def on_detach(self, fgraph: FunctionGraph) -> None:
        History.on_detach(self, fgraph)
        Validator.on_detach(self, fgraph)
        for name in ("replace_validate", "replace_all_validate", "replace_all_validate_remove"):
            if name in fgraph.__dict__:
                delattr(fgraph, name)

    def replace_validate(
        self, fgraph: FunctionGraph, r: Variable, new_r: Variable, reason: str | None = None,
        **kwargs: Any,
    ) -> None:
        """``replace`` then ``validate``, undone if either raises."""
        self.replace_all_validate(fgraph, [(r, new_r)], reason=reason, **kwargs)

    def replace_all_validate(
        self,
        fgraph: FunctionGraph,
        replacements: Iterable[tuple[Variable, Variable]],
        reason: str | None = None,
        verbose: bool | None = None,
        **kwargs: Any,
    ) -> int:
        """Replace every pair, then validate; on any error revert all and re-raise.

        Returns the checkpoint taken before the first replacement.
        """
        chk = fgraph.checkpoint()
        try:
            for r, new_r in replacements:
                fgraph.replace(r, new_r, reason=reason, verbose=False, **kwargs)
        except Exception:
            fgraph.revert(chk)
            raise
        try:
            fgraph.validate()
        except Exception as exc:
            fgraph.revert(chk)
            if verbose:
                for r, _ in replacements if isinstance(replacements, Sequence) else ():
                    print(f"rewriting: validate failed on node {r}.\n Reason: {reason}, {exc}")
            raise
        if verbose:
            for r, new_r in replacements if isinstance(replacements, Sequence) else ():
                print(
                    f"rewriting: rewrite {reason} replaces {r} of {r.owner} "
                    f"with {new_r} of {new_r.owner}"
                )
        return chk

    def replace_all_validate_remove(
        self,
        fgraph: FunctionGraph,
        replacements: Iterable[tuple[Variable, Variable]],
        remove: Iterable[Apply | Variable],
        reason: str | None = None,
        warn: bool = True,
        **kwargs: Any,
    ) -> int:
        """As ``replace_all_validate``, and also require ``remove`` to be gone afterwards."""
        chk = self.replace_all_validate(fgraph, replacements, reason=reason, **kwargs)
        for rm in remove:
            if rm in fgraph.apply_nodes or rm in fgraph.variables:
                fgraph.revert(chk)
                if warn:
                    warnings.warn(
                        f"{reason}: the replacement did not remove {rm}; reverted",
                        stacklevel=2,
                    )
                raise ReplacementDidNotRemoveError(
                    f"{reason}: replacement should have removed {rm} from the graph but did not"
                )
        return chk


class NodeFinder(Bookkeeper):
    """Indexes nodes by Op and Op class: ``fgraph.get_nodes(op_or_op_class)``."""

    def __init__(self) -> None:
        self.fgraph: FunctionGraph | None = None
        self.by_op: dict[Any, dict[Apply, None]] = {}
        self.by_type: dict[type, dict[Apply, None]] = {}

    def on_attach(self, fgraph: FunctionGraph) -> None:
        if self.fgraph is not None:
            raise ValueError("a NodeFinder can be attached to one FunctionGraph only")
        if hasattr(fgraph, "get_nodes"):
            raise AlreadyThere("NodeFinder is already attached (fgraph has get_nodes)")
        self.fgraph = fgraph
        fgraph.get_nodes = partial(self.query, fgraph)
        Bookkeeper.on_attach(self, fgraph)

    def on_detach(self, fgraph: FunctionGraph) -> None:
        if self.fgraph is not fgraph:
            raise ValueError("this NodeFinder is not attached to that FunctionGraph")
        self.fgraph = None
        if "get_nodes" in fgraph.__dict__:
            del fgraph.get_nodes
        self.by_op.clear()
        self.by_type.clear()

    def clone(self) -> NodeFinder:
        return type(self)()

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        op = node.op
        try:
            self.by_op.setdefault(op, {})[node] = None
        except TypeError:  # unhashable op: findable by class only
            pass
        self.by_type.setdefault(type(op), {})[node] = None

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        op = node.op
        try:
            nodes = self.by_op.get(op)
        except TypeError:
            nodes = None
        if nodes is not None:
            nodes.pop(node, None)
            if not nodes:
                del self.by_op[op]
        nodes = self.by_type.get(type(op))
        if nodes is not None:
            nodes.pop(node, None)
            if not nodes:
                del self.by_type[type(op)]

    def query(self, fgraph: FunctionGraph, op: Any) -> list[Apply]:
        """Nodes applying ``op`` (an Op instance) or any Op of class ``op``."""
        if isinstance(op, type):
            out: list[Apply] = []
            for cls, nodes in self.by_type.items():
                if issubclass(cls, op):
                    out.extend(nodes)
            return out
        try:
            return list(self.by_op.get(op, ()))
        except TypeError as exc:
            raise TypeError(f"NodeFinder: {op!r} is not hashable, query by its class") from exc


class PrintListener(Feature):
    """Prints every event; handy when debugging a rewrite."""

    def __init__(self, active: bool = True, file: Any = None) -> None:
        self.active = active
        self.file = file

    def _print(self, *args: Any) -> None:
        if self.active:
            print(*args, file=self.file if self.file is not None else sys.stdout)

    def on_attach(self, fgraph: FunctionGraph) -> None:
        self._print("-- attaching to:", fgraph)

    def on_detach(self, fgraph: FunctionGraph) -> None:
        self._print("-- detaching from:", fgraph)

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        self._print(f"-- importing: {node}, reason: {reason}")

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        self._print(f"-- pruning: {node}, reason: {reason}")

    def on_change_input(
        self, fgraph: FunctionGraph, node: Apply | str, i: int, r: Variable, new_r: Variable,
        reason: str | None = None,
    ) -> None:
        self._print(f"-- changing ({node}.inputs[{i}]) from {r} to {new_r}, reason: {reason}")


class PreserveVariableAttributes(Feature):
    """A replacement without a name inherits the name of the variable it replaces."""

    def on_change_input(
        self, fgraph: FunctionGraph, node: Apply | str, i: int, r: Variable, new_r: Variable,
        reason: str | None = None,
    ) -> None:
        if r.name is not None and new_r.name is None:
            new_r.name = r.name


class NoOutputFromInplace(Feature):
    """Refuses graphs where an output (in ``[first, last)``) is computed in place."""

    def __init__(self, protected_out_ids: Sequence[int] | None = None, first: int = 0,
                 last: int | None = None) -> None:
        self.protected_out_ids = None if protected_out_ids is None else list(protected_out_ids)
        self.first = first
        self.last = last

    def validate(self, fgraph: FunctionGraph) -> bool:
        if self.protected_out_ids is not None:
            outs = [fgraph.outputs[i] for i in self.protected_out_ids]
        else:
            outs = fgraph.outputs[self.first : self.last]
        for out in outs:
            node = out.owner
            if node is None:
                continue
            if out.index in getattr(node.op, "destroy_map", {}):
                raise InconsistencyError(
                    f"Output {out} is computed in place by {node.op} (destroy_map "
                    f"{node.op.destroy_map}), but this graph's outputs must not be"
                )
        return True



class BadOptimization(Exception):
    """A rewrite replaced ``old_r`` by ``new_r`` whose value differs (found by DebugMode).

    ``reason`` is the rewriter's name; the values are the ones computed for
    the same inputs.
    """

    def __init__(self, old_r: Any, new_r: Any, old_r_val: Any = None, new_r_val: Any = None,
                 reason: Any = None, old_graph: str = "", new_graph: str = "") -> None:
        super().__init__()
        self.old_r, self.new_r = old_r, new_r
        self.old_r_val, self.new_r_val = old_r_val, new_r_val
        self.reason = reason
        self.old_graph, self.new_graph = old_graph, new_graph

    def __str__(self) -> str:
        return (f"BadOptimization: rewrite {self.reason!s} replaced {self.old_r} by "
                f"{self.new_r}, but their values differ:\n  old: {self.old_r_val!r:.200}\n"
                f"  new: {self.new_r_val!r:.200}{self.old_graph}{self.new_graph}")
