"""Drivers that walk a graph and offer each node to the node rewriters tracking its Op.

Both drivers keep a work queue fed by a small Feature: nodes imported by a
rewrite are queued (so the result of one rewrite is rewritten in turn) and
pruned nodes are skipped. Nothing here recurses, so graph depth is unbounded.
"""

from __future__ import annotations

import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from opgraph.graph.basic import io_toposort
from opgraph.graph.rewriting.basic import (
    DRIVERS,
    GraphRewriter,
    NodeProcessingGraphRewriter,
    NodeRewriter,
    OpToRewriterTracker,
    RewriterStats,
    SequentialNodeRewriter,
    apply_node_rewrite,
    flatten_rewriters,
    is_output_client,
    on_rewrite_error,
    rewriter_name,
)
from opgraph.graph.utils import type_name

if TYPE_CHECKING:
    from opgraph.graph.fg import FunctionGraph

from opgraph.graph.features import Feature

__all__ = [
    "EquilibriumGraphRewriter",
    "WalkingGraphRewriter",
    "dfs_rewriter",
    "in2out",
    "neighbourhood",
    "order_subset",
    "out2in",
    "walking_rewriter",
]

_FeatureBase = Feature


class _QueueFeeder(_FeatureBase):  # type: ignore[misc,valid-type]
    """Queues nodes a rewrite imports (and, optionally, nodes whose inputs change)."""

    def __init__(self, push: Callable[[Any], None] | None, requeue_changed: bool) -> None:
        self.push = push
        self.requeue_changed = requeue_changed
        self.events = 0
        #: nodes imported or re-wired since the last :meth:`take_touched` (insertion ordered)
        self.touched: dict[Any, None] = {}

    def take_touched(self) -> dict[Any, None]:
        touched, self.touched = self.touched, {}
        return touched

    def on_attach(self, fgraph: Any) -> None:
        pass

    def on_detach(self, fgraph: Any) -> None:
        pass

    def on_import(self, fgraph: Any, node: Any, reason: Any = None) -> None:
        self.events += 1
        self.touched[node] = None
        if self.push is not None:
            self.push(node)

    def on_prune(self, fgraph: Any, node: Any, reason: Any = None) -> None:
        self.events += 1

    def on_change_input(self, fgraph: Any, node: Any, i: int, var: Any, new_var: Any,
                        reason: Any = None) -> None:
        self.events += 1
        if isinstance(node, str):
            return
        self.touched[node] = None
        if self.requeue_changed and self.push is not None:
            self.push(node)

    def clone(self) -> _QueueFeeder:
        return _QueueFeeder(None, False)


def _ordered_nodes(fgraph: FunctionGraph) -> list[Any]:
    return io_toposort(fgraph.inputs, fgraph.outputs)


def neighbourhood(
    fgraph: FunctionGraph, touched: Iterable[Any],
    group_of: Callable[[Any], Any] | None = None,
) -> dict[Any, None]:
    """The nodes whose rewrites may have changed because ``touched`` nodes changed.

    A node rewriter reads its node, the producers of its inputs and the users
    of its outputs; rewriters that absorb whole single-client chains (the
    add/mul canonizers) are rooted at the chain's last node. So the result is
    each touched node, its input producers, its clients and theirs, and the
    clients further down single-client links while ``group_of`` (e.g. the
    rewriters an Op meets) stays the same along the link (no ``group_of``: to
    the end of the chain). Linear: each node is walked down from at most once.
    """
    apply_nodes = fgraph.apply_nodes
    clients = fgraph.clients
    dirty: dict[Any, None] = {}
    walked: set[Any] = set()
    for node in touched:
        if node not in apply_nodes:
            continue
        dirty[node] = None
        for inp in node.inputs:
            owner = inp.owner
            if owner is not None and owner in apply_nodes:
                dirty[owner] = None
        stack = [(node, 0)]
        while stack:
            m, depth = stack.pop()
            if m in walked:
                continue
            walked.add(m)
            for out in m.outputs:
                users = clients.get(out, ())
                for c, _k in users:
                    if is_output_client(c):
                        continue
                    dirty[c] = None
                    if len(users) == 1 and (
                        depth == 0 or group_of is None or group_of(c.op) == group_of(m.op)
                    ):
                        stack.append((c, depth + 1))
    return dirty


def order_subset(nodes: Iterable[Any]) -> list[Any]:
    """``nodes`` in an order where each comes after the others it reads (iterative DFS,
    linear in the subset; nodes outside it are not visited)."""
    members = nodes if isinstance(nodes, dict | set) else dict.fromkeys(nodes)
    order: list[Any] = []
    state: set[Any] = set()
    for start in members:
        if start in state:
            continue
        state.add(start)
        stack = [(start, 0)]
        while stack:
            node, k = stack.pop()
            ins = node.inputs
            while k < len(ins):
                owner = ins[k].owner
                k += 1
                if owner is not None and owner in members and owner not in state:
                    stack.append((node, k))
                    state.add(owner)
                    stack.append((owner, 0))
                    break
            else:
                order.append(node)
    return order


