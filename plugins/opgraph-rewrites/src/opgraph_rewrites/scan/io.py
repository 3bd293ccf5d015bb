"""PyTensor's ``scan.rewriting.io`` path: removing what a Scan does not need.

opgraph's ``scan_remove_unused`` drops unused inputs and outputs, merges
inputs given the same outer variable and writes constant non-sequences into
the body in one pass; PyTensor splits the last two out as
``scan_merge_duplicate_inputs`` and ``scan_inline_invariant_constants``, which
name the same rewrite here.
"""

from opgraph_rewrites.scan.cleanup import scan_remove_unused

scan_merge_duplicate_inputs = scan_remove_unused
scan_inline_invariant_constants = scan_remove_unused

__all__ = ["scan_inline_invariant_constants", "scan_merge_duplicate_inputs",
           "scan_remove_unused"]
