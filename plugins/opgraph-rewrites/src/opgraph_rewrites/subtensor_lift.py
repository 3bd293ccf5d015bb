"""What PyTensor code imports from ``pytensor.tensor.rewriting.subtensor_lift``: basic
indexing moved towards the inputs, so less is computed and index/shape
arithmetic folds.

- ``elemwise(x, y)[idx] -> elemwise(x[idx'], y[idx'])`` (one client only);
- ``expand_dims(x)[idx] -> expand_dims(x[idx'])``;
- ``make_vector(a, b, c)[1] -> b`` and constant slices of it;
- ``shape(x)[i]`` -> the static length, when the type knows it.

Each keeps NumPy's result, including its index errors: an index is dropped
only on an axis where the value is length 1 and another input still
receives (and checks) the index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.creation import arange
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.indexing import SliceSpec, split_inputs
from opgraph.tensor.shape import MakeVector, Shape, make_vector, static_int
from opgraph.tensor.subtensor import Subtensor, get_item
from opgraph.tensor.variable import constant
from opgraph_rewrites.utils import keep_type

__all__ = [
    "_diag_indices",
    "basic_index",
    "local_subtensor_make_vector",
    "local_subtensor_of_batch_dims",
    "local_subtensor_of_expand_dims",
    "local_subtensor_shape_constant",
    "subtensor_lift_rewriters",
]


def basic_index(node: Apply) -> list[Any]:
    """A Subtensor node's index as Python entries: index variables and slices of them."""
    parts = split_inputs(node.op.idx_list, node.inputs[1:])
    return [slice(*p) if isinstance(e, SliceSpec) else p
            for e, p in zip(node.op.idx_list, parts)]


def _is_full(entry: Any) -> bool:
    return isinstance(entry, slice) and entry == slice(None)


def _fixed(node: Apply, new: Variable) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else None


@node_rewriter([Subtensor], name="local_subtensor_of_batch_dims")
def local_subtensor_of_batch_dims(fgraph: Any, node: Apply) -> Any:
    """elemwise(x, y)[idx] -> elemwise(x[idx], y[idx]), broadcast axes left whole."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Elemwise) or len(inner.outputs) != 1:
        return None
    if fgraph is not None and len(fgraph.clients.get(node.inputs[0], ())) != 1:
        return None
    index = basic_index(node)
    out_shape = inner.outputs[0].type.shape
    new_inputs = []
    for x in inner.inputs:
        x_index = []
        for axis, entry in enumerate(index):
            if x.type.shape[axis] == 1 and out_shape[axis] != 1:
                # x broadcasts here; another input takes (and checks) the index
                x_index.append(slice(None) if isinstance(entry, slice) else 0)
            else:
                x_index.append(entry)
        new_inputs.append(get_item(x, tuple(x_index)))
    return _fixed(node, inner.op(*new_inputs))


@node_rewriter([Subtensor], name="local_subtensor_of_expand_dims")
def local_subtensor_of_expand_dims(fgraph: Any, node: Apply) -> Any:
    """x.dimshuffle(0, 'x', 1)[i, :, j:] -> x[i, j:].dimshuffle('x', 0).

    An integer on a new axis must be a constant 0 or -1 (any other value is an
    index error the original raises); a slice of a new axis must be whole.
    """
    ds = node.inputs[0].owner
    if ds is None or not isinstance(ds.op, DimShuffle) or ds.op.drop:
        return None
    kept = [o for o in ds.op.new_order if o != "x"]
    if kept != sorted(kept) or not ds.op.augment:
        return None
    x = ds.inputs[0]
    index = basic_index(node)
    index += [slice(None)] * (len(ds.op.new_order) - len(index))
    x_index: list[Any] = []
    layout: list[str] = []  # per output axis of the result: "x" (new) or "v" (from x)
    for order, entry in zip(ds.op.new_order, index):
        if order == "x":
            if isinstance(entry, slice):
                if not _is_full(entry):
                    return None
                layout.append("x")
            elif static_int(entry) not in (0, -1):
                return None
        else:
            x_index.append(entry)
            if isinstance(entry, slice):
                layout.append("v")
    core = get_item(x, tuple(x_index))
    new_order: list[Any] = []
    j = 0
    for kind in layout:
        if kind == "x":
            new_order.append("x")
        else:
            new_order.append(j)
            j += 1
    new = core if "x" not in new_order else DimShuffle(
        input_ndim=core.type.ndim, new_order=tuple(new_order))(core)
    return _fixed(node, new)


@node_rewriter([Subtensor], name="local_subtensor_make_vector")
def local_subtensor_make_vector(fgraph: Any, node: Apply) -> Any:
    """make_vector(a, b, c)[1] -> b; make_vector(a, b, c)[1:] -> make_vector(b, c)."""
    vec = node.inputs[0].owner
    if vec is None or not isinstance(vec.op, MakeVector):
        return None
    (entry,) = basic_index(node)
    elements = list(vec.inputs)
    if isinstance(entry, slice):
        bounds = [None if p is None else static_int(p) for p in (entry.start, entry.stop,
                                                                 entry.step)]
        if any(p is not None and b is None for p, b in zip((entry.start, entry.stop,
                                                            entry.step), bounds)):
            return None
        chosen = elements[slice(*bounds)]
        return _fixed(node, make_vector(*chosen, dtype=vec.outputs[0].type.dtype))
    i = static_int(entry)
    if i is None or not -len(elements) <= i < len(elements):
        return None
    return _fixed(node, elements[i])


@node_rewriter([Subtensor], name="local_subtensor_shape_constant")
def local_subtensor_shape_constant(fgraph: Any, node: Apply) -> Any:
    """shape(x)[i] -> the static length of axis i; shape(x)[a:b] -> a constant vector
    when every length taken is static."""
    shp = node.inputs[0].owner
    if shp is None or not isinstance(shp.op, Shape):
        return None
    static = shp.inputs[0].type.shape
    (entry,) = basic_index(node)
    if isinstance(entry, slice):
        parts = (entry.start, entry.stop, entry.step)
        bounds = [None if p is None else static_int(p) for p in parts]
        if any(p is not None and b is None for p, b in zip(parts, bounds)):
            return None
        chosen = static[slice(*bounds)]
        if any(s is None for s in chosen):
            return None
        return _fixed(node, constant(np.asarray(chosen, dtype="int64")))
    i = static_int(entry)
    if i is None or not -len(static) <= i < len(static) or static[i] is None:
        return None
    return _fixed(node, constant(np.int64(static[i])))


def _diag_indices(ndim: int, axis1: int, axis2: int, d: Any, row_off: int = 0,
                  col_off: int = 0) -> list[Any]:
    """The index tuple reading the diagonal (length ``d``, starting at ``(row_off,
    col_off)``) of axes ``axis1``/``axis2`` of an ``ndim``-d tensor."""
    ar = arange(d, dtype="int64")
    idx: list[Any] = [slice(None)] * ndim
    idx[axis1] = ar + row_off if row_off else ar
    idx[axis2] = ar + col_off if col_off else ar
    return idx


def subtensor_lift_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase."""
    return [
        ("local_subtensor_of_batch_dims", local_subtensor_of_batch_dims, ()),
        ("local_subtensor_of_expand_dims", local_subtensor_of_expand_dims, ()),
        ("local_subtensor_make_vector", local_subtensor_make_vector, ("fast_compile",)),
        ("local_subtensor_shape_constant", local_subtensor_shape_constant,
         ("fast_compile", "shape")),
    ]

