"""DestroyHandler: keeps in-place operations (``destroy_map``) safe.

An Op that overwrites an input (``destroy_map = {out: [in]}``) is only correct
if nothing else still needs the old value. The handler enforces, for every
destroyer node:

- the destroyed value's root (the variable it views, following ``view_map``
  edges up to a non-view) is not a Constant, not ``tag.indestructible`` and
  not a *protected* graph input;
- each root is destroyed by one node at most;
- no other input of the destroyer aliases the destroyed value (unless the Op
  lists the pair in ``destroyhandler_tolerate_same`` / ``_tolerate_aliased``);
- no graph output is the destroyed value or a view of it;
- every other client of the root and of its views can run before the
  destroyer: ``orderings`` says so, and ``validate`` raises InconsistencyError
  when that is impossible (a client needs the destroyer's result).

Protection design: a handler made with ``mutable_inputs=[...]`` (what
``function()`` does, from ``In(mutable=True)``) or ``protect_inputs=True``
protects every FunctionGraph input not declared mutable (also through
``handler.mark_mutable(var)``). A plain ``DestroyHandler()`` lets graph inputs
be destroyed, as PyTensor's does (there, compiled functions protect their
inputs with a separate Feature). Views and
clients are read from ``fgraph.clients`` on demand, so the only state kept
between events is the set of destroyer nodes and a "changed" flag: import,
prune and input changes cost O(1) here, and ``validate`` after no change is free.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from opgraph.config import config
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.features import AlreadyThere, Bookkeeper
from opgraph.graph.utils import InconsistencyError

if TYPE_CHECKING:
    from opgraph.graph.fg import FunctionGraph

__all__ = ["DestroyHandler", "ensure_destroy_handler"]

_OUTPUT = "output"


class _Analysis:
    """What the current graph's destroyers imply: orderings or the first problem."""

    __slots__ = ("error", "prereqs", "root_destroyer")

    def __init__(self) -> None:
        self.error: InconsistencyError | None = None
        self.prereqs: dict[Apply, list[Apply]] = {}
        self.root_destroyer: dict[Variable, Apply] = {}


