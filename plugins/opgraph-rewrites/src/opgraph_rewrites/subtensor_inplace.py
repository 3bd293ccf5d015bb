"""The set/increment Ops write into their first input where nothing else needs it
(PyTensor's ``local_inplace_setsubtensor``, ``local_inplace_AdvancedIncSubtensor1``
and ``local_inplace_AdvancedIncSubtensor``, in the inplace phase).

``x[idx].set(v)`` then costs the write instead of a copy of ``x``; the
DestroyHandler refuses the swap wherever ``x`` is an input, a constant, or read
by another node afterwards.
"""

from __future__ import annotations

from typing import Any

import attrs

from opgraph.graph.basic import Apply
from opgraph.tensor.advanced import AdvancedIncSubtensor
from opgraph.tensor.subtensor import AdvancedIncSubtensor1, IncSubtensor
from opgraph_rewrites.swap import NodeSwapRewriter

__all__ = [
    "IncSubtensorMakeInplace",
    "local_inplace_AdvancedIncSubtensor",
    "local_inplace_AdvancedIncSubtensor1",
    "local_inplace_setsubtensor",
    "register_subtensor_inplace",
]


class IncSubtensorMakeInplace(NodeSwapRewriter):
    """Swaps each (non-inplace) node of one set/increment Op class for its in-place twin."""

    def __init__(self, op_class: type, name: str) -> None:
        self.op_class = op_class
        self.name = name

    def twin_outputs(self, fgraph: Any, node: Apply) -> list | None:
        op = node.op
        if type(op) is not self.op_class or op.inplace:
            return None
        return attrs.evolve(op, inplace=True).make_node(*node.inputs).outputs


local_inplace_setsubtensor = IncSubtensorMakeInplace(IncSubtensor, "local_inplace_setsubtensor")
local_inplace_AdvancedIncSubtensor1 = IncSubtensorMakeInplace(
    AdvancedIncSubtensor1, "local_inplace_AdvancedIncSubtensor1")
local_inplace_AdvancedIncSubtensor = IncSubtensorMakeInplace(
    AdvancedIncSubtensor, "local_inplace_AdvancedIncSubtensor")


def register_subtensor_inplace(db: Any) -> None:
    """The three swaps in the inplace phase (fast_run, inplace), PyTensor's names."""
    for rw in (local_inplace_setsubtensor, local_inplace_AdvancedIncSubtensor1,
               local_inplace_AdvancedIncSubtensor):
        db.register(rw.name, rw, "fast_run", "inplace", phase="inplace")
