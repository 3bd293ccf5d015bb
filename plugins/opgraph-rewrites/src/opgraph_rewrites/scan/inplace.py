"""``ScanInplaceOptimizer``: the name PyTensor code includes or excludes by.

opgraph's Scan never writes into its outer inputs: each call allocates its
output buffers and copies the initial rows in, so there is nothing to make
in place and the rewriter leaves the graph as it is.  It exists so that
modes built with ``.including("scan_make_inplace")`` or code importing it port.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats

__all__ = ["ScanInplaceOptimizer"]


class ScanInplaceOptimizer(GraphRewriter):
    """Leaves Scans as they are: their buffers are always their own (see module doc)."""

    name = "scan_make_inplace"

    def apply(self, fgraph: Any) -> RewriterStats:
        return RewriterStats()
