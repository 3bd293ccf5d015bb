"""Batching rules of the tensor Ops: each Op rebuilt with a leading batch axis.

``jacobian``/``hessian`` vectorise a gradient graph over a batch of unit
cotangents (see :mod:`opgraph.autodiff.vectorize`, which owns the table).  A
rule receives the node, its new inputs and which of them carry the batch
axis, and returns the new outputs and which of those carry it.  A rule may
raise ``NoBatchingRule`` for a case it does not cover (a batched index, a
symbolic axis); the node is then looped over rows by ``Batched``, which is
correct for every Op, only slower.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.autodiff.vectorize import NoBatchingRule, dims_of, register_batching_rule
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.tensor.advanced import AdvancedIncSubtensor, AdvancedSubtensor
from opgraph.tensor.creation import Alloc, alloc
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.indexing import SliceSpec
from opgraph.tensor.join import Join, Split, join, stack
from opgraph.tensor.math import eq, maximum, switch
from opgraph.tensor.products import Dot, MatMul, dot, matmul
from opgraph.tensor.reduction import Argmax, CAReduce, prod
from opgraph.tensor.shape import (
    MakeVector,
    Reshape,
    Shape,
    Shape_i,
    SpecifyShape,
    expand_dims,
    reshape,
    shape,
)
from opgraph.tensor.special import LogSoftmax, Softmax
from opgraph.tensor.subtensor import (
    AdvancedIncSubtensor1,
    AdvancedSubtensor1,
    IncSubtensor,
    Subtensor,
    inc_subtensor,
    set_subtensor,
)

__all__ = ["RULES"]

Result = tuple[list[Variable], list[bool]]


def _batch_length(ins: list[Variable], batched: list[bool]) -> Any:
    first = next(v for v, b in zip(ins, batched) if b)
    static = first.type.shape[0]
    return static if static is not None else first.shape[0]


def _broadcast(var: Variable, length: Any) -> Variable:
    """``var`` repeated along a new leading axis of ``length`` rows."""
    return alloc(var, length, *dims_of(var))


def _elemwise(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    # Unbatched inputs broadcast against the batch axis (Elemwise pads on the left),
    # but a batched input of lower rank than the row must be padded after its batch axis.
    ndim = node.outputs[0].type.ndim
    fixed = []
    for v, b, old in zip(ins, batched, node.inputs):
        if b and old.type.ndim < ndim:
            order = (0, *["x"] * (ndim - old.type.ndim), *range(1, old.type.ndim + 1))
            v = v.dimshuffle(*order)
        fixed.append(v)
    outs = type(node.op)(node.op.scalar_op)(*fixed, return_list=True)
    return outs, [True] * len(outs)


def _dimshuffle(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    op = node.op
    order = (0, *(o if o == "x" else int(o) + 1 for o in op.new_order))
    return [type(op)(input_ndim=op.input_ndim + 1, new_order=order)(ins[0])], [True]


def _careduce(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    op = node.op
    ndim = node.inputs[0].type.ndim
    axis = tuple(range(ndim)) if op.axis is None else tuple(a % ndim for a in op.axis)
    return [op._clone(tuple(a + 1 for a in axis))(ins[0])], [True]


def _argmax(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    op = node.op
    x = ins[0]
    ndim = node.inputs[0].type.ndim
    if op.axis is None or len(op.axis) != 1:
        # Over several (or all) axes: flatten each row first, then pick along axis 1.
        axes = tuple(range(ndim)) if op.axis is None else tuple(op.axis)
        if axes != tuple(range(ndim)):
            raise NoBatchingRule(f"{op} over a subset of several axes")
        x = reshape(x, (_batch_length(ins, batched), _row_size(x)), ndim=2)
        return [type(op)((1,))(x)], [True]
    return [type(op)((op.axis[0] % ndim + 1,))(x)], [True]


def _dot(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    a, b = ins
    a_nd, b_nd = (v.type.ndim for v in node.inputs)
    if batched[0] and batched[1]:
        if a_nd == 2 and b_nd == 2:
            return [matmul(a, b)], [True]
        if a_nd == 1 and b_nd == 1:
            return [(a * b).sum(axis=1)], [True]
        raise NoBatchingRule(f"{node.op} with both inputs batched")
    if batched[0]:
        return [matmul(a, b) if a_nd == 2 else dot(a, b)], [True]
    if b_nd == 2:
        return [matmul(a, b)], [True]
    if a_nd == 1:
        return [dot(b, a)], [True]
    return [dot(b, a.T)], [True]


def _matmul(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    if any(v.type.ndim < 2 for v in node.inputs):
        raise NoBatchingRule(f"{node.op} on 1-d inputs")
    a, b = ins
    if not batched[0] and a.type.ndim > 2:
        a = expand_dims(a, 0)
    if not batched[1] and b.type.ndim > 2:
        b = expand_dims(b, 0)
    return [matmul(a, b)], [True]


def _row_size(x: Variable) -> Variable:
    """The number of elements of one row of the batched ``x``."""
    return prod(shape(x)[1:])


def _reshape(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    if batched[1]:
        raise NoBatchingRule(f"{node.op} with a batched shape")
    x, new_shape = ins
    ndim = node.outputs[0].type.ndim
    # A -1 in the row's shape is resolved against the row size here: with an empty
    # batch NumPy could not infer it from (0, -1).
    known = prod(switch(eq(new_shape, -1), 1, new_shape))
    resolved = switch(eq(new_shape, -1), _row_size(x) // maximum(known, 1), new_shape)
    dims = [x.shape[0], *(resolved[i] for i in range(ndim))]
    return [reshape(x, dims, ndim=ndim + 1)], [True]


def _shape_i(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    return [type(node.op)(node.op.i + 1)(ins[0])], [False]


def _shape(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    # Every row has the same shape; the result still has one row per batch entry, as
    # PyTensor's vectorize gives it (np.vectorize(np.shape) would too).
    x = ins[0]
    n = node.outputs[0].type.shape[0]
    return [alloc(shape(x)[1:], *shape(x)[:1], n)], [True]


def _subtensor(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    if any(batched[1:]):
        raise NoBatchingRule(f"{node.op} with a batched index")
    op = type(node.op)((SliceSpec(), *node.op.idx_spec))
    return [op(*ins)], [True]


def _inc_subtensor(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    if any(batched[2:]):
        raise NoBatchingRule(f"{node.op} with a batched index")
    x, y, *idx = ins
    length = _batch_length(ins, batched)
    if not batched[0]:
        x = _broadcast(x, length)
    if batched[1]:
        # The row's region has the rank of x[idx]; pad y after its batch axis to match.
        region_ndim = node.inputs[0].type.ndim - sum(
            1 for e in node.op.idx_spec if not isinstance(e, SliceSpec))
        y_row_ndim = node.inputs[1].type.ndim
        if y_row_ndim < region_ndim:
            y = y.dimshuffle(0, *["x"] * (region_ndim - y_row_ndim), *range(1, y_row_ndim + 1))
    op = type(node.op)((SliceSpec(), *node.op.idx_spec),
                       set_instead_of_inc=node.op.set_instead_of_inc)
    return [op(x, y, *idx)], [True]


def _advanced_subtensor1(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    if batched[1]:
        raise NoBatchingRule(f"{node.op} with a batched index")
    x, ilist = ins
    return [x[:, ilist]], [True]


def _advanced_inc_subtensor1(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    if batched[2]:
        raise NoBatchingRule(f"{node.op} with a batched index")
    x, y, ilist = ins
    if not batched[0]:
        x = _broadcast(x, _batch_length(ins, batched))
    x_row_ndim, y_row_ndim = node.inputs[0].type.ndim, node.inputs[1].type.ndim
    if batched[1] and y_row_ndim < x_row_ndim:
        y = y.dimshuffle(0, *["x"] * (x_row_ndim - y_row_ndim), *range(1, y_row_ndim + 1))
    update = set_subtensor if node.op.set_instead_of_inc else inc_subtensor
    return [update(x[:, ilist], y)], [True]


def _advanced_block_is_contiguous(idx_list: tuple) -> bool:
    """Whether the array/int entries are adjacent: NumPy then keeps their result in
    place (else it moves it first, which a leading batch axis would change)."""
    where = [k for k, e in enumerate(idx_list) if not isinstance(e, SliceSpec)]
    return not where or where == list(range(where[0], where[-1] + 1))


def _advanced_subtensor(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    if any(batched[1:]) or not _advanced_block_is_contiguous(node.op.idx_spec):
        raise NoBatchingRule(f"{node.op} with a batched or non-adjacent index")
    return [type(node.op)((SliceSpec(), *node.op.idx_spec))(*ins)], [True]


def _advanced_inc_subtensor(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    op = node.op
    if any(batched[2:]) or not _advanced_block_is_contiguous(op.idx_spec):
        raise NoBatchingRule(f"{op} with a batched or non-adjacent index")
    x, y, *idx = ins
    if not batched[0]:
        x = _broadcast(x, _batch_length(ins, batched))
    region_ndim = op.read_op()(node.inputs[0], *node.inputs[2:]).type.ndim
    y_row_ndim = node.inputs[1].type.ndim
    if batched[1] and y_row_ndim < region_ndim:
        y = y.dimshuffle(0, *["x"] * (region_ndim - y_row_ndim), *range(1, y_row_ndim + 1))
    new = type(op)((SliceSpec(), *op.idx_spec), set_instead_of_inc=op.set_instead_of_inc)
    return [new(x, y, *idx)], [True]


def _alloc(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    if any(batched[1:]):
        raise NoBatchingRule(f"{node.op} with a batched shape")
    value, *dims = ins
    out_ndim = node.outputs[0].type.ndim
    row_ndim = node.inputs[0].type.ndim
    if row_ndim < out_ndim:
        value = value.dimshuffle(0, *["x"] * (out_ndim - row_ndim), *range(1, row_ndim + 1))
    return [alloc(value, _batch_length(ins, batched), *dims)], [True]


def _join(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    axis = node.inputs[0]
    if batched[0] or not isinstance(axis, Constant):
        raise NoBatchingRule(f"{node.op} with a symbolic or batched axis")
    ndim = node.outputs[0].type.ndim
    a = int(np.asarray(axis.data)) % ndim
    length = _batch_length(ins, batched)
    parts = [t if b else _broadcast(t, length) for t, b in zip(ins[1:], batched[1:])]
    return [join(a + 1, *parts)], [True]


def _specify_shape(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    if any(batched[1:]):
        raise NoBatchingRule(f"{node.op} with a batched shape")
    return [type(node.op)((False, *node.op.given))(*ins)], [True]


def _split(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    axis = node.inputs[1]
    if batched[1] or batched[2] or not isinstance(axis, Constant):
        raise NoBatchingRule(f"{node.op} with a symbolic or batched axis or sizes")
    a = int(np.asarray(axis.data)) % node.inputs[0].type.ndim
    outs = type(node.op)(node.op.len_splits)(ins[0], a + 1, ins[2], return_list=True)
    return outs, [True] * len(outs)


def _make_vector(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    length = _batch_length(ins, batched)
    parts = [v if b else _broadcast(v, length) for v, b in zip(ins, batched)]
    out = stack(parts, axis=1)
    dtype = node.outputs[0].type.dtype
    return [out if out.type.dtype == dtype else out.astype(dtype)], [True]


def _softmax(node: Apply, ins: list[Variable], batched: list[bool]) -> Result:
    op = node.op
    if op.axis is None:
        raise NoBatchingRule(f"{op} over all axes")
    ndim = node.inputs[0].type.ndim
    return [type(op)(axis=op.axis % ndim + 1)(ins[0])], [True]


#: The tensor library's rules, registered in the autodiff table at import.
RULES: dict[type, Any] = {
    Elemwise: _elemwise, DimShuffle: _dimshuffle, CAReduce: _careduce, Argmax: _argmax,
    Dot: _dot, MatMul: _matmul, Reshape: _reshape, Shape_i: _shape_i, Shape: _shape,
    Subtensor: _subtensor, IncSubtensor: _inc_subtensor, Alloc: _alloc, Join: _join,
    AdvancedSubtensor1: _advanced_subtensor1, AdvancedIncSubtensor1: _advanced_inc_subtensor1,
    AdvancedSubtensor: _advanced_subtensor, AdvancedIncSubtensor: _advanced_inc_subtensor,
    MakeVector: _make_vector, Softmax: _softmax, LogSoftmax: _softmax,
    SpecifyShape: _specify_shape, Split: _split,
}

for _cls, _rule in RULES.items():
    register_batching_rule(_cls, _rule)