class DestroyHandler(Bookkeeper):
    """Enforces ``destroy_map`` / ``view_map`` safety; see the module docstring."""

    provides: tuple[str, ...] = ("destroyers", "has_destroyers")

    def __init__(
        self,
        do_imports: bool = True,
        algo: str | None = None,
        mutable_inputs: Iterable[Variable] | None = None,
        protect_inputs: bool | None = None,
    ) -> None:
        self.do_imports = do_imports
        self.algo = config.cycle_detection if algo is None else algo  # as PyTensor: recorded
        self.fgraph: FunctionGraph | None = None
        self.mutable: set[Variable] = set(mutable_inputs or ())
        #: Whether graph inputs not in ``mutable`` may not be destroyed.
        self.protect_inputs = (
            mutable_inputs is not None if protect_inputs is None else bool(protect_inputs)
        )
        self.destroyer_nodes: dict[Apply, None] = {}  # ordered set
        self._analysis: _Analysis | None = None

    # ------------------------------------------------------------------ lifecycle
    def on_attach(self, fgraph: FunctionGraph) -> None:
        if self.fgraph is fgraph:
            raise AlreadyThere("this DestroyHandler is already attached to this graph")
        if hasattr(fgraph, "destroy_handler") or hasattr(fgraph, "destroyers"):
            raise AlreadyThere("a DestroyHandler is already attached (fgraph.destroy_handler)")
        if self.fgraph is not None:
            raise ValueError(
                "a DestroyHandler serves one FunctionGraph; use clone() for another graph"
            )
        self.fgraph = fgraph
        self.destroyer_nodes = {}
        self._analysis = None
        fgraph.destroy_handler = self
        fgraph.destroyers = self.get_destroyers_of
        fgraph.has_destroyers = self.has_destroyers
        for node in fgraph.toposort():
            self.on_import(fgraph, node, "on_attach")

    def on_detach(self, fgraph: FunctionGraph) -> None:
        if fgraph is not self.fgraph:
            raise ValueError("this DestroyHandler is not attached to that FunctionGraph")
        for name in ("destroy_handler", "destroyers", "has_destroyers"):
            if name in fgraph.__dict__:
                delattr(fgraph, name)
        self.fgraph = None
        self.destroyer_nodes = {}
        self._analysis = None

    def clone(self) -> DestroyHandler:
        return type(self)(self.do_imports, self.algo, (), protect_inputs=self.protect_inputs)

    def mark_mutable(self, *variables: Variable) -> None:
        """Allow graph inputs ``variables`` to be destroyed."""
        self.mutable.update(variables)
        self._analysis = None

    def is_protected(self, var: Variable) -> bool:
        """True when ``var`` may never be overwritten in place."""
        if isinstance(var, Constant) or getattr(var.tag, "indestructible", False):
            return True
        fg = self.fgraph
        return (
            self.protect_inputs
            and fg is not None
            and var.owner is None
            and var in fg._inputs_set()
            and var not in self.mutable
        )

    # ------------------------------------------------------------------ events
    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        if getattr(node.op, "destroy_map", None):
            self.destroyer_nodes[node] = None
        self._analysis = None

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        self.destroyer_nodes.pop(node, None)
        self._analysis = None

    def on_change_input(
        self, fgraph: FunctionGraph, node: Apply | str, i: int, r: Variable, new_r: Variable,
        reason: str | None = None,
    ) -> None:
        self._analysis = None

    # ------------------------------------------------------------------ views
    def get_roots(self, var: Variable) -> list[Variable]:
        """The non-view variables whose memory ``var`` may share (itself if not a view)."""
        roots: list[Variable] = []
        seen = {var}
        stack = [var]
        while stack:
            v = stack.pop()
            owner = v.owner
            viewed = owner.op.view_map.get(v.index) if owner is not None else None
            if not viewed:
                roots.append(v)
                continue
            for k in viewed:
                x = owner.inputs[k]
                if x not in seen:
                    seen.add(x)
                    stack.append(x)
        return roots

    def get_impact(self, root: Variable) -> list[Variable]:
        """``root`` and every variable that views it, directly or through other views."""
        clients = self.fgraph.clients
        out = [root]
        seen = {root}
        stack = [root]
        while stack:
            v = stack.pop()
            for c, k in clients.get(v, ()):
                if c == _OUTPUT:
                    continue
                vmap = c.op.view_map
                if not vmap:
                    continue
                for o_idx, ins in vmap.items():
                    if k in ins:
                        o = c.outputs[o_idx]
                        if o not in seen:
                            seen.add(o)
                            out.append(o)
                            stack.append(o)
        return out

    def get_destroyers_of(self, var: Variable) -> list[Apply]:
        """Nodes that overwrite ``var`` or memory it shares."""
        rd = self._analyse().root_destroyer
        out: list[Apply] = []
        for root in self.get_roots(var):
            d = rd.get(root)
            if d is not None and d not in out:
                out.append(d)
        return out

    def has_destroyers(self, protected_list: Iterable[Variable]) -> bool:
        """True if any of ``protected_list`` (or memory it shares) is destroyed."""
        if not self.destroyer_nodes:
            return False
        rd = self._analyse().root_destroyer
        return any(root in rd for v in protected_list for root in self.get_roots(v))

    @property
    def root_destroyer(self) -> dict[Variable, Apply]:
        """``{root variable: the node destroying it}``."""
        return dict(self._analyse().root_destroyer)

    # ------------------------------------------------------------------ checking
    def _analyse(self) -> _Analysis:
        a = self._analysis
        if a is None:
            a = self._analysis = self._build_analysis()
        return a

    def _build_analysis(self) -> _Analysis:
        a = _Analysis()
        fg = self.fgraph
        if fg is None or not self.destroyer_nodes:
            return a
        clients = fg.clients
        try:
            for app in self.destroyer_nodes:
                op = app.op
                tolerate_same = set(map(tuple, getattr(op, "destroyhandler_tolerate_same", ())))
                tolerate_aliased = set(
                    map(tuple, getattr(op, "destroyhandler_tolerate_aliased", ()))
                )
                before: dict[Apply, None] = {}
                destroyed_idx = sorted({k for ins in op.destroy_map.values() for k in ins})
                for k in destroyed_idx:
                    if not 0 <= k < len(app.inputs):
                        raise InconsistencyError(
                            f"{op}.destroy_map names input {k}, but the node has "
                            f"{len(app.inputs)} inputs"
                        )
                    destroyed = app.inputs[k]
                    for root in self.get_roots(destroyed):
                        self._check_root(app, k, destroyed, root, a)
                        impact = self.get_impact(root)
                        impact_set = set(impact)
                        for j, x in enumerate(app.inputs):
                            if j == k or x not in impact_set:
                                continue
                            if (k, j) in tolerate_aliased:
                                continue
                            if x is destroyed and (k, j) in tolerate_same:
                                continue
                            raise InconsistencyError(
                                f"Input aliasing: {app} destroys input {k} ({destroyed}) "
                                f"while input {j} ({x}) shares its memory"
                            )
                        for v in impact:
                            for c, j in clients.get(v, ()):
                                if c == _OUTPUT:
                                    raise InconsistencyError(
                                        f"{app} destroys {destroyed}, but graph output {j} "
                                        f"({v}) is that value or a view of it"
                                    )
                                if c is not app:
                                    before[c] = None
                if before:
                    a.prereqs[app] = list(before)
            self._check_cycles(a.prereqs)
        except InconsistencyError as exc:
            a.error = exc
        return a

    def _check_root(
        self, app: Apply, k: int, destroyed: Variable, root: Variable, a: _Analysis
    ) -> None:
        if isinstance(root, Constant):
            raise InconsistencyError(
                f"{app} destroys input {k} ({destroyed}), which is the constant {root}; "
                "constants are never overwritten"
            )
        if getattr(root.tag, "indestructible", False):
            raise InconsistencyError(
                f"{app} destroys input {k} ({destroyed}), whose root {root} is "
                "marked indestructible"
            )
        if self.is_protected(root):
            raise InconsistencyError(
                f"{app} destroys input {k} ({destroyed}), which is the protected graph input "
                f"{root}; declare it mutable (DestroyHandler.mark_mutable) to allow this"
            )
        other = a.root_destroyer.get(root)
        if other is not None and other is not app:
            raise InconsistencyError(
                f"Multiple destroyers of {root}: {other} and {app}"
            )
        a.root_destroyer[root] = app

    def _check_cycles(self, prereqs: dict[Apply, list[Apply]]) -> None:
        """Raise if the orderings contradict the data flow (a cycle through a destroyer).

        Every cycle uses an ordering edge, hence passes through a destroyer, so a
        depth-first walk downstream of the destroyers finds any of them.
        """
        if not prereqs:
            return
        clients = self.fgraph.clients
        extra: dict[Apply, list[Apply]] = {}  # client -> destroyers that must follow it
        for app, befores in prereqs.items():
            for c in befores:
                extra.setdefault(c, []).append(app)

        def succ(node: Apply) -> list[Apply]:
            out = [c for o in node.outputs for c, _ in clients.get(o, ()) if c != _OUTPUT]
            more = extra.get(node)
            if more:
                out.extend(more)
            return out

        done: set = set()
        on_path: set = set()
        for start in prereqs:
            if start in done:
                continue
            stack = [(start, iter(succ(start)))]
            on_path.add(start)
            while stack:
                node, it = stack[-1]
                for nxt in it:
                    if nxt in on_path:
                        raise InconsistencyError(
                            f"Dependency graph contains cycles: {nxt} must run before a "
                            f"destroyer of a value it needs (via {node})"
                        )
                    if nxt not in done:
                        on_path.add(nxt)
                        stack.append((nxt, iter(succ(nxt))))
                        break
                else:
                    stack.pop()
                    on_path.discard(node)
                    done.add(node)

    def validate(self, fgraph: FunctionGraph) -> bool:
        """Raise InconsistencyError if an in-place operation is unsafe."""
        err = self._analyse().error
        if err is not None:
            raise err
        return True

    def orderings(self, fgraph: FunctionGraph, ordered: bool = True) -> dict[Apply, list[Apply]]:
        """``{destroyer: [every other client of the value it destroys, and of its views]}``."""
        a = self._analyse()
        if a.error is not None:
            raise a.error
        return {k: list(v) for k, v in a.prereqs.items()}


def ensure_destroy_handler(fgraph: Any) -> None:
    """Attach a DestroyHandler to ``fgraph`` unless it has one: what every rewrite that
    introduces views or in-place ops needs before it validates a swap."""
    if not hasattr(fgraph, "destroy_handler"):
        fgraph.attach_feature(DestroyHandler())
