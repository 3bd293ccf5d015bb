"""What PyTensor code imports from ``pytensor.tensor.rewriting.reshape``: ``join_dims``
and ``split_dims`` lowered to the general reshape (which the shape rewrites and every
backend know), or to something simpler when they only add, drop or restate an axis.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.basic import constant
from opgraph.tensor.reshape import JoinDims, SplitDims
from opgraph.tensor.shape import expand_dims, reshape, shape, specify_shape, squeeze
from opgraph_rewrites.useless import _entries as vector_entries
from opgraph_rewrites.utils import keep_type

__all__ = [
    "local_join_dims",
    "local_join_dims_to_reshape",
    "local_split_dims",
    "local_split_dims_to_reshape",
    "reshape_dims_rewriters",
]


def _length(x: Variable, axis: int) -> Any:
    """Axis ``axis`` of ``x`` as a constant when its static length is known (the
    reshape's static shape then stays known), else a symbolic ``x.shape[axis]``."""
    n = x.type.shape[axis]
    return constant(n, dtype="int64") if n is not None else shape(x)[axis]


def _replace(node: Apply, new: Variable) -> list[Variable] | None:
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else None


@node_rewriter([JoinDims], name="local_join_dims_to_reshape")
def local_join_dims_to_reshape(fgraph: Any, node: Apply) -> Any:
    """join_dims(x, start, n) -> x (n == 1), expand_dims(x, start) (n == 0), else a reshape
    to ``x.shape[:start] + (prod(x.shape[start:start + n]),) + x.shape[start + n:]``."""
    (x,) = node.inputs
    start, n = node.op.start_axis, node.op.n_axes
    if n == 1:
        return _replace(node, x)
    if n == 0:
        return _replace(node, expand_dims(x, start))
    end = start + n
    middle = x.type.shape[start:end]
    if None not in middle:
        joined: Any = constant(int(_prod(middle)), dtype="int64")
    else:
        joined = _prod([_length(x, k) for k in range(start, end)])
    dims = [*(_length(x, k) for k in range(start)), joined,
            *(_length(x, k) for k in range(end, x.type.ndim))]
    return _replace(node, reshape(x, dims, ndim=len(dims)))


def _prod(items: Any) -> Any:
    out = items[0]
    for item in items[1:]:
        out = out * item
    return out


@node_rewriter([SplitDims], name="local_split_dims_to_reshape")
def local_split_dims_to_reshape(fgraph: Any, node: Apply) -> Any:
    """split_dims(x, (), axis) -> squeeze(x, axis); split_dims(x, (n,), axis) ->
    specify_shape(x, n at axis); otherwise a reshape that splits the axis."""
    x, shp = node.inputs
    axis = node.op.axis
    entries = vector_entries(shp)
    if entries is None:
        entries = [shp[i] for i in range(shp.type.shape[0])]
    if not entries:
        return _replace(node, squeeze(x, axis=axis))
    if len(entries) == 1:
        given = [None] * x.type.ndim
        given[axis] = entries[0]
        return _replace(node, specify_shape(x, given))
    dims = [*(_length(x, k) for k in range(axis)), *entries,
            *(_length(x, k) for k in range(axis + 1, x.type.ndim))]
    return _replace(node, reshape(x, dims, ndim=len(dims)))


def reshape_dims_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase."""
    return [
        ("local_join_dims_to_reshape", local_join_dims_to_reshape, ("fast_compile", "shape")),
        ("local_split_dims_to_reshape", local_split_dims_to_reshape, ("fast_compile", "shape")),
    ]

#: PyTensor's names for the same rewrites.
local_join_dims = local_join_dims_to_reshape
local_split_dims = local_split_dims_to_reshape
