"""Common-subexpression elimination: equal constants and equal Apply nodes become one.

Two nodes are equal when their Ops are equal and their inputs are the same
Variables; processing in topological order makes that check transitive, so a
single pass is linear in the graph. :class:`MergeFeature` keeps the table
up to date as other rewrites change the graph, so later merges only look at
what changed.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from opgraph.graph.basic import Apply, Constant, Variable, io_toposort
from opgraph.graph.features import Feature
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats
from opgraph.graph.utils import InconsistencyError

__all__ = ["MergeFeature", "MergeOptimizer", "find_feature", "is_same_graph_with_merge",
           "merge_optimizer"]

_FeatureBase = Feature


def find_feature(fgraph: Any, cls: type) -> Any:
    """The attached Feature of class ``cls``, or None."""
    feats = getattr(fgraph, "_features", None)
    if feats is None:
        feats = getattr(fgraph, "features", ())
    for f in feats:
        if isinstance(f, cls):
            return f
    return None


class _OpInterner:
    """Maps each Op object to one canonical equal Op, hashing each object once."""

    def __init__(self) -> None:
        self.by_id: dict[int, tuple[Any, int]] = {}
        self.by_value: dict[Any, int] = {}

    def key(self, op: Any) -> int | None:
        hit = self.by_id.get(id(op))
        if hit is not None and hit[0] is op:
            return hit[1]
        try:
            canon = self.by_value.setdefault(op, len(self.by_value))
        except TypeError:  # unhashable Op: never merged
            return None
        self.by_id[id(op)] = (op, canon)
        return canon


def _node_key(node: Apply, interner: _OpInterner) -> Any:
    op = node.op
    if getattr(op, "destroy_map", None):
        return None
    k = interner.key(op)
    if k is None:
        return None
    return (k, *map(id, node.inputs))


class MergeFeature(_FeatureBase):  # type: ignore[misc,valid-type]
    """Tracks candidate merges: nodes or constants equal to one already in the graph."""

    def __init__(self) -> None:
        self.key_node: dict[Any, Apply] = {}
        self.node_key: dict[Apply, Any] = {}
        self.const_sig: dict[Any, Constant] = {}
        self.pending: deque = deque()
        self.fgraph: Any = None
        self.interner = _OpInterner()

    def on_attach(self, fgraph: Any) -> None:
        if self.fgraph is not None and self.fgraph is not fgraph:
            raise ValueError("a MergeFeature is attached to one FunctionGraph only")
        self.fgraph = fgraph
        for node in io_toposort(fgraph.inputs, fgraph.outputs):
            self._register(node)

    def on_detach(self, fgraph: Any) -> None:
        self.key_node.clear()
        self.node_key.clear()
        self.const_sig.clear()
        self.pending.clear()
        self.fgraph = None

    def clone(self) -> MergeFeature:
        return MergeFeature()

    def _register(self, node: Apply) -> None:
        for inp in node.inputs:
            if isinstance(inp, Constant):
                try:
                    sig = inp.signature()
                    canonical = self.const_sig.setdefault(sig, inp)
                except TypeError:
                    continue
                if canonical is not inp:
                    self.pending.append((inp, canonical))
        key = _node_key(node, self.interner)
        if key is None:
            return
        existing = self.key_node.get(key)
        if existing is None or existing not in self.fgraph.apply_nodes:
            self.key_node[key] = node
            self.node_key[node] = key
        elif existing is not node:
            self.pending.append((node, existing))

    def _forget(self, node: Apply) -> None:
        key = self.node_key.pop(node, None)
        if key is not None and self.key_node.get(key) is node:
            del self.key_node[key]

    def on_import(self, fgraph: Any, node: Apply, reason: Any = None) -> None:
        self._register(node)

    def on_prune(self, fgraph: Any, node: Apply, reason: Any = None) -> None:
        self._forget(node)

    def on_change_input(self, fgraph: Any, node: Any, i: int, var: Any, new_var: Any,
                        reason: Any = None) -> None:
        if isinstance(node, str) or not isinstance(node, Apply):
            return
        if node not in fgraph.apply_nodes:
            return
        self._forget(node)
        self._register(node)


def _constant_in_graph(fgraph: Any, c: Constant) -> bool:
    return bool(fgraph.clients.get(c))


class MergeOptimizer(GraphRewriter):
    """Merges equal constants and equal Apply nodes (linear time, incremental)."""

    name = "merge"

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        if find_feature(fgraph, MergeFeature) is None:
            fgraph.attach_feature(MergeFeature())

    def apply(self, fgraph: FunctionGraph) -> RewriterStats:
        stats = RewriterStats()
        t0 = time.perf_counter()
        feat = find_feature(fgraph, MergeFeature)
        if feat is None:
            feat = MergeFeature()
            fgraph.attach_feature(feat)
        replace = getattr(fgraph, "replace_all_validate", None) or fgraph.replace_all
        pending = feat.pending
        merged_nodes = merged_consts = 0
        apply_nodes = fgraph.apply_nodes
        while pending:
            dup, keep = pending.popleft()
            if isinstance(dup, Constant):
                if dup.type != keep.type or not _constant_in_graph(fgraph, dup):
                    continue
                if not _constant_in_graph(fgraph, keep):
                    feat.const_sig[dup.signature()] = dup
                    continue
                try:
                    replace([(dup, keep)], reason="merge")
                    merged_consts += 1
                except InconsistencyError:
                    pass
                continue
            if dup not in apply_nodes:
                continue
            if keep not in apply_nodes:
                feat._register(dup)
                continue
            if dup.op != keep.op or any(a is not b for a, b in zip(dup.inputs, keep.inputs)):
                feat._register(dup)
                continue
            direction = _merge_direction(dup, keep)
            if direction is None:
                continue
            if direction == "swap":  # keep the node with the more specific types
                dup, keep = keep, dup
                feat._forget(dup)
                feat.key_node[_node_key(keep, feat.interner)] = keep
                feat.node_key[keep] = _node_key(keep, feat.interner)
            pairs = [(o, n) for o, n in zip(dup.outputs, keep.outputs) if fgraph.clients.get(o)]
            try:
                replace(pairs, reason="merge")
                merged_nodes += 1
            except InconsistencyError:
                continue
        stats.applied["merge:nodes"] = merged_nodes
        stats.applied["merge:constants"] = merged_consts
        stats.total_time = time.perf_counter() - t0
        stats.time["merge"] = stats.total_time
        stats.calls["merge"] = 1
        return stats


def _merge_direction(dup: Apply, keep: Apply) -> str | None:
    """"keep" when ``keep``'s outputs may stand for ``dup``'s, "swap" for the converse.

    Equal nodes may differ in static types (one input was found equal to a
    more specific one); the survivor is the one with the more specific types.
    None when neither can stand for the other.
    """
    forward = backward = True
    for o, n in zip(dup.outputs, keep.outputs):
        if o.type == n.type:
            continue
        forward = forward and bool(o.type.is_super(n.type))
        backward = backward and bool(n.type.is_super(o.type))
    if forward:
        return "keep"
    if backward:
        return "swap"
    return None


merge_optimizer = MergeOptimizer()
"""A ready MergeOptimizer: ``merge_optimizer.rewrite(fgraph)`` merges equal computations."""


def is_same_graph_with_merge(var1: Variable, var2: Variable, givens: Any = None) -> bool:
    """Whether ``var1`` and ``var2`` become one node after merging equal computations
    (``givens``, pairs or a mapping, substituted first); the graphs are not changed."""
    givens = dict(givens or {})
    outs = [var1, var2, *givens.keys(), *givens.values()]
    fgraph = FunctionGraph(outputs=outs, clone=True)
    a, b, *rest = fgraph.outputs
    half = len(rest) // 2
    new_givens = dict(zip(rest[:half], rest[half:], strict=True))
    for old, new in new_givens.items():
        if old in fgraph.variables:
            fgraph.replace(old, new, import_missing=True)
    MergeOptimizer().rewrite(fgraph)
    a, b = fgraph.outputs[:2]
    a, b = new_givens.get(a, a), new_givens.get(b, b)
    if a.owner is None and b.owner is None:
        return a is b
    return a.owner is b.owner
