"""Node rewriters of the lowering: an XOp by its ``lower``, and the casts cancelled."""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.graph.rewriting.walking import EquilibriumGraphRewriter
from opgraph.tensor.shape import specify_shape
from opgraph_xtensor.xtensor.basic import (
    Rename,
    TensorFromXTensor,
    XOp,
    XTensorFromTensor,
    as_tensor_view,
    rename,
    tensor_from_xtensor,
    xtensor_from_tensor,
)
from opgraph_xtensor.xtensor.type import XTensorType

__all__ = ["LOWERING_REWRITES", "lower_xop", "lower_xtensor_rewriter", "useless_casts"]


def _retype(new: Variable, old: Variable) -> Variable:
    """``new`` (a tensor) as a variable of ``old``'s Type (names back, static shape kept)."""
    if isinstance(old.type, XTensorType):
        if new.type.shape != old.type.shape and any(
                o is not None and n is None for o, n in zip(old.type.shape, new.type.shape)):
            new = specify_shape(new, old.type.shape)
        return xtensor_from_tensor(new, dims=old.type.dims)
    return new


@node_rewriter([XOp])
def lower_xop(fgraph: Any, node: Apply) -> list[Variable] | None:
    """An xtensor Op replaced by its tensor graph between name casts."""
    tins = [as_tensor_view(i) for i in node.inputs]
    touts = node.op.lower(node.inputs, tins)
    return [_retype(t, o) for t, o in zip(touts, node.outputs)]


@node_rewriter([TensorFromXTensor, XTensorFromTensor])
def useless_casts(fgraph: Any, node: Apply) -> list[Variable] | None:
    """``tensor_from_xtensor(xtensor_from_tensor(t)) -> t``; renames seen through."""
    [x] = node.inputs
    inner = x.owner
    if inner is None:
        return None
    if isinstance(node.op, TensorFromXTensor):
        if isinstance(inner.op, XTensorFromTensor):
            return [inner.inputs[0]]
        if isinstance(inner.op, Rename):
            return [tensor_from_xtensor(inner.inputs[0])]
        return None
    if isinstance(inner.op, TensorFromXTensor):
        src = inner.inputs[0]
        if src.type.dims == node.op.dims:
            return [src]
        return [rename(src, dict(zip(src.type.dims, node.op.dims)))]
    return None


LOWERING_REWRITES = (lower_xop, useless_casts)


def lower_xtensor_rewriter() -> EquilibriumGraphRewriter:
    """The graph rewriter registered as ``lower_xtensor``."""
    return EquilibriumGraphRewriter(list(LOWERING_REWRITES), max_use_ratio=100,
                                    name="lower_xtensor")
