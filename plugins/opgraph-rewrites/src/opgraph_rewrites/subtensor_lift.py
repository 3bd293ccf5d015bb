"""What PyTensor code imports from ``pytensor.tensor.rewriting.subtensor_lift``: basic
indexing moved towards the inputs, so less is computed and index/shape
arithmetic folds.

- ``elemwise(x, y)[idx] -> elemwise(x[idx'], y[idx'])`` (one client only);
- ``expand_dims(x)[idx] -> expand_dims(x[idx'])``;
- ``make_vector(a, b, c)[1] -> b`` and constant slices of it;
- ``shape(x)[i]`` -> the static length, when the type knows it;
- ``specify_shape(x, (a, b))[i] -> specify_shape(specify_shape(x, (a, None))[i], (b,))``:
  the rest of the assertion moves to the smaller result; the indexed axes keep
  theirs (PyTensor drops it).

Each keeps NumPy's result, including its index errors: an index is dropped
only on an axis where the value is length 1 and another input still
receives (and checks) the index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.config import config
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.creation import arange
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.reduction import CAReduce, Prod, Sum
from opgraph.tensor.shape import (
    MakeVector,
    Shape,
    SpecifyShape,
    make_vector,
    specify_shape,
    static_int,
)
from opgraph.tensor.special import LogSoftmax, Softmax
from opgraph.tensor.subtensor import Subtensor, get_item
from opgraph.tensor.variable import constant
from opgraph_rewrites.extract_diag import (
    extract_diag_lift_pass,
    local_extract_diag_lift,
    local_extract_diag_of_alloc,
    local_extract_diag_of_alloc_diag,
    local_extract_diag_of_eye,
)
from opgraph_rewrites.subtensor_alloc import (
    lift_subtensor_through_alloc,
    local_basic_subtensor_of_alloc,
    local_subtensor_of_alloc,
)
from opgraph_rewrites.subtensor_index_entries import basic_index
from opgraph_rewrites.subtensor_lift_more import (
    local_subtensor_of_adv_subtensor,
    local_subtensor_of_dot,
    local_subtensor_of_join,
    local_subtensor_of_squeeze,
)
from opgraph_rewrites.utils import keep_type

__all__ = [
    "_diag_indices",
    "basic_index",
    "extract_diag_lift_pass",
    "lift_subtensor_through_alloc",
    "local_basic_subtensor_of_alloc",
    "local_extract_diag_lift",
    "local_extract_diag_of_alloc",
    "local_extract_diag_of_alloc_diag",
    "local_extract_diag_of_eye",
    "local_subtensor_SpecifyShape_lift",
    "local_subtensor_make_vector",
    "local_subtensor_of_adv_subtensor",
    "local_subtensor_of_alloc",
    "local_subtensor_of_batch_dims",
    "local_subtensor_of_dot",
    "local_subtensor_of_expand_dims",
    "local_subtensor_of_join",
    "local_subtensor_of_reduce",
    "local_subtensor_of_softmax",
    "local_subtensor_of_squeeze",
    "local_subtensor_of_transpose",
    "local_subtensor_shape_constant",
    "subtensor_lift_rewriters",
]


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


def _lift_through_dimshuffle(node: Apply) -> Any:
    """x.dimshuffle(order)[idx] -> x[idx'].dimshuffle(order') (no dropped axes)."""
    ds = node.inputs[0].owner
    if ds is None or not isinstance(ds.op, DimShuffle) or ds.op.drop:
        return None
    x = ds.inputs[0]
    index = basic_index(node)
    index += [slice(None)] * (len(ds.op.new_order) - len(index))
    x_index: list[Any] = [slice(None)] * x.type.ndim
    layout: list[Any] = []  # per result axis: "x" (new) or the x axis it comes from
    for order, entry in zip(ds.op.new_order, index):
        if order == "x":
            if isinstance(entry, slice):
                if not _is_full(entry):
                    return None
                layout.append("x")
            elif static_int(entry) not in (0, -1):
                return None
        else:
            x_index[order] = entry
            if isinstance(entry, slice):
                layout.append(order)
    while x_index and _is_full(x_index[-1]):
        x_index.pop()
    core = get_item(x, tuple(x_index)) if x_index else x
    kept = sorted(a for a in layout if a != "x")
    new_order = tuple("x" if a == "x" else kept.index(a) for a in layout)
    if new_order == tuple(range(core.type.ndim)):
        return _fixed(node, core)
    return _fixed(node, DimShuffle(input_ndim=core.type.ndim, new_order=new_order)(core))


@node_rewriter([Subtensor], name="local_subtensor_of_expand_dims")
def local_subtensor_of_expand_dims(fgraph: Any, node: Apply) -> Any:
    """x.dimshuffle(0, 'x', 1)[i, :, j:] -> x[i, j:].dimshuffle('x', 0).

    An integer on a new axis must be a constant 0 or -1 (any other value is an
    index error the original raises); a slice of a new axis must be whole.
    """
    ds = node.inputs[0].owner
    if ds is None or not isinstance(ds.op, DimShuffle) or not ds.op.augment:
        return None
    kept = [o for o in ds.op.new_order if o != "x"]
    if kept != sorted(kept):
        return None
    return _lift_through_dimshuffle(node)


@node_rewriter([Subtensor], name="local_subtensor_of_transpose")
def local_subtensor_of_transpose(fgraph: Any, node: Apply) -> Any:
    """x.T[i] -> x[:, i].T: index the transposed axes of x directly."""
    ds = node.inputs[0].owner
    if ds is None or not isinstance(ds.op, DimShuffle) or not ds.op.is_transpose:
        return None
    return _lift_through_dimshuffle(node)


def _regroup_is_exact(op: Any, length: int | None) -> bool:
    """Reducing the same elements of a sliced array keeps the result bit for bit: always
    for max/min/all/any; for sums and products when NumPy adds the reduced elements one
    by one either way (fewer than 8 of them: its pairwise summation starts at 8)."""
    if not isinstance(op, Sum | Prod) and not isinstance(op, Softmax | LogSoftmax):
        return True
    return config.fast_math or (length is not None and length < 8)


@node_rewriter([Subtensor], name="local_subtensor_of_reduce")
def local_subtensor_of_reduce(fgraph: Any, node: Apply) -> Any:
    """sum(x, axis=1)[i, j:] -> sum(x[i, :, j:], axis=0): index the kept axes first."""
    red = node.inputs[0].owner
    if red is None or not isinstance(red.op, CAReduce):
        return None
    if fgraph is not None and len(fgraph.clients.get(node.inputs[0], ())) != 1:
        return None
    x = red.inputs[0]
    axes = red.op.axis if red.op.axis is not None else tuple(range(x.type.ndim))
    lengths = [x.type.shape[a] for a in axes]
    total = None if None in lengths else int(np.prod(lengths))
    if not _regroup_is_exact(red.op, total):
        return None
    kept = [a for a in range(x.type.ndim) if a not in axes]
    index = basic_index(node)
    x_index: list[Any] = [slice(None)] * x.type.ndim
    for a, entry in zip(kept, index):
        x_index[a] = entry
    dropped = {a for a, e in zip(kept, index) if not isinstance(e, slice)}
    new_axes = tuple(a - sum(1 for d in dropped if d < a) for a in axes)
    return _fixed(node, red.op._clone(new_axes)(get_item(x, tuple(x_index))))


@node_rewriter([Subtensor], name="local_subtensor_of_softmax")
def local_subtensor_of_softmax(fgraph: Any, node: Apply) -> Any:
    """softmax(x, axis=1)[0] -> softmax(x[0], axis=0) when the index leaves the softmax
    axis whole; an index on that axis stays outside."""
    sm = node.inputs[0].owner
    if sm is None or not isinstance(sm.op, Softmax | LogSoftmax) or sm.op.axis is None:
        return None
    if fgraph is not None and len(fgraph.clients.get(node.inputs[0], ())) != 1:
        return None
    x = sm.inputs[0]
    axis = sm.op.axis % x.type.ndim
    if not _regroup_is_exact(sm.op, x.type.shape[axis]):
        return None
    index = basic_index(node)
    index += [slice(None)] * (x.type.ndim - len(index))
    if _is_full(index[axis]) and all(_is_full(e) for e in index):
        return None
    inner = [slice(None) if k == axis else e for k, e in enumerate(index)]
    outer_entry = index[axis]
    if all(_is_full(e) for e in inner):
        return None  # only the softmax axis is indexed: nothing to lift
    new_axis = axis - sum(1 for k, e in enumerate(index) if k < axis and not isinstance(e, slice))
    lifted = type(sm.op)(axis=new_axis)(get_item(x, tuple(inner)))
    if _is_full(outer_entry):
        return _fixed(node, lifted)
    outer = [slice(None)] * new_axis + [outer_entry]
    return _fixed(node, get_item(lifted, tuple(outer)))


@node_rewriter([Subtensor], name="local_subtensor_make_vector")
def local_subtensor_make_vector(fgraph: Any, node: Apply) -> Any:
    """make_vector(a, b, c)[1] -> b; make_vector(a, b, c)[1:] -> make_vector(b, c)."""
    vec = node.inputs[0].owner
    if vec is None or not isinstance(vec.op, MakeVector):
        return None
    index = basic_index(node)
    if not index:  # v[()] is v
        return _fixed(node, node.inputs[0])
    (entry,) = index
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


def _specified_dims(node: Apply) -> list[Any]:
    """A SpecifyShape node's asserted length per axis (None where not given)."""
    dims = iter(node.inputs[1:])
    return [next(dims) if given else None for given in node.op.given]


