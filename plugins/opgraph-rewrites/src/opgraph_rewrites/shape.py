"""What PyTensor code imports from ``pytensor.tensor.rewriting.shape``.

Besides the ShapeFeature (:mod:`opgraph_rewrites.shape_feature`) and the
useless-reshape rule (:mod:`opgraph_rewrites.useless`), the reshape rules
PyTensor names: new length-1 axes of a reshape become a DimShuffle, and a
DimShuffle that only adds or drops length-1 axes before a reshape is skipped
(the reshape reads the same elements in the same order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant
from opgraph.graph.rewriting.basic import GraphRewriter, node_rewriter
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.shape import (
    Reshape,
    Shape,
    Shape_i,
    SpecifyShape,
    reshape,
    specify_shape,
    static_int,
)
from opgraph.tensor.subtensor import IncSubtensor, Subtensor
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import constant
from opgraph_rewrites.basic_vectors import local_merge_consecutive_specify_shape, local_reshape_lift
from opgraph_rewrites.pytensor_names import local_reshape_chain
from opgraph_rewrites.shape_feature import ShapeFeature, ShapeOptimizer, shape_rewriters
from opgraph_rewrites.shape_feature import local_shape_to_shape_i as _shape_to_shape_i
from opgraph_rewrites.useless import _entries as vector_entries
from opgraph_rewrites.useless import local_useless_reshape as _useless_reshape
from opgraph_rewrites.utils import keep_type, order_with_new_axes

__all__ = [
    "ShapeFeature",
    "ShapeOptimizer",
    "UnShapeOptimizer",
    "local_Shape_i_ground",
    "local_fuse_expand_dims_reshape",
    "local_fuse_squeeze_reshape",
    "local_lift_specify_shape_elemwise",
    "local_lift_specify_shape_inc_subtensor",
    "local_merge_consecutive_specify_shape",
    "local_reshape_chain",
    "local_reshape_lift",
    "local_reshape_to_dimshuffle",
    "local_shape_ground",
    "local_shape_to_shape_i",
    "local_subtensor_of_shape",
    "local_useless_expand_dims_in_reshape",
    "local_useless_reshape",
    "local_useless_specify_shape",
    "reshape_rewriters",
    "shape_named_rewriters",
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
    x = node.inputs[0]
    values = [static_int(e) for e in entries]
    if x.type.ndim == 0 and values.count(-1) <= 1 and all(v in (1, -1) for v in values):
        # a scalar's one element: every length is 1, the -1 included
        new = DimShuffle(input_ndim=0, new_order=("x",) * len(entries))(x)
        fixed = keep_type(node.outputs[0], new)
        return [fixed] if fixed is not None else False
    ones = [k for k, v in enumerate(values) if v == 1]
    if not ones:
        return False
    rest = [e for k, e in enumerate(entries) if k not in ones]
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


@node_rewriter([Shape_i], name="local_Shape_i_ground")
def local_Shape_i_ground(fgraph: Any, node: Apply) -> Any:
    """Shape_i(i)(x) -> the constant length when ``x``'s type states it."""
    x = node.inputs[0]
    if not isinstance(x.type, TensorType):
        return None
    n = x.type.shape[node.op.i]
    if n is None:
        return None
    return [constant(np.asarray(n, dtype=node.outputs[0].type.dtype))]


@node_rewriter([Subtensor], name="local_subtensor_of_shape")
def local_subtensor_of_shape(fgraph: Any, node: Apply) -> Any:
    """shape(x)[i] -> Shape_i(i)(x) for a constant ``i`` in range (one scalar, no vector)."""
    src = node.inputs[0].owner
    if src is None or not isinstance(src.op, Shape) or len(node.inputs) != 2:
        return None
    if isinstance(node.op.idx_list[0], slice):
        return None
    i = static_int(node.inputs[1])
    ndim = src.inputs[0].type.ndim
    if i is None or not -ndim <= i < ndim:
        return None
    new = Shape_i(i % ndim)(src.inputs[0])
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else None


def _given(node: Apply) -> list[tuple[int, Any]]:
    """(axis, length variable) for each dimension a SpecifyShape node states."""
    dims = iter(node.inputs[1:])
    return [(axis, next(dims)) for axis, has in enumerate(node.op.given) if has]


