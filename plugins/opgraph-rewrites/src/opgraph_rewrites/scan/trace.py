"""PyTensor's ``scan.rewriting.trace`` path: the rewrite that trims a Scan's stored trace.

opgraph has one such rewrite, ``scan_save_mem``: the buffers of the loop hold
only the rows read after it, whatever the backend (opgraph's backends all let
the loop write into a preallocated ring), so PyTensor's ``prealloc`` and
``no_prealloc`` variants are the same rewrite here.
"""

from typing import Any

from opgraph.graph.basic import Apply
from opgraph_rewrites.scan.save_mem import scan_save_mem

scan_reduce_trace_prealloc = scan_save_mem
scan_reduce_trace_no_prealloc = scan_save_mem

__all__ = ["scan_reduce_trace_no_prealloc", "scan_reduce_trace_prealloc",
           "scan_reduce_trace_rewrite", "scan_save_mem"]


def scan_reduce_trace_rewrite(fgraph: Any, node: Apply,
                              backend_supports_output_pre_allocation: bool = True) -> Any:
    """Apply ``scan_save_mem`` to ``node`` (both backends are served alike, see above)."""
    return scan_save_mem.transform(fgraph, node)
