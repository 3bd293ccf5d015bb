"""Rewrites of Scan (PyTensor's ``scan.rewriting``), and their registration.

=====================  =========  ==============================================
rewrite                position   what
=====================  =========  ==============================================
scan_push_out_non_seq  0.51       loop-invariant body nodes computed before the loop
scan_push_out_seq_   0.512      ``matrix @ x_t`` over a sequence computed before
products                         the loop as one matrix product (a new sequence)
scan_share_row_block_  0.513      ``W[a:b] @ v`` read as ``(W @ v)[a:b]`` when the
products                         body also computes ``W @ v`` (GRU's candidate)
scan_push_out_outer_  0.515      a sum of per-step outer products accumulated in
sum                              a state becomes one matrix product after the loop
scan_merge             0.52       Scans over the same steps fused into one
scan_remove_unused     0.53       unused/duplicate inputs and unused outputs dropped
scan_to_vectorized     0.54       a Scan without recurrence vectorised (opt-in:
                                  ``mode.including("scan_vectorize")``)
scan_reduce_nsteps     0.549      only the steps whose rows are read run
                                  (``ys[:2]``, ``ys[idx]``, ``ys[-10]``)
scan_save_mem          0.55       only the last rows of a state kept when only
                                  those are read
scan_sit_sot_to_       0.56       a sit-sot read only as its last value carried as
untraced                          an untraced state (opt-in, with
                                  ``scan_save_mem_no_prealloc``)
=====================  =========  ==============================================

They run after the first merge and before canonicalize, so that canonicalize
sees the rewritten outer graph (and ``scan_save_mem`` sees readers as
``scan`` built them).  Tags follow PyTensor's: ``scan``, ``scan_pushout``,
``scan_save_mem``, ``scan_remove_unused``, ``scan_merge``.  Vectorising is
opt-in, as in PyTensor a map stays a Scan unless asked: the vectorised graph
holds every step's intermediates at once, which costs memory a loop does not.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.rewriting.walking import in2out
from opgraph_rewrites.scan.accumulate import outer_factors, scan_push_out_outer_sum
from opgraph_rewrites.scan.cleanup import remove_unused, scan_remove_unused
from opgraph_rewrites.scan.databases import (
    ScanEquilibriumGraphRewriter,
    scan_eqopt1,
    scan_eqopt2,
    scan_seqopt1,
)
from opgraph_rewrites.scan.inplace import ScanInplaceOptimizer
from opgraph_rewrites.scan.io import scan_inline_invariant_constants, scan_merge_duplicate_inputs
from opgraph_rewrites.scan.merge import ScanMerge
from opgraph_rewrites.scan.nsteps import scan_reduce_nsteps
from opgraph_rewrites.scan.push_out import (
    push_out_invariants,
    scan_push_out_add,
    scan_push_out_dot1,
    scan_push_out_non_seq,
    scan_push_out_seq,
)
from opgraph_rewrites.scan.push_out_seq import scan_push_out_seq_products, sequence_products
from opgraph_rewrites.scan.row_blocks import row_block_products, scan_share_row_block_products
from opgraph_rewrites.scan.save_mem import scan_save_mem
from opgraph_rewrites.scan.trace import scan_reduce_trace_no_prealloc, scan_reduce_trace_prealloc
from opgraph_rewrites.scan.untraced import scan_sit_sot_to_untraced
from opgraph_rewrites.scan.vectorize import scan_to_vectorized

__all__ = [
    "ScanEquilibriumGraphRewriter",
    "ScanInplaceOptimizer",
    "ScanMerge",
    "outer_factors",
    "push_out_invariants",
    "register_scan_rewrites",
    "remove_unused",
    "row_block_products",
    "scan_eqopt1",
    "scan_eqopt2",
    "scan_inline_invariant_constants",
    "scan_merge_duplicate_inputs",
    "scan_push_out_add",
    "scan_push_out_dot1",
    "scan_push_out_non_seq",
    "scan_push_out_outer_sum",
    "scan_push_out_seq",
    "scan_push_out_seq_products",
    "scan_reduce_nsteps",
    "scan_reduce_trace_no_prealloc",
    "scan_reduce_trace_prealloc",
    "scan_remove_unused",
    "scan_save_mem",
    "scan_seqopt1",
    "scan_share_row_block_products",
    "scan_sit_sot_to_untraced",
    "scan_to_vectorized",
    "sequence_products",
]


def register_scan_rewrites(db: Any) -> None:
    """Register the Scan rewrites into the top database ``db`` (see the module doc).

    They run in a phase of their own, ``scan``, between the initial merge and
    canonicalization (PyTensor's positions 0.51-0.55), in registration order.
    """
    db.add_phase("scan", after="initial_merge", before="canonicalize",
                 description="loop rewrites: push-out, merge, unused, save memory")
    db.register("scan_push_out_non_seq", in2out(scan_push_out_non_seq, ignore_newtrees=True),
                "fast_run", "scan", "scan_pushout", "scan_push_out_non_seq", phase="scan")
    db.register("scan_push_out_seq_products",
                in2out(scan_push_out_seq_products, ignore_newtrees=True), "fast_run", "scan",
                "scan_pushout", "scan_push_out_seq_products", phase="scan")
    db.register("scan_share_row_block_products",
                in2out(scan_share_row_block_products, ignore_newtrees=True), "fast_run", "scan",
                "scan_pushout", "scan_share_row_block_products", phase="scan")
    db.register("scan_push_out_outer_sum", in2out(scan_push_out_outer_sum, ignore_newtrees=False),
                "fast_run", "scan", "scan_pushout", "scan_push_out_outer_sum", phase="scan")
    db.register("scan_merge", ScanMerge(), "fast_run", "scan", "scan_merge", phase="scan")
    db.register("scan_remove_unused", in2out(scan_remove_unused, ignore_newtrees=True),
                "fast_run", "scan", "scan_remove_unused", phase="scan")
    db.register("scan_to_vectorized", in2out(scan_to_vectorized, ignore_newtrees=True),
                "scan_vectorize", phase="scan")
    db.register("scan_reduce_nsteps", in2out(scan_reduce_nsteps, ignore_newtrees=True),
                "fast_run", "scan", "scan_reduce_nsteps", phase="scan")
    db.register("scan_save_mem", in2out(scan_save_mem, ignore_newtrees=True), "fast_run",
                "scan", "scan_save_mem", phase="scan")
    # PyTensor's pair for backends without a preallocated ring; opt-in here (module doc of
    # opgraph_rewrites.scan.untraced)
    db.register("scan_save_mem_no_prealloc", in2out(scan_save_mem, ignore_newtrees=True),
                phase="scan")
    db.register("scan_sit_sot_to_untraced", in2out(scan_sit_sot_to_untraced,
                                                   ignore_newtrees=True), phase="scan")
    db.register("scan_make_inplace", ScanInplaceOptimizer(), "fast_run", "inplace",
                "scan_make_inplace", phase="inplace")
