"""Small pieces of the scan API: ``until``, ``ScanArgs`` and helpers (PyTensor's ``scan.utils``)."""

from __future__ import annotations

from opgraph.scan.args import FieldInfo, ScanArgs
from opgraph.scan.helpers import (
    InnerFunctionError,
    default_filter_scanargs,
    expand_empty,
    forced_replace,
    reconstruct_graph,
    safe_index,
    safe_new,
    until,
)
from opgraph.scan.key import InnerGraphKey

__all__ = [
    "FieldInfo",
    "InnerFunctionError",
    "InnerGraphKey",
    "ScanArgs",
    "default_filter_scanargs",
    "expand_empty",
    "forced_replace",
    "reconstruct_graph",
    "safe_index",
    "safe_new",
    "until",
]
