"""What PyTensor code imports from ``pytensor.tensor.rewriting.shape``.

Besides the ShapeFeature (:mod:`opgraph_rewrites.shape_feature`) and the
useless-reshape rule (:mod:`opgraph_rewrites.useless`), the reshape rules
PyTensor names: new length-1 axes of a reshape become a DimShuffle, and a
DimShuffle that only adds or drops length-1 axes before a reshape is skipped
(the reshape reads the same elements in the same order).
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Constant
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.shape import Reshape, SpecifyShape, reshape, static_int
from opgraph_rewrites.shape_feature import ShapeFeature, ShapeOptimizer, shape_rewriters
from opgraph_rewrites.useless import _entries as vector_entries
from opgraph_rewrites.useless import local_useless_reshape as _useless_reshape
from opgraph_rewrites.utils import keep_type, order_with_new_axes

__all__ = [
    "ShapeFeature",
    "ShapeOptimizer",
    "local_fuse_squeeze_reshape",
    "local_reshape_to_dimshuffle",
    "local_useless_expand_dims_in_reshape",
    "local_useless_reshape",
    "local_useless_specify_shape",
    "reshape_rewriters",
    "shape_rewriters",
]

local_useless_reshape = _useless_reshape()


def _shape_entries(node: Apply) -> list[Any] | None:
    """The entries of a Reshape's shape vector (variables), when they can be read."""
    return vector_entries(node.inputs[1])


@node_rewriter([Reshape], name="local_reshape_to_dimshuffle")
def local_reshape_to_dimshuffle(fgraph: Any, node: Apply) -> Any:
    """reshape(x, (1, a, 1, b)) -> reshape(x, (a, b)).dimshuffle('x', 0, 'x', 1)."""
    entries = _shape_entries(node)
    if entries is None or len(entries) != node.op.ndim:
        return False
    ones = [k for k, e in enumerate(entries) if static_int(e) == 1]
    if not ones:
        return False
    rest = [e for k, e in enumerate(entries) if k not in ones]
    x = node.inputs[0]
    core = reshape(x, rest, ndim=len(rest)) if rest or x.type.ndim else x
    order = order_with_new_axes(len(entries), ones)
    new = DimShuffle(input_ndim=core.type.ndim, new_order=order)(core)
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else False


def _inner_dimshuffle(node: Apply) -> DimShuffle | None:
    inner = node.inputs[0].owner
    return inner if inner is not None and isinstance(inner.op, DimShuffle) else None


def _reshape_of(node: Apply, x: Any) -> Any:
    new = node.op(x, node.inputs[1])
    return keep_type(node.outputs[0], new)


@node_rewriter([Reshape], name="local_useless_expand_dims_in_reshape")
def local_useless_expand_dims_in_reshape(fgraph: Any, node: Apply) -> Any:
    """reshape(x.dimshuffle('x', 0, 'x', 1), shp) -> reshape(x, shp): new length-1 axes
    do not change the order of the elements a reshape reads (a transpose is kept)."""
    inner = _inner_dimshuffle(node)
    if inner is None or not inner.op.augment:
        return False
    x = inner.inputs[0]
    order = tuple(o for o in inner.op.new_order if o != "x")
    src = x if order == tuple(range(x.type.ndim)) else DimShuffle(
        input_ndim=x.type.ndim, new_order=order)(x)
    fixed = _reshape_of(node, src)
    return [fixed] if fixed is not None else False


@node_rewriter([Reshape], name="local_fuse_squeeze_reshape")
def local_fuse_squeeze_reshape(fgraph: Any, node: Apply) -> Any:
    """reshape(x.squeeze(axes), shp) -> reshape(x, shp) when the squeeze keeps the order."""
    inner = _inner_dimshuffle(node)
    if inner is None or inner.op.augment or not inner.op.drop:
        return False
    kept = inner.op.shuffle
    if list(kept) != sorted(kept):
        return False
    fixed = _reshape_of(node, inner.inputs[0])
    return [fixed] if fixed is not None else False


@node_rewriter([SpecifyShape], name="local_useless_specify_shape")
def local_useless_specify_shape(fgraph: Any, node: Apply) -> Any:
    """specify_shape(x, dims) -> x when x's static type already states every given dim."""
    x, *dims = node.inputs
    given = [axis for axis, has in enumerate(node.op.given) if has]
    for axis, d in zip(given, dims):
        if not isinstance(d, Constant) and static_int(d) is None:
            return None
        if x.type.shape[axis] is None or static_int(d) != x.type.shape[axis]:
            return None
    if x.type != node.outputs[0].type:
        return None
    return [x]


def reshape_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase."""
    return [
        ("local_reshape_to_dimshuffle", local_reshape_to_dimshuffle, ("shape",)),
        ("local_useless_expand_dims_in_reshape", local_useless_expand_dims_in_reshape,
         ("shape",)),
        ("local_fuse_squeeze_reshape", local_fuse_squeeze_reshape, ("shape",)),
        ("local_useless_specify_shape", local_useless_specify_shape, ("fast_compile", "shape")),
    ]
