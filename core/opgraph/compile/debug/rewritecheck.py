"""DebugMode's checks of rewrites: replaced values must match, rewriting must be stable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from opgraph.compile.debug.checks import copy_value, values_match
from opgraph.compile.debug.errors import BadOptimization, StochasticOrder
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.features import Feature

__all__ = ["ReplacementTracker", "check_replacements", "compare_rewrites", "graph_signature"]


class ReplacementTracker(Feature):
    """Records every replacement a rewrite makes, and which rewrite imported each node."""

    def __init__(self) -> None:
        self.replacements: list[tuple[Variable, Variable, Any]] = []
        self._seen: set[tuple[int, int]] = set()
        self.node_reasons: dict[Apply, Any] = {}

    def on_import(self, fgraph: Any, node: Apply, reason: Any) -> None:
        if reason not in (None, "init"):
            self.node_reasons.setdefault(node, reason)

    def on_change_input(self, fgraph: Any, node: Any, i: int, var: Variable,
                        new_var: Variable, reason: Any = None) -> None:
        key = (id(var), id(new_var))
        if var is new_var or key in self._seen:
            return
        self._seen.add(key)
        self.replacements.append((var, new_var, reason))

    def clone(self) -> ReplacementTracker:
        return ReplacementTracker()

    def annotate(self, exc: BaseException, node: Apply) -> None:
        """Add to ``exc`` a note naming the rewrite that introduced ``node``, if any."""
        reason = self.node_reasons.get(node)
        if reason is not None:
            exc.add_note(f"DebugMode: the failing node {node.op} was introduced by the "
                         f"rewrite {reason!s}")


class _Unknown(Exception):
    """A replaced variable depends on something whose value is not available."""


def _evaluate(var: Variable, memo: dict[Variable, Any]) -> Any:
    if var in memo:
        return memo[var]
    if isinstance(var, Constant):
        return var.data
    node = var.owner
    if node is None:
        raise _Unknown(var)
    inputs = [copy_value(_evaluate(v, memo)) for v in node.inputs]
    cells: list[list[Any]] = [[None] for _ in node.outputs]
    node.op.perform(node, inputs, cells)
    for out, cell in zip(node.outputs, cells):
        memo[out] = cell[0]
    return memo[var]


def check_replacements(tracker: ReplacementTracker, storage_map: dict[Variable, list]) -> None:
    """BadOptimization for the first replacement whose old and new values differ."""
    memo = {v: cell[0] for v, cell in storage_map.items() if cell[0] is not None}
    for old, new, reason in tracker.replacements:
        try:
            old_val = _evaluate(old, memo)
            new_val = _evaluate(new, memo)
        except _Unknown:
            continue
        except Exception as exc:  # the old graph cannot be evaluated: say which rewrite
            exc.add_note(f"DebugMode: while recomputing {old}, replaced by rewrite {reason!s}")
            raise
        if getattr(old.type, "ndim", None) is not None and isinstance(new_val, np.ndarray):
            if np.shape(old_val) != np.shape(new_val):
                raise BadOptimization(old, new, old_val, new_val, reason)
        if not values_match(old, old_val, new_val):
            raise BadOptimization(old, new, old_val, new_val, reason)


def _const_key(var: Constant) -> Any:
    data = var.data
    if isinstance(data, np.ndarray | np.generic):
        arr = np.asarray(data)
        return (arr.dtype.str, arr.shape, arr.tobytes())
    return repr(data)


def graph_signature(fgraph: Any) -> tuple[Any, ...]:
    """A comparable description of a graph: ops (by value) and how nodes connect."""
    ids: dict[Variable, Any] = {v: ("in", k) for k, v in enumerate(fgraph.inputs)}

    def ref(v: Variable) -> Any:
        if v in ids:
            return ids[v]
        if isinstance(v, Constant):
            return ("const", str(v.type), _const_key(v))
        return ("free", str(v.type))

    nodes = []
    for n, node in enumerate(fgraph.toposort()):
        nodes.append((node.op, tuple(ref(v) for v in node.inputs)))
        for j, out in enumerate(node.outputs):
            ids[out] = ("node", n, j)
    return tuple(nodes), tuple(ref(o) for o in fgraph.outputs)


def compare_rewrites(fresh_graph: Callable[[], Any], rewrite: Callable[[Any], None],
                     fgraph: Any, patience: int) -> None:
    """Rewrite ``patience - 1`` more fresh copies; StochasticOrder if any differs."""
    reference = graph_signature(fgraph)
    for attempt in range(1, patience):
        other = fresh_graph()
        rewrite(other)
        if graph_signature(other) != reference:
            raise StochasticOrder(
                f"DebugMode: rewriting the same graph gave a different result on attempt "
                f"{attempt + 1} of {patience}: some rewrite is not deterministic.\n"
                f"  first:  {[str(n) for n in fgraph.toposort()]}\n"
                f"  now:    {[str(n) for n in other.toposort()]}"
            )
