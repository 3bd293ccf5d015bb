"""Whole-graph passes over Blockwise nodes and their registration.

``local_useless_unbatched_blockwise`` (post_specialize, FAST_RUN):
a Blockwise without batch axes, or of an Elemwise, becomes its core Op (after
specialize, so the linear-algebra rewrites still see their Blockwise nodes).

``blockwise_inplace``: a Blockwise overwrites inputs its core Op can overwrite.

A core Op that implements ``inplace_on_inputs`` (PyTensor's protocol) says
which inputs it can write its outputs into.  A Blockwise input qualifies when
it has the type of one of the node's outputs (so no batch broadcasting: the
result fits it exactly).  All qualifying inputs are tried at once, and if the
DestroyHandler refuses (an input still needed, or protected), one at a time.
Phase ``inplace``, tags ``fast_run`` and ``inplace``.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Constant
from opgraph.graph.op import Op
from opgraph.graph.rewriting.inplace_inputs import InplaceOnInputs
from opgraph.graph.rewriting.walking import in2out
from opgraph.tensor.blockwise import Blockwise, local_useless_blockwise

__all__ = ["BlockwiseInplace", "blockwise_inplace", "register_blockwise_passes"]


def _candidates(node: Apply) -> list[int]:
    out_types = [o.type for o in node.outputs]
    return [i for i, inp in enumerate(node.inputs)
            if not isinstance(inp, Constant) and inp.type in out_types]


class BlockwiseInplace(InplaceOnInputs):
    """Swaps Blockwise nodes for their inplace versions where the DestroyHandler allows."""

    name = "blockwise_inplace"

    def wants(self, node: Apply) -> bool:
        op = node.op
        return (isinstance(op, Blockwise) and not op.destroy_map
                and type(op.core_op).inplace_on_inputs is not Op.inplace_on_inputs)

    def candidates(self, fgraph: Any, node: Apply) -> list[int]:
        return _candidates(node)


blockwise_inplace = BlockwiseInplace()


def register_blockwise_passes(db: Any) -> None:
    """Add ``local_useless_unbatched_blockwise`` and ``blockwise_inplace`` to ``db``."""
    db.register("local_useless_unbatched_blockwise",
                in2out(local_useless_blockwise, name="local_useless_unbatched_blockwise"),
                "fast_run", "blockwise", phase="post_specialize")
    db.register("blockwise_inplace", blockwise_inplace, "fast_run", "inplace", phase="inplace")
