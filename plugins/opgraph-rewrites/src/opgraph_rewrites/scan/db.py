"""``opgraph.scan.rewriting.db``: PyTensor's module of the Scan rewrite databases."""

from __future__ import annotations

from opgraph_rewrites.scan.databases import (
    ScanEquilibriumGraphRewriter,
    scan_eqopt1,
    scan_eqopt2,
    scan_seqopt1,
)

__all__ = ["ScanEquilibriumGraphRewriter", "scan_eqopt1", "scan_eqopt2", "scan_seqopt1"]
