"""``ifelse_make_view``: let IfElse return the chosen branch itself instead of a copy.

An ``IfElse(as_view=False)`` copies the value of the branch it takes; the
view form hands that value on.  The swap is checked by the DestroyHandler
(an output that an in-place op later destroys must not alias a protected
input), and undone where it would be unsafe.  It runs in the in-place phase,
tagged ``inplace``, so ``mode.excluding("inplace")`` keeps the copying form.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply
from opgraph.tensor.ifelse import IfElse
from opgraph_rewrites.swap import NodeSwapRewriter

__all__ = ["IfElseMakeView", "ifelse_make_view"]

BIG_GRAPH = 500
"""Above this many nodes, IfElses with only scalar outputs are left as they are.

Copying a scalar costs nothing, and each swap re-validates the whole graph.
"""


class IfElseMakeView(NodeSwapRewriter):
    """Swaps each ``IfElse(as_view=False)`` for its view twin where the graph allows it."""

    name = "ifelse_make_view"

    def twin_outputs(self, fgraph: Any, node: Apply) -> list | None:
        op = node.op
        if not isinstance(op, IfElse) or op.as_view:
            return None
        if len(fgraph.apply_nodes) >= BIG_GRAPH and all(
            getattr(o.type, "ndim", None) == 0 for o in node.outputs
        ):
            return None
        return IfElse(op.n_outs, as_view=True, name=op.name)(*node.inputs, return_list=True)


ifelse_make_view = IfElseMakeView()
