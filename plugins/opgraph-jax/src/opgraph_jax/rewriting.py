"""JAX-only rewrites (tag ``jax``; PyTensor's ``tensor.rewriting.jax``).

JAX arrays need shapes known when a function is traced, so boolean-mask
indexing ``x[mask]`` (a shape that depends on values) cannot run inside
``jax.jit``.  Its two common uses have a fixed-shape equivalent:
``x[mask].sum()`` is ``where(mask, x, 0).sum()`` and ``x[mask] = y``
(``y`` a scalar) is ``where(mask, y, x)``.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.graph.rewriting.walking import in2out
from opgraph.tensor.advanced import AdvancedIncSubtensor, AdvancedSubtensor
from opgraph.tensor.indexing import ARRAY
from opgraph.tensor.reduction import Sum
from opgraph.tensor.ufuncs import switch
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["boolean_indexing_set_or_inc", "boolean_indexing_sum", "register_rewrites"]


def _full_mask(op: Any, x: Any, index_inputs: list[Any]) -> Any:
    """The boolean mask when the index is exactly one mask covering every axis of ``x``."""
    if op.idx_spec != (ARRAY,) or len(index_inputs) != 1:
        return None
    mask = index_inputs[0]
    if mask.type.dtype != "bool" or mask.type.ndim != x.type.ndim:
        return None
    return mask


@node_rewriter([Sum])
def boolean_indexing_sum(fgraph: Any, node: Apply) -> list[Any] | None:
    """``x[mask].sum()`` -> ``where(mask, x, 0).sum()`` (a full sum of a full-mask read)."""
    (arg,) = node.inputs
    read = arg.owner
    if read is None or not isinstance(read.op, AdvancedSubtensor):
        return None
    x, *idx = read.inputs
    mask = _full_mask(read.op, x, idx)
    if mask is None or node.op.axis not in (None, tuple(range(arg.type.ndim))):
        return None
    zero = as_tensor_variable(0).astype(x.type.dtype)
    out = switch(mask, x, zero).sum(dtype=node.outputs[0].type.dtype)
    return [out]


@node_rewriter([AdvancedIncSubtensor])
def boolean_indexing_set_or_inc(fgraph: Any, node: Apply) -> list[Any] | None:
    """``x[mask] = y`` / ``x[mask] += y`` with scalar ``y`` -> ``where(mask, ., x)``."""
    x, y, *idx = node.inputs
    mask = _full_mask(node.op, x, idx)
    if mask is None or y.type.ndim != 0:
        return None
    value = y if node.op.set_instead_of_inc else x + y
    out = switch(mask, value, x).astype(x.type.dtype)
    return [out]


def register_rewrites(db: Any) -> None:
    """Both rewrites, selected by the JAX mode's ``jax`` tag, before specialisation."""
    for rewrite in (boolean_indexing_sum, boolean_indexing_set_or_inc):
        db.register(f"jax_{rewrite.__name__}", in2out(rewrite), "jax", phase="post_specialize")