def _node_rewriters_of(rewriter: NodeRewriter) -> list[NodeRewriter]:
    if isinstance(rewriter, SequentialNodeRewriter) and not rewriter.apply_all_rewrites:
        out: list[NodeRewriter] = []
        for r in rewriter.rewriters:
            out.extend(_node_rewriters_of(r))
        return out
    return [rewriter]


class WalkingGraphRewriter(NodeProcessingGraphRewriter):
    """Applies a node rewriter to every node once, in topological order or its reverse.

    Nodes a rewrite creates are queued too, unless ``ignore_newtrees``.
    """

    def __init__(
        self,
        node_rewriter: NodeRewriter,
        order: str = "in_to_out",
        ignore_newtrees: bool = False,
        failure_callback: Callable[..., None] | None = on_rewrite_error,
        name: str | None = None,
    ) -> None:
        if order not in ("in_to_out", "out_to_in"):
            raise ValueError(f"order must be 'in_to_out' or 'out_to_in', got {order!r}")
        if not isinstance(node_rewriter, NodeRewriter):
            raise TypeError(
                f"WalkingGraphRewriter expects a NodeRewriter, got {type_name(node_rewriter)}"
            )
        self.node_rewriter = node_rewriter
        self.order = order
        self.ignore_newtrees = ignore_newtrees
        self.failure_callback = failure_callback
        self.name = name or rewriter_name(node_rewriter)
        self.tracker = OpToRewriterTracker()
        for r in _node_rewriters_of(node_rewriter):
            self.tracker.add(r)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        self.node_rewriter.add_requirements(fgraph)

    def apply(
        self, fgraph: FunctionGraph, start_from: Sequence[Any] | None = None
    ) -> RewriterStats:
        stats = RewriterStats()
        t_start = time.perf_counter()
        outputs = list(start_from) if start_from is not None else fgraph.outputs
        queue: deque = deque(io_toposort(fgraph.inputs, outputs))
        in_to_out = self.order == "in_to_out"
        feeder = _QueueFeeder(None if self.ignore_newtrees else queue.append, False)
        fgraph.attach_feature(feeder)
        apply_nodes = fgraph.apply_nodes
        get = self.tracker.get_trackers
        fail = self.failure_callback
        try:
            pop = queue.popleft if in_to_out else queue.pop
            while queue:
                node = pop()
                if node not in apply_nodes:
                    continue
                for r in get(node.op):
                    if apply_node_rewrite(fgraph, node, r, stats, fail):
                        break
        finally:
            fgraph.remove_feature(feeder)
        stats.total_time = time.perf_counter() - t_start
        return stats

    def print_summary(self, stream: Any = None, level: int = 0, depth: int = -1) -> None:
        super().print_summary(stream, level, depth)
        if depth != 0:
            self.node_rewriter.print_summary(stream, level + 1, depth - 1)


def walking_rewriter(order: str, *rewriters: NodeRewriter, name: str | None = None,
                     **kwargs: Any) -> WalkingGraphRewriter:
    flat = flatten_rewriters(rewriters)
    if not flat:
        raise ValueError("a walking rewriter needs at least one node rewriter")
    node_rw = flat[0] if len(flat) == 1 else SequentialNodeRewriter(*flat, name=name)
    return WalkingGraphRewriter(node_rw, order=order, name=name, **kwargs)


def in2out(
    *rewriters: NodeRewriter, name: str | None = None, **kwargs: Any
) -> WalkingGraphRewriter:
    """Walk from inputs to outputs applying ``rewriters`` (PyTensor's ``in2out``)."""
    return walking_rewriter("in_to_out", *rewriters, name=name, **kwargs)


def out2in(
    *rewriters: NodeRewriter, name: str | None = None, **kwargs: Any
) -> WalkingGraphRewriter:
    """Walk from outputs to inputs applying ``rewriters``."""
    return walking_rewriter("out_to_in", *rewriters, name=name, **kwargs)


dfs_rewriter = in2out


