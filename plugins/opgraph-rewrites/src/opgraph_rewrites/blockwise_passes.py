"""Whole-graph passes over Blockwise nodes and their registration.

``local_useless_unbatched_blockwise`` (post_specialize, FAST_RUN):
a Blockwise without batch axes, or of an Elemwise, becomes its core Op (after
specialize, so the linear-algebra rewrites still see their Blockwise nodes).

``local_blockwise_batched_update`` (canonicalize, FAST_RUN): a Blockwise of an
index update (batched indices, or a batched update of an unbatched ``x``) or of
an Alloc (batched lengths equal over the batch) becomes one node.

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

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Constant
from opgraph.graph.op import Op
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.graph.rewriting.inplace_inputs import InplaceOnInputs
from opgraph.graph.rewriting.walking import in2out
from opgraph.tensor.batching_index import lower_blockwise
from opgraph.tensor.blockwise import Blockwise, local_useless_blockwise
from opgraph.tensor.shape import Reshape
from opgraph_rewrites.utils import keep_type

__all__ = ["BlockwiseInplace", "blockwise_inplace", "local_blockwise_batched_update",
           "local_blockwise_reshape", "register_blockwise_canonicalize",
           "register_blockwise_passes"]


@node_rewriter([Blockwise], name="local_blockwise_reshape")
def local_blockwise_reshape(fgraph: Any, node: Apply) -> Any:
    """Blockwise(reshape)(x, shape) with an unbatched ``shape`` -> one reshape of ``x`` to
    ``(*batch_shape, *shape)``: each batch entry's ``-1`` is inferred from its own core
    axes, as before.  (Backends that need shapes known when they compile, JAX, read a
    constant core shape here; inside the Blockwise it was an argument.)"""
    core = node.op.core_op
    if not isinstance(core, Reshape):
        return None
    x, shp = node.inputs
    x_sig = node.op.inputs_sig[0]
    if shp.type.ndim != 1:
        return None  # a shape per batch entry
    nb = x.type.ndim - len(x_sig)
    if nb <= 0:
        return None
    batch = [x.shape[d] for d in range(nb)]
    new_shape = pt.concatenate([pt.stack(batch), pt.cast(shp, "int64")])
    out = pt.reshape(x, new_shape, ndim=nb + core.ndim)
    fixed = keep_type(node.outputs[0], out)
    return None if fixed is None else [fixed]


@node_rewriter([Blockwise], name="local_blockwise_batched_update")
def local_blockwise_batched_update(fgraph: Any, node: Apply) -> Any:
    """Blockwise(inc_subtensor) with batched indices (or an unbatched ``x``) -> one advanced
    inc_subtensor, and Blockwise(alloc) whose batched lengths are the same in every batch
    entry -> one alloc (:func:`opgraph.tensor.batching_index.lower_blockwise`)."""
    outs = lower_blockwise(node)
    if outs is None:
        return None
    fixed = keep_type(node.outputs[0], outs[0])
    return None if fixed is None else [fixed]


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


def register_blockwise_canonicalize(canon: Any) -> None:
    """Add ``local_blockwise_batched_update`` to the canonicalize database ``canon``."""
    canon.register("local_blockwise_batched_update", local_blockwise_batched_update,
                   "fast_run", "blockwise")


def register_blockwise_passes(db: Any) -> None:
    """Add ``local_useless_unbatched_blockwise``, ``local_blockwise_reshape`` and
    ``blockwise_inplace`` to ``db``."""
    db.register("local_blockwise_reshape", in2out(local_blockwise_reshape), "fast_run",
                "fast_compile", "blockwise", phase="canonicalize")
    db.register("local_useless_unbatched_blockwise",
                in2out(local_useless_blockwise, name="local_useless_unbatched_blockwise"),
                "fast_run", "fast_compile", "blockwise", phase="post_specialize")
    db.register("blockwise_inplace", blockwise_inplace, "fast_run", "inplace", phase="inplace")