@node_rewriter([Subtensor], name="local_subtensor_SpecifyShape_lift")
def local_subtensor_SpecifyShape_lift(fgraph: Any, node: Apply) -> Any:
    """specify_shape(x, (a, b, c))[i] -> specify_shape(specify_shape(x, (a, None,
    None))[i], (b, c)): integer indices only; the assertion of the indexed axes stays
    on ``x`` (so a wrong length still raises)."""
    spec = node.inputs[0].owner
    if spec is None or not isinstance(spec.op, SpecifyShape):
        return None
    index = basic_index(node)
    if any(isinstance(e, slice) for e in index):
        return None
    x = spec.inputs[0]
    dims = _specified_dims(spec)
    k = len(index)
    rest = dims[k:]
    if all(d is None for d in rest):
        return None  # nothing to lift (and the inner form of this rewrite itself)
    head = dims[:k] + [None] * (x.type.ndim - k)
    base = specify_shape(x, head) if any(d is not None for d in head) else x
    inner = get_item(base, tuple(index))
    return _fixed(node, specify_shape(inner, rest))


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
        ("local_subtensor_of_transpose", local_subtensor_of_transpose, ()),
        ("local_subtensor_of_reduce", local_subtensor_of_reduce, ()),
        ("local_subtensor_of_softmax", local_subtensor_of_softmax, ()),
        ("local_subtensor_make_vector", local_subtensor_make_vector, ("fast_compile",)),
        ("local_subtensor_SpecifyShape_lift", local_subtensor_SpecifyShape_lift, ()),
        ("local_subtensor_shape_constant", local_subtensor_shape_constant,
         ("fast_compile", "shape")),
    ]

