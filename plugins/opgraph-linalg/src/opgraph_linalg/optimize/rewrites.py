"""Rewrites of the optimizer Ops: constant args move into the inner graph, repeats merge.

``optimize_inline_constant_args`` (canonicalize): an arg that is a constant
becomes part of the compiled objective (SciPy then calls a smaller function
that constant folding has simplified); an outer variable passed for two args
is passed once.  The starting point ``x`` is never touched.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph_linalg.optimize.wrapper import ScipyWrapperOp

__all__ = ["inline_constant_args"]


@node_rewriter([ScipyWrapperOp])
def inline_constant_args(fgraph: Any, node: Apply) -> list[Variable] | None:
    """Constant args into the inner graph, and one input per distinct outer variable."""
    op = node.op
    subs: dict[int, Variable] = {}
    first: dict[Variable, int] = {}
    for i, outer in enumerate(node.inputs[1:], start=1):
        if isinstance(outer, Constant):
            subs[i] = outer
        elif outer in first:
            subs[i] = op.inner_inputs[first[outer]]
        else:
            first[outer] = i
    if not subs:
        return None
    new_op = op.substituted(subs)
    kept = [v for i, v in enumerate(node.inputs) if i not in subs]
    return new_op.make_node(*kept).outputs
