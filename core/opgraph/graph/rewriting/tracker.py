"""Which node rewriters an Op meets: the dispatch table of the walkers.

Rewriters tracking an Op instance are found by a dict lookup on the Op,
those tracking a class by the Op's MRO, those tracking an ``OpPattern`` by
class and then by the pattern; the answer is cached per Op.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from opgraph.graph.rewriting.unify import OpPattern

if TYPE_CHECKING:
    from opgraph.graph.rewriting.basic import NodeRewriter

__all__ = ["OpToRewriterTracker"]


class OpToRewriterTracker:
    """Dispatch table: which node rewriters a given Op meets.

    Rewriters tracking an Op instance are found by a dict lookup on the Op
    (Ops hash by their parameters); those tracking a class by the Op's MRO;
    those tracking None see everything. Results are cached per Op.
    """

    def __init__(self) -> None:
        self.by_instance: dict[Any, list[NodeRewriter]] = defaultdict(list)
        self.by_class: dict[type, list[NodeRewriter]] = defaultdict(list)
        self.untracked: list[NodeRewriter] = []
        self.by_pattern: dict[type, list[tuple[OpPattern, NodeRewriter]]] = defaultdict(list)
        self._order: dict[int, int] = {}
        self._cache: dict[Any, tuple[NodeRewriter, ...]] = {}
        self._by_id: dict[int, tuple[Any, tuple[NodeRewriter, ...]]] = {}

    def add(self, rewriter: NodeRewriter) -> None:
        self._order.setdefault(id(rewriter), len(self._order))
        self._cache.clear()
        self._by_id.clear()
        tracks = rewriter.tracks()
        if tracks is None:
            self.untracked.append(rewriter)
            return
        for t in tracks:
            if isinstance(t, type):
                self.by_class[t].append(rewriter)
            elif isinstance(t, OpPattern):
                self.by_pattern[t.op_class].append((t, rewriter))
            else:
                self.by_instance[t].append(rewriter)

    add_tracker = add  # PyTensor's name

    @property
    def tracked_instances(self) -> dict[Any, list[NodeRewriter]]:
        """``{op: rewriters}`` for rewriters tracking Op instances (PyTensor's name)."""
        return dict(self.by_instance)

    @property
    def tracked_types(self) -> dict[type, list[NodeRewriter]]:
        """``{Op class: rewriters}`` (PyTensor's name)."""
        return dict(self.by_class)

    @property
    def untracked_rewrites(self) -> list[NodeRewriter]:
        """Rewriters that see every node (PyTensor's name)."""
        return list(self.untracked)

    def get_trackers(self, op: Any) -> tuple[NodeRewriter, ...]:
        # Ops are usually shared instances: look up by identity first, which
        # avoids hashing the Op's parameters on every node.
        hit = self._by_id.get(id(op))
        if hit is not None and hit[0] is op:
            return hit[1]
        try:
            found = self._cache.get(op)
        except TypeError:  # unhashable op: no caching
            return self._compute(op)
        if found is None:
            found = self._cache[op] = self._compute(op)
        if len(self._by_id) < 100_000:
            self._by_id[id(op)] = (op, found)
        return found

    def _compute(self, op: Any) -> tuple[NodeRewriter, ...]:
        found: list[NodeRewriter] = list(self.untracked)
        try:
            found.extend(self.by_instance.get(op, ()))
        except TypeError:
            pass
        for cls in type(op).__mro__:
            found.extend(self.by_class.get(cls, ()))
            found.extend(r for p, r in self.by_pattern.get(cls, ()) if p.match_op(op))
        seen: set[int] = set()
        unique = []
        for r in sorted(found, key=lambda r: self._order[id(r)]):
            if id(r) not in seen:
                seen.add(id(r))
                unique.append(r)
        return tuple(unique)
