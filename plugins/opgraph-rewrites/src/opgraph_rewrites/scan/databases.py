"""PyTensor's ``scan_eqopt1`` / ``scan_eqopt2``: the Scan rewrites as two equilibrium databases.

opgraph runs its Scan rewrites in the ``scan`` phase of the standard database
(see the package doc); these two databases hold the same rewrites grouped as
PyTensor groups them, for code that registers them into a database of its own
(PyMC's logprob rewrites do).  Entries carry PyTensor's tags (``fast_run``,
``scan``), so a query selects them as it would in PyTensor.
"""

from __future__ import annotations

from opgraph.graph.rewriting.walking import in2out
from opgraph_rewrites.db import EquilibriumDB
from opgraph_rewrites.scan.cleanup import scan_remove_unused
from opgraph_rewrites.scan.merge import ScanMerge
from opgraph_rewrites.scan.push_out import scan_push_out_non_seq

__all__ = ["scan_eqopt1", "scan_eqopt2"]

scan_eqopt1 = EquilibriumDB()
"""Before canonicalization: loop-invariant computations moved out of the loop."""
scan_eqopt1.register("scan_push_out_non_seq", in2out(scan_push_out_non_seq, ignore_newtrees=True),
                     "fast_run", "scan", "scan_pushout")

scan_eqopt2 = EquilibriumDB()
"""After canonicalization: unused inputs/outputs removed, Scans over the same steps merged."""
scan_eqopt2.register("scan_remove_unused", in2out(scan_remove_unused, ignore_newtrees=True),
                     "fast_run", "scan", "remove_constants_and_unused_inputs_scan")
scan_eqopt2.register("scan_merge", ScanMerge(), "fast_run", "scan")
