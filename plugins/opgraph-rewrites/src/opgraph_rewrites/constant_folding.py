"""Constant folding: a node whose inputs are all constants becomes constants.

The Op decides through ``do_constant_folding(fgraph, node)`` (e.g. a large
Alloc may refuse, to keep the constant out of the compiled function).
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Constant
from opgraph.graph.rewriting.basic import node_rewriter

__all__ = ["constant_folding", "fold_node"]


def fold_node(fgraph: Any, node: Apply) -> list[Constant] | None:
    """The outputs of ``node`` as constants, or None when it cannot or may not be folded."""
    if not all(isinstance(i, Constant) for i in node.inputs):
        return None
    if not node.op.do_constant_folding(fgraph, node):
        return None
    cells = [[None] for _ in node.outputs]
    try:
        # a copy of the list: the values are read from the cells, as a linker would
        node.op.perform(node, [i.data for i in node.inputs], list(cells))
    except Exception:  # e.g. a runtime shape error: leave it to run time
        return None
    out = []
    for var, (value,) in zip(node.outputs, cells):
        try:
            out.append(var.type.make_constant(value))
        except (TypeError, ValueError):
            return None
    return out


@node_rewriter(None)
def constant_folding(fgraph: Any, node: Apply) -> Any:
    """op(c1, c2, ...) -> the constant it computes."""
    if not node.inputs:
        return False
    for i in node.inputs:
        if not isinstance(i, Constant):
            return False
    return fold_node(fgraph, node) or False