@node_rewriter([SpecifyShape], name="local_lift_specify_shape_elemwise")
def local_lift_specify_shape_elemwise(fgraph: Any, node: Apply) -> Any:
    """specify_shape(f(x, b), s) -> f(specify_shape(x, s), b) for an Elemwise used only
    here, where ``b`` is broadcast (length 1) along the stated axes: the same lengths are
    checked, and the inputs that set them carry the static shape from the start."""
    src = node.inputs[0].owner
    if src is None or not isinstance(src.op, Elemwise) or len(src.outputs) != 1:
        return None
    if len(fgraph.clients.get(src.outputs[0], ())) != 1:
        return None
    given = _given(node)
    ndim = src.outputs[0].type.ndim
    new_inputs = []
    for inp in src.inputs:
        off = ndim - inp.type.ndim
        dims: list[Any] = [None] * inp.type.ndim
        for axis, length in given:
            if axis >= off and inp.type.shape[axis - off] != 1:
                dims[axis - off] = length
        if any(d is not None for d in dims):
            new_inputs.append(specify_shape(inp, dims))
        else:
            new_inputs.append(inp)
    for axis, _ in given:  # every stated axis must be set by some lifted input
        if all(i.type.ndim <= ndim - 1 - axis or i.type.shape[axis - ndim + i.type.ndim] == 1
               for i in src.inputs):
            return None
    fixed = keep_type(node.outputs[0], src.op(*new_inputs))
    return [fixed] if fixed is not None else None


@node_rewriter([SpecifyShape], name="local_lift_specify_shape_inc_subtensor")
def local_lift_specify_shape_inc_subtensor(fgraph: Any, node: Apply) -> Any:
    """specify_shape(x[idx].set(y), s) -> specify_shape(x, s)[idx].set(y): the write keeps
    ``x``'s shape, so the check moves to ``x`` (its static shape then reaches the write)."""
    src = node.inputs[0].owner
    if src is None or not isinstance(src.op, IncSubtensor):
        return None
    if len(fgraph.clients.get(src.outputs[0], ())) != 1:
        return None
    x, *rest = src.inputs
    dims: list[Any] = [None] * x.type.ndim
    for axis, length in _given(node):
        dims[axis] = length
    fixed = keep_type(node.outputs[0], src.op(specify_shape(x, dims), *rest))
    return [fixed] if fixed is not None else None


@node_rewriter([DimShuffle], name="local_fuse_expand_dims_reshape")
def local_fuse_expand_dims_reshape(fgraph: Any, node: Apply) -> Any:
    """reshape(x, (a, b)).dimshuffle(0, 1, 'x') -> reshape(x, (a, b, 1)): one reshape
    (undoes local_reshape_to_dimshuffle; the reshape must have no other client, as
    fusing could then cost a copy)."""
    op = node.op
    if not op.augment or op.drop or op.shuffle != tuple(range(op.input_ndim)):
        return None
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Reshape):
        return None
    if fgraph is not None and len(fgraph.clients.get(node.inputs[0], ())) != 1:
        return None
    entries = _shape_entries(inner)
    if entries is None:
        return None
    new_entries: list[Any] = list(entries)
    for axis in op.augment:
        new_entries.insert(axis, 1)
    new = reshape(inner.inputs[0], new_entries, ndim=len(new_entries))
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else None


_EMPTY_SHAPE = constant(np.zeros(0, dtype="int64"))


@node_rewriter([Shape], name="local_shape_ground")
def local_shape_ground(fgraph: Any, node: Apply) -> Any:
    """shape(x) -> a constant vector when x's type states every length."""
    (x,) = node.inputs
    static = getattr(x.type, "shape", None)
    if static is None or None in static:
        return None
    if not static:
        return [_EMPTY_SHAPE]
    return [constant(np.asarray(static, dtype="int64"))]


class UnShapeOptimizer(GraphRewriter):
    """Detaches the ShapeFeature (PyTensor's ``UnShapeOpt`` step, not run by default)."""

    def apply(self, fgraph: Any) -> None:
        for feature in list(getattr(fgraph, "_features", ())):
            if isinstance(feature, ShapeFeature):
                fgraph.remove_feature(feature)


def shape_named_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags) for PyTensor's shape rewrites outside
    canonicalize."""
    return {
        "canonicalize": [("local_shape_ground", local_shape_ground, ("shape",))],
        "specialize": [("local_fuse_expand_dims_reshape", local_fuse_expand_dims_reshape,
                        ("shape",)),
                       ("local_fuse_squeeze_reshape", local_fuse_squeeze_reshape, ("shape",))],
    }


def reshape_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase."""
    return [
        ("local_reshape_to_dimshuffle", local_reshape_to_dimshuffle, ("shape",)),
        ("local_useless_expand_dims_in_reshape", local_useless_expand_dims_in_reshape,
         ("shape",)),
        ("local_fuse_squeeze_reshape", local_fuse_squeeze_reshape, ("shape",)),
        ("local_useless_specify_shape", local_useless_specify_shape, ("fast_compile", "shape")),
        ("local_Shape_i_ground", local_Shape_i_ground, ("fast_compile", "shape")),
        ("local_subtensor_of_shape", local_subtensor_of_shape, ("fast_compile", "shape")),
        ("local_lift_specify_shape_elemwise", local_lift_specify_shape_elemwise,
         ("fast_compile", "shape")),
        ("local_lift_specify_shape_inc_subtensor", local_lift_specify_shape_inc_subtensor,
         ("fast_compile", "shape")),
    ]

local_shape_to_shape_i = _shape_to_shape_i()
