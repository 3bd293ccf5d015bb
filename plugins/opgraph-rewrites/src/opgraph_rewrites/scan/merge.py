"""Merge Scans that loop the same number of steps into one loop.

Two ``for`` Scans with the same ``n_steps`` variable (so, in practice, over the
same sequences), the same options, and neither reading the other's outputs,
become one Scan whose body computes both bodies; its inputs are then
deduplicated by ``scan_remove_unused`` (a sequence read by both is read once).
"""

from __future__ import annotations

import time
from typing import Any

from opgraph.graph.basic import Apply, Constant, Variable, clone, clone_replace, equal_computations
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats
from opgraph.graph.traversal import ancestors, graph_inputs
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs
from opgraph.tensor.shape import static_int
from opgraph_rewrites.scan.body import has_duplicates, make_equiv

__all__ = ["ScanMerge", "has_duplicates", "make_equiv", "merge_args"]

_GROUPS = ("outer_in_seqs", "inner_in_seqs", "outer_in_mit_mot", "inner_in_mit_mot",
           "outer_in_mit_sot", "inner_in_mit_sot", "outer_in_sit_sot", "inner_in_sit_sot",
           "outer_in_shared", "inner_in_shared", "outer_in_nit_sot", "outer_in_non_seqs",
           "inner_in_non_seqs", "inner_out_mit_mot", "outer_out_mit_mot",
           "inner_out_mit_sot", "outer_out_mit_sot", "inner_out_sit_sot", "outer_out_sit_sot",
           "inner_out_nit_sot", "outer_out_nit_sot", "inner_out_shared", "outer_out_shared",
           "mit_mot_in_slices", "mit_mot_out_slices", "mit_sot_in_slices", "sit_sot_in_slices")


def _options(op: Scan) -> tuple:
    return (op.truncate_gradient, op.info.as_while, op.keep_last)


def _outer_condition(node: Apply) -> Variable | None:
    """A while Scan's condition in terms of outer variables, or None if it reads a state."""
    args = ScanArgs.from_node(node)
    outer = dict(zip(args.inner_in_seqs, args.outer_in_seqs))
    outer.update(zip(args.inner_in_non_seqs, args.outer_in_non_seqs))
    cond = args.cond[0]
    if any(v not in outer and not isinstance(v, Constant) for v in graph_inputs([cond])):
        return None
    return clone_replace([cond], outer)[0]


def _mergeable(a: Apply, b: Apply) -> bool:
    """Same number of steps, options and (for while loops) the same stopping condition."""
    if _options(a.op) != _options(b.op) or a.op.info.n_mit_mot or b.op.info.n_mit_mot:
        return False
    if a.inputs[0] is not b.inputs[0] and \
            not equal_computations([a.inputs[0]], [b.inputs[0]]):
        # the step counts of loops over different sequences of one static length
        steps = static_int(a.inputs[0])
        if steps is None or steps != static_int(b.inputs[0]):
            return False
    if a.op.info.as_while:
        ca, cb = _outer_condition(a), _outer_condition(b)
        if ca is None or cb is None or not equal_computations([ca], [cb]):
            return False
    return True


def _depends(node: Apply, on: Apply) -> bool:
    """Whether ``node`` reads (directly or not) an output of ``on``."""
    outs = set(on.outputs)
    return any(v in outs for v in ancestors(node.inputs))


def merge_args(a: Apply, b: Apply) -> ScanArgs:
    """One ScanArgs running the bodies of ``a`` and ``b`` side by side."""
    first = ScanArgs.from_node(a)
    second = ScanArgs.from_node(b)
    # the bodies must not share inner variables: give the second its own copy
    if set(first.inner_inputs) & set(second.inner_inputs):
        ins, outs = clone(second.inner_inputs, second.inner_outputs)
        second = ScanArgs(b.inputs, b.outputs, ins, outs, b.op.info)
    for name in _GROUPS:
        setattr(first, name, list(getattr(first, name)) + list(getattr(second, name)))
    # a while loop keeps the first condition (the second is the same computation)
    names = [n for n in (a.op.name, b.op.name) if n]
    first.other_info["name"] = "&".join(names) if names else None
    return first


class ScanMerge(GraphRewriter):
    """Fuse Scans over the same number of steps that do not depend on each other."""

    name = "scan_merge"

    def belongs_to_set(self, node: Apply, set_nodes: list[Apply]) -> bool:
        """Whether ``node`` can join the Scans of ``set_nodes`` in one loop."""
        return all(_mergeable(node, other) and not _depends(node, other)
                   and not _depends(other, node) for other in set_nodes)

    def apply(self, fgraph: Any) -> RewriterStats:
        stats = RewriterStats()
        t0 = time.perf_counter()
        merged = 0
        while True:
            scans = [n for n in fgraph.toposort() if isinstance(n.op, Scan)]
            pair = None
            for i, a in enumerate(scans):
                for b in scans[i + 1:]:
                    if self.belongs_to_set(b, [a]):
                        pair = (a, b)
                        break
                if pair:
                    break
            if pair is None:
                break
            a, b = pair
            args = merge_args(a, b)
            new = args.make_node()
            old = list(a.outputs) + list(b.outputs)
            by_old = dict(zip(args.outer_outputs, new.outputs))
            fgraph.replace_all([(o, by_old[o]) for o in old],
                               reason="scan_merge")
            merged += 1
        stats.time[self.name] += time.perf_counter() - t0
        stats.calls[self.name] += 1
        stats.applied[self.name] += merged
        stats.total_time += stats.time[self.name]
        return stats
