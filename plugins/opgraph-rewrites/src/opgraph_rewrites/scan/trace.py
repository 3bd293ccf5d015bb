"""PyTensor's ``scan.rewriting.trace`` path: the rewrite that trims a Scan's stored trace."""

from opgraph_rewrites.scan.save_mem import scan_save_mem

scan_reduce_trace_prealloc = scan_save_mem

__all__ = ["scan_reduce_trace_prealloc", "scan_save_mem"]
