"""Node rewriters of the lowering: an XOp by its ``lower``, and the casts cancelled.

``lowering_rewrite(OpClass, name)`` makes the rewrite PyTensor names per Op
(``lower_concat``, ``lower_reduce``...): each tracks its Op class and replaces
a node by the tensor graph the Op's ``lower`` states, between name casts.
``lower_xop`` does the same for any other XOp (user-defined ones included).
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
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
from opgraph_xtensor.xtensor.random.type import RNGToXRNG, XRNGToRNG
from opgraph_xtensor.xtensor.rewriting.utils import query_lowering, register_lower_xtensor
from opgraph_xtensor.xtensor.type import XTensorType

__all__ = ["LOWERING_REWRITES", "lower_xop", "lower_xtensor_rewriter", "lowering_rewrite",
           "useless_rename", "useless_rng_to_xrng", "useless_tensor_from_xtensor",
           "useless_tensor_from_xtensor_of_rename", "useless_xrng_to_rng",
           "useless_xtensor_from_tensor"]


def _retype(new: Variable, old: Variable) -> Variable:
    """``new`` (a tensor) as a variable of ``old``'s Type (names back, static shape kept)."""
    if isinstance(old.type, XTensorType):
        if new.type.shape != old.type.shape and any(
                o is not None and n is None for o, n in zip(old.type.shape, new.type.shape)):
            new = specify_shape(new, old.type.shape)
        return xtensor_from_tensor(new, dims=old.type.dims)
    return new


def _lower(fgraph: Any, node: Apply) -> list[Variable] | None:
    tins = [as_tensor_view(i) for i in node.inputs]
    touts = node.op.lower(node.inputs, tins)
    return [_retype(t, o) for t, o in zip(touts, node.outputs)]


def lowering_rewrite(op_class: type, name: str) -> Any:
    """The lowering of ``op_class`` nodes as a node rewriter called ``name`` (registered)."""
    def lower(fgraph: Any, node: Apply) -> list[Variable] | None:
        return _lower(fgraph, node)

    lower.__name__ = lower.__qualname__ = name
    lower.__doc__ = f"A {op_class.__name__} node replaced by the tensor graph it states."
    return register_lower_xtensor(node_rewriter([op_class])(lower), position=1)


@node_rewriter([XOp])
def lower_xop(fgraph: Any, node: Apply) -> list[Variable] | None:
    """An xtensor Op replaced by its tensor graph between name casts."""
    return _lower(fgraph, node)


register_lower_xtensor(lower_xop, position=2)  # after the per-Op rewrites of the same node


@register_lower_xtensor
@node_rewriter([TensorFromXTensor])
def useless_tensor_from_xtensor(fgraph: Any, node: Apply) -> list[Variable] | None:
    """``tensor_from_xtensor(xtensor_from_tensor(t)) -> t``."""
    inner = node.inputs[0].owner
    if inner is not None and isinstance(inner.op, XTensorFromTensor):
        return [inner.inputs[0]]
    return None


@register_lower_xtensor
@node_rewriter([XTensorFromTensor])
def useless_xtensor_from_tensor(fgraph: Any, node: Apply) -> list[Variable] | None:
    """``xtensor_from_tensor(tensor_from_xtensor(x)) -> x`` (renamed when the dims differ)."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, TensorFromXTensor):
        return None
    src = inner.inputs[0]
    if src.type.dims == node.op.dims:
        return [src]
    return [rename(src, dict(zip(src.type.dims, node.op.dims)))]


@register_lower_xtensor
@node_rewriter([TensorFromXTensor])
def useless_tensor_from_xtensor_of_rename(fgraph: Any, node: Apply) -> list[Variable] | None:
    """``tensor_from_xtensor(rename(x)) -> tensor_from_xtensor(x)``: names do not matter."""
    inner = node.inputs[0].owner
    if inner is not None and isinstance(inner.op, Rename):
        return [tensor_from_xtensor(inner.inputs[0])]
    return None


@register_lower_xtensor
@node_rewriter([Rename])
def useless_rename(fgraph: Any, node: Apply) -> list[Variable] | None:
    """``rename(rename(x)) -> rename(x)``; ``rename(xtensor_from_tensor(t))`` names ``t``
    directly."""
    inner = node.inputs[0].owner
    if inner is None:
        return None
    dims = node.outputs[0].type.dims
    if isinstance(inner.op, Rename):
        return [node.op(inner.inputs[0])]
    if isinstance(inner.op, XTensorFromTensor):
        return [xtensor_from_tensor(inner.inputs[0], dims=dims)]
    return None


@register_lower_xtensor
@node_rewriter([RNGToXRNG])
def useless_rng_to_xrng(fgraph: Any, node: Apply) -> list[Variable] | None:
    """``rng_to_xrng(xrng_to_rng(x)) -> x``."""
    inner = node.inputs[0].owner
    if inner is not None and isinstance(inner.op, XRNGToRNG):
        return [inner.inputs[0]]
    return None


@register_lower_xtensor
@node_rewriter([XRNGToRNG])
def useless_xrng_to_rng(fgraph: Any, node: Apply) -> list[Variable] | None:
    """``xrng_to_rng(rng_to_xrng(x)) -> x``."""
    inner = node.inputs[0].owner
    if inner is not None and isinstance(inner.op, RNGToXRNG):
        return [inner.inputs[0]]
    return None


LOWERING_REWRITES = (lower_xop, useless_tensor_from_xtensor, useless_xtensor_from_tensor,
                     useless_tensor_from_xtensor_of_rename, useless_rename,
                     useless_rng_to_xrng, useless_xrng_to_rng)


def lower_xtensor_rewriter() -> Any:
    """The graph rewriter registered as ``lower_xtensor``: every registered lowering rewrite."""
    return query_lowering()
