"""PyTensor's Scan databases: ``scan_eqopt1``, ``scan_seqopt1``, ``scan_eqopt2``.

opgraph runs its Scan rewrites in the ``scan`` phase of the standard database
(see the package doc); these databases hold the same rewrites grouped as
PyTensor groups them, for code that registers them into a database of its own
(PyMC's logprob rewrites do).  Entries carry PyTensor's tags (``fast_run``,
``scan``), so a query selects them as it would in PyTensor.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.rewriting.basic import RewriterStats
from opgraph.graph.rewriting.walking import EquilibriumGraphRewriter, in2out
from opgraph.scan.op import Scan
from opgraph_rewrites.db import EquilibriumDB, SequenceDB
from opgraph_rewrites.scan.accumulate import scan_push_out_outer_sum
from opgraph_rewrites.scan.cleanup import scan_remove_unused
from opgraph_rewrites.scan.merge import ScanMerge
from opgraph_rewrites.scan.push_out import scan_push_out_non_seq
from opgraph_rewrites.scan.push_out_seq import scan_push_out_seq_products

__all__ = ["ScanEquilibriumGraphRewriter", "scan_eqopt1", "scan_eqopt2", "scan_seqopt1"]


class ScanEquilibriumGraphRewriter(EquilibriumGraphRewriter):
    """An equilibrium rewriter that returns at once on a graph without a Scan."""

    def apply(self, fgraph: Any, *args: Any, **kwargs: Any) -> Any:
        if not any(isinstance(node.op, Scan) for node in fgraph.apply_nodes):
            return RewriterStats()
        return super().apply(fgraph, *args, **kwargs)


scan_eqopt1 = EquilibriumDB(eq_rewriter_class=ScanEquilibriumGraphRewriter)
"""Before canonicalization: loop-invariant computations moved out of the loop."""
scan_seqopt1 = SequenceDB()
"""The push-out rewrites, in order (``scan_eqopt1`` repeats them to a fixed point)."""
scan_eqopt2 = EquilibriumDB(eq_rewriter_class=ScanEquilibriumGraphRewriter)
"""After canonicalization: unused inputs/outputs removed, Scans over the same steps merged."""

scan_eqopt1.register("all_pushout_opt", scan_seqopt1, "fast_run", "scan")
scan_seqopt1.register("scan_input_and_output_cleanup0",
                      in2out(scan_remove_unused, ignore_newtrees=True), "fast_run", "scan",
                      "scan_remove_unused", position=1)
scan_seqopt1.register("scan_push_out_non_seq",
                      in2out(scan_push_out_non_seq, ignore_newtrees=True), "fast_run", "scan",
                      "scan_pushout", position=3)
scan_seqopt1.register("scan_push_out_seq",
                      in2out(scan_push_out_seq_products, ignore_newtrees=True), "fast_run",
                      "scan", "scan_pushout", position=4)
scan_seqopt1.register("scan_push_out_add",
                      in2out(scan_push_out_outer_sum, ignore_newtrees=False), "fast_run",
                      "more_mem", "scan", "scan_pushout", position=6)
scan_eqopt2.register("scan_remove_unused", in2out(scan_remove_unused, ignore_newtrees=True),
                     "fast_run", "scan", "remove_constants_and_unused_inputs_scan")
scan_eqopt2.register("scan_merge", ScanMerge(), "fast_run", "scan")
