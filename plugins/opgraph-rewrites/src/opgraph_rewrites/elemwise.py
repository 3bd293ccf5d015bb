"""What PyTensor code imports from ``pytensor.tensor.rewriting.elemwise``.

``local_dimshuffle_lift`` moves a DimShuffle below the Elemwise it reorders
(towards the inputs, where DimShuffles compose and vanish); ``FusionOptimizer``
is the standard fusion pass.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.graph.rewriting.walking import in2out
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph_rewrites.add_mul_fusion import (
    add_mul_fusion_seqopt,
    constant_fold_branches_of_add_mul,
    flatten_nested_add_mul,
)
from opgraph_rewrites.basic_vectors import local_useless_dimshuffle_makevector
from opgraph_rewrites.canonicalize import local_dimshuffle_dimshuffle
from opgraph_rewrites.composite import local_inline_composite_constants
from opgraph_rewrites.composite_outputs import local_useless_composite_outputs
from opgraph_rewrites.fusion import MAX_INPUTS, FusionOptimizer
from opgraph_rewrites.inplace import InplaceElemwiseOptimizer
from opgraph_rewrites.outer import outer_rewriters
from opgraph_rewrites.scalar_sink import scalar_sink_rewriters
from opgraph_rewrites.squeeze import late_squeeze_rewriters, squeeze_rewriters
from opgraph_rewrites.utils import keep_type

__all__ = [
    "FusionOptimizer",
    "InplaceElemwiseOptimizer",
    "add_mul_fusion_seqopt",
    "apply_local_dimshuffle_lift",
    "constant_fold_branches_of_add_mul",
    "elemwise_max_operands_fct",
    "elemwise_rewriters",
    "flatten_nested_add_mul",
    "is_dimshuffle_useless",
    "local_dimshuffle_lift",
    "local_inline_composite_constants",
    "local_useless_composite_outputs",
    "local_useless_dimshuffle_makevector",
    "register_before_fusion",
]

_compose = local_dimshuffle_dimshuffle()


@node_rewriter([DimShuffle], name="local_dimshuffle_lift")
def local_dimshuffle_lift(fgraph: Any, node: Apply) -> Any:
    """ds(elemwise(x, y)) -> elemwise(ds(x), ds(y)); ds(ds(x)) -> ds(x); identity ds(x) -> x.

    Lifting only when the DimShuffle is the Elemwise's one client, so no work
    is duplicated.
    """
    op = node.op
    (x,) = node.inputs
    inner = x.owner
    if inner is not None and isinstance(inner.op, Elemwise) and len(inner.outputs) == 1:
        clients = fgraph.clients.get(x, []) if fgraph is not None else []
        if len(clients) == 1 and not inner.op.inplace_pattern:
            new_inputs = []
            for i in inner.inputs:
                if i.type.ndim != op.input_ndim:
                    return False
                new_inputs.append(DimShuffle(input_ndim=op.input_ndim,
                                             new_order=op.new_order)(i))
            lifted = inner.op(*new_inputs)
            fixed = keep_type(node.outputs[0], lifted)
            return [fixed] if fixed is not None else False
    return _compose.transform(fgraph, node)


def elemwise_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase."""
    return [("local_dimshuffle_lift", local_dimshuffle_lift, ("fast_compile",)),
            *squeeze_rewriters(), *outer_rewriters()]


def register_before_fusion(db: Any) -> None:
    """Register the rewrites of the fusion phase that run before the fusion: Elemwise
    work on expanded scalars moves to the scalars (there, because the BLAS phase's
    ``local_dimshuffle_lift`` would move it back)."""
    for name, rw, tags in scalar_sink_rewriters():
        # with the DimShuffle composition: a squeeze of an expansion is no node at all
        db.register(name, in2out(rw, _compose, name=name), "fast_run", "fusion", *tags,
                    phase="fusion", before=("elemwise_fusion",))
    late = in2out(*late_squeeze_rewriters(), _compose, name="late_squeeze")
    db.register("late_squeeze", late, "fast_run", "fusion", "shape", phase="fusion",
                before=tuple(name for name, _rw, _tags in scalar_sink_rewriters()))


def apply_local_dimshuffle_lift(fgraph: Any, var: Any) -> Any:
    """``var`` with :func:`local_dimshuffle_lift` applied to its owner (``var`` when it
    does not apply): the lift is recursive, it reaches the graph's leaves."""
    if var.owner is None:
        return var
    new = local_dimshuffle_lift.transform(fgraph, var.owner)
    return new[0] if new else var


def is_dimshuffle_useless(new_order: Any, input: Any) -> bool:
    """A DimShuffle with ``new_order`` of ``input`` returns the same layout: it keeps every
    axis in place, or moves only length-1 (broadcastable) axes among length-1 ones."""
    bcast = input.type.broadcastable
    if len(new_order) != len(bcast) or "x" in new_order:
        return False
    return all(k == i or (bcast[k] and bcast[i]) for k, i in enumerate(new_order))


def elemwise_max_operands_fct(node: Apply) -> int:
    """The most non-constant inputs one fused Elemwise may take (the fusion's bound)."""
    return MAX_INPUTS
