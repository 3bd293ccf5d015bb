"""``opgraph.scan.rewriting.db``: PyTensor's module of the Scan rewrite databases."""

from __future__ import annotations

from opgraph_rewrites.scan.databases import scan_eqopt1, scan_eqopt2

__all__ = ["scan_eqopt1", "scan_eqopt2"]
