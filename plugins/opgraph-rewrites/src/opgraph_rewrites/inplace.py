"""Inplace Elemwise: an output reuses the buffer of an input nobody needs afterwards.

Validating each candidate with the DestroyHandler costs a pass over every
destroyer in the graph, so doing it per node is quadratic. Two passes keep
it near-linear:

1. candidates whose input memory has this node as its only reader (checked
   locally: the input, the roots it views and every view of those roots)
   are switched inplace together and validated once;
2. the remaining candidates (input still read elsewhere, so the
   DestroyHandler must order the readers first) are offered one by one
   through replace_all_validate, at most ``max_validated`` of them.

The DestroyHandler refuses (InconsistencyError) anything unsafe: a graph
input, a constant, a view of one, or a buffer some node must read later.
Runs last, after fusion, so fused nodes benefit.
"""

from __future__ import annotations

import time
from typing import Any

from opgraph.graph.basic import Apply, Constant, Variable, io_toposort
from opgraph.graph.destroyhandler import ensure_destroy_handler
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats, is_output_client
from opgraph.graph.utils import InconsistencyError
from opgraph.tensor.elemwise import Elemwise

__all__ = ["InplaceElemwiseOptimizer"]


class InplaceElemwiseOptimizer(GraphRewriter):
    """Turns Elemwise nodes inplace where the DestroyHandler allows it."""

    name = "inplace_elemwise"

    def __init__(self, max_validated: int = 256) -> None:
        self.max_validated = max_validated

    def add_requirements(self, fgraph: Any) -> None:
        super().add_requirements(fgraph)
        ensure_destroy_handler(fgraph)

    def apply(self, fgraph: Any) -> RewriterStats:
        t0 = time.perf_counter()
        ensure_destroy_handler(fgraph)
        candidates = self._candidates(fgraph)  # one topological order serves both passes
        count = self._sole_reader_pass(fgraph, candidates)
        count += self._validated_pass(fgraph, candidates)
        return RewriterStats.single_pass(self.name, count, time.perf_counter() - t0)

    # -- helpers --------------------------------------------------------------------
    @staticmethod
    def _candidates(fgraph: Any) -> list[Apply]:
        return [n for n in io_toposort(fgraph.inputs, fgraph.outputs)
                if isinstance(n.op, Elemwise) and not n.op.inplace_pattern
                and len(n.outputs) == 1]

    @staticmethod
    def _inplace_node(node: Apply, i: int) -> Apply | None:
        try:
            return Elemwise(node.op.scalar_op, {0: i}).make_node(*node.inputs)
        except (TypeError, ValueError):
            return None

    @staticmethod
    def _sole_reader(fgraph: Any, node: Apply, inp: Variable) -> bool:
        """No node but ``node`` reads ``inp``'s memory, and that memory is writable."""
        dh = fgraph.destroy_handler
        clients = fgraph.clients
        for root in dh.get_roots(inp):
            if isinstance(root, Constant) or dh.is_protected(root):
                return False
            for v in dh.get_impact(root):
                for c, _k in clients.get(v, ()):
                    if is_output_client(c):
                        return False
                    if c is not node and not (v is not inp and c.op.view_map):
                        return False
        return sum(1 for c, _k in clients.get(inp, ()) if c is node) == 1

    def _sole_reader_pass(self, fgraph: Any, candidates: list[Apply]) -> int:
        chk = fgraph.checkpoint()
        changed = 0
        try:
            for node in candidates:
                if node not in fgraph.apply_nodes:
                    continue
                out = node.outputs[0]
                for i, inp in enumerate(node.inputs):
                    if inp.type != out.type or not self._sole_reader(fgraph, node, inp):
                        continue
                    new_node = self._inplace_node(node, i)
                    if new_node is None:
                        continue
                    fgraph.replace(out, new_node.outputs[0], reason=self.name)
                    changed += 1
                    break
            if changed:
                fgraph.validate()
        except InconsistencyError:
            fgraph.revert(chk)
            return 0
        return changed

    def _validated_pass(self, fgraph: Any, candidates: list[Apply]) -> int:
        dh = fgraph.destroy_handler
        replace = fgraph.replace_all_validate
        budget = self.max_validated
        count = 0
        for node in candidates:  # nodes switched by the first pass left the graph
            if budget <= 0:
                break
            if node not in fgraph.apply_nodes:
                continue
            out = node.outputs[0]
            for i, inp in enumerate(node.inputs):
                if isinstance(inp, Constant) or inp.type != out.type or dh.is_protected(inp):
                    continue
                if inp in node.inputs[:i]:
                    continue
                new_node = self._inplace_node(node, i)
                if new_node is None:
                    continue
                budget -= 1
                try:
                    replace([(out, new_node.outputs[0])], reason=self.name)
                except InconsistencyError:
                    continue
                count += 1
                break
        return count