class EquilibriumGraphRewriter(NodeProcessingGraphRewriter):
    """Applies node and graph rewriters until none of them changes the graph.

    Each node meets only the node rewriters tracking its Op (dispatch table),
    and nodes created or re-wired by a rewrite are queued at once. A rewriter
    applied more than ``max_use_ratio`` times the number of nodes is taken to
    be cycling with another: the driver warns and stops, leaving a valid graph.

    ``final_rewriters`` (graph rewriters) run at the end of every round,
    e.g. merge; a round that changes nothing ends the loop.
    """

    def __init__(
        self,
        rewriters: Sequence[NodeRewriter | GraphRewriter],
        max_use_ratio: float | None = None,
        final_rewriters: Sequence[GraphRewriter] = (),
        cleanup_rewriters: Sequence[GraphRewriter] = (),
        tracks_on_change_inputs: bool = True,
        failure_callback: Callable[..., None] | None = on_rewrite_error,
        name: str | None = None,
        max_rounds: int = 1000,
    ) -> None:
        self.node_rewriters: list[NodeRewriter] = []
        self.global_rewriters: list[GraphRewriter] = []
        for r in flatten_rewriters(rewriters):
            if isinstance(r, NodeRewriter):
                self.node_rewriters.extend(_node_rewriters_of(r))
            elif isinstance(r, GraphRewriter):
                self.global_rewriters.append(r)
            else:
                raise TypeError(
                    f"EquilibriumGraphRewriter: expected NodeRewriter or GraphRewriter, "
                    f"got {type_name(r)}"
                )
        self.final_rewriters = list(final_rewriters)
        self.cleanup_rewriters = list(cleanup_rewriters)
        self.max_use_ratio = 8.0 if max_use_ratio is None else float(max_use_ratio)
        if self.max_use_ratio <= 0:
            raise ValueError(f"max_use_ratio must be positive, got {max_use_ratio!r}")
        self.tracks_on_change_inputs = tracks_on_change_inputs
        self.failure_callback = failure_callback
        self.name = name
        self.max_rounds = max_rounds
        self.tracker = OpToRewriterTracker()
        for r in self.node_rewriters:
            self.tracker.add(r)
        self.last_stats: RewriterStats | None = None
        self.stopped_early = False

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        for r in (*self.node_rewriters, *self.global_rewriters, *self.final_rewriters,
                  *self.cleanup_rewriters):
            r.add_requirements(fgraph)

    def _run_graph_rewriters(self, fgraph: FunctionGraph, rewriters: Sequence[GraphRewriter],
                             stats: RewriterStats, feeder: _QueueFeeder) -> bool:
        changed = False
        for g in rewriters:
            before = feeder.events
            t0 = time.perf_counter()
            try:
                g.apply(fgraph)
            except Exception as exc:
                if self.failure_callback is None:
                    raise
                self.failure_callback(exc, g)
            name = rewriter_name(g)
            stats.time[name] += time.perf_counter() - t0
            stats.calls[name] += 1
            if feeder.events != before:
                stats.applied[name] += 1
                changed = True
        return changed

    def apply(self, fgraph: FunctionGraph) -> RewriterStats:
        stats = RewriterStats()
        t_start = time.perf_counter()
        self.stopped_early = False
        queue: deque = deque()
        feeder = _QueueFeeder(queue.append, self.tracks_on_change_inputs)
        fgraph.attach_feature(feeder)
        uses: dict[int, int] = {}
        apply_nodes = fgraph.apply_nodes
        get = self.tracker.get_trackers
        fail = self.failure_callback
        try:
            for _round in range(self.max_rounds):
                # the first round visits every node; later rounds only the neighbourhood
                # of what the previous round changed: elsewhere every rewrite already
                # declined and would decline again
                touched = feeder.take_touched()
                changed = self._run_graph_rewriters(fgraph, self.global_rewriters, stats, feeder)
                max_uses = self.max_use_ratio * max(len(apply_nodes), 1)
                queue.clear()
                if _round == 0:
                    feeder.take_touched()
                    queue.extend(_ordered_nodes(fgraph))
                else:
                    touched.update(feeder.take_touched())
                    queue.extend(order_subset(neighbourhood(fgraph, touched, get)))
                while queue:
                    node = queue.popleft()
                    if node not in apply_nodes:
                        continue
                    for r in get(node.op):
                        if apply_node_rewrite(fgraph, node, r, stats, fail):
                            changed = True
                            n = uses[id(r)] = uses.get(id(r), 0) + 1
                            if n > max_uses:
                                self._stop(r, max_uses)
                                return stats
                            break
                if self._run_graph_rewriters(fgraph, self.final_rewriters, stats, feeder):
                    changed = True
                if not changed:
                    break
            else:
                self._stop(None, self.max_rounds)
            self._run_graph_rewriters(fgraph, self.cleanup_rewriters, stats, feeder)
        finally:
            fgraph.remove_feature(feeder)
            stats.total_time = time.perf_counter() - t_start
            self.last_stats = stats
        return stats

    def _stop(self, rewriter: Any, limit: float) -> None:
        self.stopped_early = True
        what = (f"rewrite {rewriter_name(rewriter)} was applied more than {int(limit)} times"
                if rewriter is not None else f"no fixed point after {int(limit)} rounds")
        warnings.warn(
            f"{rewriter_name(self)}: {what}; rewrites are probably undoing each other. "
            "Stopping with a valid, partially rewritten graph (raise max_use_ratio if the "
            "graph is just very large).",
            RuntimeWarning,
            stacklevel=3,
        )

    def print_summary(self, stream: Any = None, level: int = 0, depth: int = -1) -> None:
        super().print_summary(stream, level, depth)
        if depth != 0:
            for r in (*self.global_rewriters, *self.node_rewriters, *self.final_rewriters):
                r.print_summary(stream, level + 1, depth - 1)

# SequentialGraphRewriter (rewriting/basic.py) wraps node rewriters in this driver.
DRIVERS.register(WalkingGraphRewriter=WalkingGraphRewriter)
