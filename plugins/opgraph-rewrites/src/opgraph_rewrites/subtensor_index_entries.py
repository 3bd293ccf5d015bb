"""A basic index node's entries as Python values (shared by the subtensor rewrites)."""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply
from opgraph.tensor.indexing import SliceSpec, split_inputs

__all__ = ["basic_index"]


def basic_index(node: Apply) -> list[Any]:
    """A Subtensor node's index as Python entries: index variables and slices of them."""
    parts = split_inputs(node.op.idx_spec, node.inputs[1:])
    return [slice(*p) if isinstance(e, SliceSpec) else p
            for e, p in zip(node.op.idx_spec, parts)]
