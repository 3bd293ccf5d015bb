"""Elemwise fusion: connected elementwise nodes become one Elemwise of a Composite.

Clusters grow from a root toward the inputs; a node joins when every use of
its output is inside the cluster, or comes later than the root in
topological order (or is a graph output), and its output has the root's
broadcast pattern. An output used outside becomes an extra output of a
multi-output Composite. The cluster stays convex: a later node cannot be an
ancestor of the root, hence of any member, so no path leaves the cluster
and comes back. Each fused node takes at most ``max_inputs`` non-constant
inputs; scalar constants are inlined into the Composite. Linear in the
graph: each node is absorbed once and each edge looked at once.

Sibling clusters (``exp(x)*2`` and ``exp(x)+1`` both consumed before the
later root) and outputs read before the root are merged afterwards by
:mod:`opgraph_rewrites.fusion_merge`, which keeps ancestor bitsets (quadratic
memory), on graphs small enough for that.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable, io_toposort
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats, is_output_client
from opgraph.scalar.type import ScalarType
from opgraph.tensor.elemwise import Elemwise
from opgraph_rewrites.fusion_merge import merge_elemwise_neighbours, replace_by_composite

__all__ = ["MAX_INPUTS", "FusionOptimizer"]

MAX_INPUTS = 32


def _fusible(node: Any) -> bool:
    if isinstance(node, str) or node is None or not isinstance(node.op, Elemwise):
        return False
    op = node.op
    return len(node.outputs) == 1 and not op.inplace_pattern


def _inlinable_constant(v: Variable) -> bool:
    return isinstance(v, Constant) and np.asarray(v.data).size == 1


class FusionStats(RewriterStats):
    """The stats of a fusion pass; unpacks as PyTensor's fusion result
    ``(rewriter, n_fused, n_replaced_nodes, n_inconsistent, seconds)``."""

    __slots__ = ("fused", "replaced", "rewriter")

    def __iter__(self) -> Any:
        return iter((self.rewriter, self.fused, self.replaced, 0, self.total_time))


class FusionOptimizer(GraphRewriter):
    """Fuses elementwise subgraphs into Composite Elemwise nodes (``max_inputs`` bound)."""

    name = "elemwise_fusion"

    def __init__(self, max_inputs: int = MAX_INPUTS) -> None:
        if max_inputs < 2:
            raise ValueError(f"max_inputs must be at least 2, got {max_inputs}")
        self.max_inputs = max_inputs

    def apply(self, fgraph: Any) -> FusionStats:
        stats = FusionStats()
        t0 = time.perf_counter()
        order = io_toposort(fgraph.inputs, fgraph.outputs)
        position = {node: k for k, node in enumerate(order)}
        done: set[Apply] = set()
        fused = replaced = 0
        for root in reversed(order):
            if root in done or root not in fgraph.apply_nodes or not _fusible(root):
                continue
            cluster = self._grow(fgraph, root, position)
            done.update(cluster)
            if len(cluster) < 2:
                continue
            if self._replace(fgraph, root, cluster):
                fused += 1
                replaced += len(cluster)
        merged = merge_elemwise_neighbours(fgraph, self.max_inputs)
        fused += merged
        replaced += merged
        stats.rewriter, stats.fused, stats.replaced = self, fused, replaced
        stats.applied[self.name] = fused
        stats.total_time = stats.time[self.name] = time.perf_counter() - t0
        stats.calls[self.name] = 1
        return stats

    def _grow(self, fgraph: Any, root: Apply, position: dict[Apply, int]) -> list[Apply]:
        bcast = root.outputs[0].type.broadcastable
        clients = fgraph.clients
        root_pos = position[root]

        def later(client: Any) -> bool:
            return is_output_client(client) or position.get(client, -1) > root_pos

        in_cluster: set[Apply] = {root}
        cluster = [root]
        uses: dict[Variable, int] = {}
        external: set[Variable] = {i for i in root.inputs if not _inlinable_constant(i)}
        stack = list(root.inputs)
        while stack:
            v = stack.pop()
            n = uses[v] = uses.get(v, 0) + 1
            owner = v.owner
            if owner is None or owner in in_cluster or not _fusible(owner):
                continue
            cl = clients.get(v, ())
            if n != len(cl) - sum(1 for c in cl if later(c[0])):
                continue
            if v.type.broadcastable != bcast:
                continue
            grown = (external - {v}) | {i for i in owner.inputs if not _inlinable_constant(i)}
            if len(grown) > self.max_inputs:
                continue
            external = grown
            in_cluster.add(owner)
            cluster.append(owner)
            stack.extend(owner.inputs)
        return cluster

    def _replace(self, fgraph: Any, root: Apply, cluster: list[Apply]) -> bool:
        members = set(cluster)
        order = [n for n in io_toposort_nodes(cluster, members)]
        smap: dict[Variable, Variable] = {}
        outer_inputs: list[Variable] = []
        inner_inputs: list[Variable] = []
        for node in order:
            for i in node.inputs:
                if i in smap:
                    continue
                if i.owner in members:
                    continue
                if _inlinable_constant(i):
                    value = np.asarray(i.data).reshape(())
                    smap[i] = ScalarType(i.type.dtype).make_constant(value)
                else:
                    s = ScalarType(i.type.dtype)()
                    smap[i] = s
                    outer_inputs.append(i)
                    inner_inputs.append(s)
            s_node = node.op.scalar_op.make_node(*[smap[i] for i in node.inputs])
            smap[node.outputs[0]] = s_node.outputs[0]
        if not outer_inputs:
            return False
        out = root.outputs[0]
        # outputs of members still read outside the cluster (later nodes, graph outputs)
        clients = fgraph.clients
        used_outside = [
            n.outputs[0] for n in order if n is not root and any(
                is_output_client(c) or c not in members for c, _k in clients.get(n.outputs[0], ())
            )
        ]
        olds = [out, *used_outside]
        return replace_by_composite(fgraph, outer_inputs, inner_inputs, smap, olds, self.name)


def io_toposort_nodes(nodes: list[Apply], members: set[Apply]) -> list[Apply]:
    """``nodes`` ordered so each comes after the members it reads (iterative DFS)."""
    order: list[Apply] = []
    state: dict[Apply, int] = {}
    for start in nodes:
        if start in state:
            continue
        stack = [(start, 0)]
        state[start] = 1
        while stack:
            node, k = stack.pop()
            ins = node.inputs
            while k < len(ins):
                owner = ins[k].owner
                k += 1
                if owner in members and owner not in state:
                    stack.append((node, k))
                    state[owner] = 1
                    stack.append((owner, 0))
                    break
            else:
                order.append(node)
    return order
