"""What PyTensor code reaches in ``pytensor.tensor.rewriting.special``: ``log`` of an
indexed or transposed ``softmax`` becomes the same indexing of ``log_softmax``.

``log`` is elementwise, so ``log(softmax(x)[idx]) = log(softmax(x))[idx]``
element for element; the standard ``log_softmax`` rule then removes the
``log(0)`` a softmax underflowing to 0 would give (``-inf`` instead of a
finite value).
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scalar.math import Log
from opgraph.tensor.advanced import AdvancedSubtensor
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.special import LogSoftmax, Softmax
from opgraph.tensor.subtensor import AdvancedSubtensor1, Subtensor
from opgraph_rewrites.pytensor_names import local_logsoftmax
from opgraph_rewrites.utils import is_elemwise, keep_type, single_client

__all__ = ["local_log_of_indexed_softmax", "local_logsoftmax", "special_rewriters",
           "subtensor_ops"]

_MOVES = (Subtensor, AdvancedSubtensor1, AdvancedSubtensor, DimShuffle)
"""Ops that only select or move elements: log commutes with them."""

#: PyTensor's tuple of the indexing Ops (``tensor.rewriting.special.subtensor_ops``).
subtensor_ops = (Subtensor, AdvancedSubtensor, AdvancedSubtensor1)


@node_rewriter([Elemwise], name="local_log_of_indexed_softmax")
def local_log_of_indexed_softmax(fgraph: Any, node: Apply) -> Any:
    """log(softmax(x)[idx].T) -> log_softmax(x)[idx].T (the softmax read only there)."""
    if not is_elemwise(node, Log):
        return False
    chain = []
    var = node.inputs[0]
    while var.owner is not None and isinstance(var.owner.op, _MOVES):
        if fgraph is not None and not single_client(fgraph, var):
            return False
        chain.append(var.owner)
        var = var.owner.inputs[0]
    sm = var.owner
    if not chain or sm is None or not isinstance(sm.op, Softmax):
        return False
    if fgraph is not None and not single_client(fgraph, var):
        return False
    new = LogSoftmax(axis=sm.op.axis)(sm.inputs[0])
    for step in reversed(chain):
        new = step.op(new, *step.inputs[1:])
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else False


def special_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the stabilize phase."""
    return [("local_log_of_indexed_softmax", local_log_of_indexed_softmax, ("finite",))]
