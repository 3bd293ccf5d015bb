"""What PyTensor code imports from ``pytensor.tensor.rewriting.math`` (the part opgraph has).

``local_lift_transpose_through_dot``: ``dot(a, b).T -> dot(b.T, a.T)``, so the
transposes meet (and cancel with) the DimShuffles of the operands.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.products import Dot, dot
from opgraph_rewrites.utils import keep_type

__all__ = ["local_lift_transpose_through_dot", "math_rewriters"]


@node_rewriter([DimShuffle], name="local_lift_transpose_through_dot")
def local_lift_transpose_through_dot(fgraph: Any, node: Apply) -> Any:
    """dot(a, b).T -> dot(b.T, a.T) for matrices (exact: the same products and sums)."""
    if node.op.input_ndim != 2 or node.op.new_order != (1, 0):
        return False
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Dot):
        return False
    a, b = inner.inputs
    if a.type.ndim != 2 or b.type.ndim != 2:
        return False
    if fgraph is not None and len(fgraph.clients.get(node.inputs[0], [])) != 1:
        return False
    new = dot(b.T, a.T)
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else False


def math_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase."""
    return [("local_lift_transpose_through_dot", local_lift_transpose_through_dot, ())]
