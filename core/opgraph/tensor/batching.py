"""Batching rules of the tensor Ops: each Op rebuilt with leading batch axes.

``vectorize_graph``, ``jacobian``/``hessian`` and Blockwise gradients rebuild a
graph over batched inputs through the one batching table
(:data:`opgraph.graph.replace.BATCHING_RULES`).  A rule receives the node, its
new inputs and how many new leading axes each carries, and returns the new
outputs.  Rules written for one axis start with ``one_batch_axis``; a rule
raises ``NoBatchingRule`` for a case it does not cover, and the table's
fallback (a Blockwise of the node) takes it, which is correct for every Op,
only slower.  The rules of Elemwise, DimShuffle, CAReduce, MatMul and Shape
live beside Blockwise (:mod:`opgraph.tensor.blockwise`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.autodiff.vectorize import (
    NoBatchingRule,
    dims_of,
    one_batch_axis,
    register_batching_rule,
)
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.replace import BATCH_BROADCAST
from opgraph.tensor.advanced import AdvancedSubtensor
from opgraph.tensor.blockwise import vectorize_matrix_product
from opgraph.tensor.creation import Alloc, alloc
from opgraph.tensor.indexing import SliceSpec
from opgraph.tensor.join import Join, Split, join, stack
from opgraph.tensor.math import eq, maximum, switch
from opgraph.tensor.products import Dot, dot, matmul
from opgraph.tensor.reduction import Argmax, prod
from opgraph.tensor.shape import (
    MakeVector,
    Reshape,
    SpecifyShape,
    reshape,
    shape,
)
from opgraph.tensor.special import LogSoftmax, Softmax
from opgraph.tensor.subtensor import (
    AdvancedIncSubtensor1,
    AdvancedSubtensor1,
    Subtensor,
    inc_subtensor,
    set_subtensor,
)
from opgraph.tensor.type import TensorType

__all__ = ["RULES"]

def _batch_length(ins: list[Variable], batched: list[bool]) -> Any:
    first = next(v for v, b in zip(ins, batched) if b)
    static = first.type.shape[0]
    return static if static is not None else first.shape[0]


def _broadcast(var: Variable, length: Any) -> Variable:
    """``var`` repeated along a new leading axis of ``length`` rows."""
    return alloc(var, length, *dims_of(var))


def _argmax(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    op = node.op
    x = ins[0]
    ndim = node.inputs[0].type.ndim
    if op.axis is not None and len(op.axis) == 1:
        return [type(op)((op.axis[0] % ndim + extra[0],))(x)]
    # Over several (or all) axes: flatten each row first, then pick along axis 1.
    batched = one_batch_axis(node, ins, extra)
    axes = tuple(range(ndim)) if op.axis is None else tuple(op.axis)
    if axes != tuple(range(ndim)):
        raise NoBatchingRule(f"{op} over a subset of several axes")
    x = reshape(x, (_batch_length(ins, batched), _row_size(x)), ndim=2)
    return [type(op)((1,))(x)]


def _dot(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    if min(v.type.ndim for v in node.inputs) >= 2:
        return vectorize_matrix_product(node, ins, extra)
    batched = one_batch_axis(node, ins, extra)
    a, b = ins
    a_nd, b_nd = (v.type.ndim for v in node.inputs)
    if batched[0] and batched[1]:
        if a_nd == 1 and b_nd == 1:
            return [(a * b).sum(axis=1)]
        raise NoBatchingRule(f"{node.op} with both inputs batched")
    if batched[0]:
        return [matmul(a, b) if a_nd == 2 else dot(a, b)]
    if b_nd == 2:
        return [matmul(a, b)]
    if a_nd == 1:
        return [dot(b, a)]
    return [dot(b, a.T)]


def _row_size(x: Variable) -> Variable:
    """The number of elements of one row of the batched ``x``."""
    return prod(shape(x)[1:])


def _reshape(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    if extra[1]:  # a shape per batch entry: the Blockwise fallback
        raise NoBatchingRule(f"{node.op} with a batched shape")
    x, new_shape = ins
    ndim = node.outputs[0].type.ndim
    length = new_shape.type.shape[0]
    if length is not None and length != ndim:
        # as PyTensor: a longer shape is the whole new shape, batch axes included
        if length != ndim + extra[0]:
            raise ValueError(
                f"Invalid shape length passed into vectorize node of Reshape: {node.op} "
                f"takes {ndim} lengths, or {ndim + extra[0]} with the batch axes; got {length}")
        return [reshape(x, new_shape, ndim=length)]
    one_batch_axis(node, ins, extra)
    # A -1 in the row's shape is resolved against the row size here: with an empty
    # batch NumPy could not infer it from (0, -1).
    known = prod(switch(eq(new_shape, -1), 1, new_shape))
    resolved = switch(eq(new_shape, -1), _row_size(x) // maximum(known, 1), new_shape)
    dims = [x.shape[0], *(resolved[i] for i in range(ndim))]
    return [reshape(x, dims, ndim=ndim + 1)]


def _subtensor(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    batched = one_batch_axis(node, ins, extra)
    if any(batched[1:]):
        raise NoBatchingRule(f"{node.op} with a batched index")
    op = type(node.op)((SliceSpec(), *node.op.idx_spec))
    return [op(*ins)]




def _advanced_subtensor1(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    batched = one_batch_axis(node, ins, extra)
    if batched[1]:
        raise NoBatchingRule(f"{node.op} with a batched index")
    x, ilist = ins
    return [x[:, ilist]]


def _advanced_inc_subtensor1(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    batched = one_batch_axis(node, ins, extra)
    if batched[2]:
        raise NoBatchingRule(f"{node.op} with a batched index")
    x, y, ilist = ins
    if not batched[0]:
        x = _broadcast(x, _batch_length(ins, batched))
    x_row_ndim, y_row_ndim = node.inputs[0].type.ndim, node.inputs[1].type.ndim
    if batched[1] and y_row_ndim < x_row_ndim:
        y = y.dimshuffle(0, *["x"] * (x_row_ndim - y_row_ndim), *range(1, y_row_ndim + 1))
    update = set_subtensor if node.op.set_instead_of_inc else inc_subtensor
    return [update(x[:, ilist], y)]


def _advanced_block_is_contiguous(idx_list: tuple) -> bool:
    """Whether the array/int entries are adjacent: NumPy then keeps their result in
    place (else it moves it first, which a leading batch axis would change)."""
    where = [k for k, e in enumerate(idx_list) if not isinstance(e, SliceSpec)]
    return not where or where == list(range(where[0], where[-1] + 1))


def _advanced_subtensor(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    batched = one_batch_axis(node, ins, extra)
    if any(batched[1:]) or not _advanced_block_is_contiguous(node.op.idx_spec):
        raise NoBatchingRule(f"{node.op} with a batched or non-adjacent index")
    return [type(node.op)((SliceSpec(), *node.op.idx_spec))(*ins)]




def _alloc(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    batched = one_batch_axis(node, ins, extra)
    if any(batched[1:]):
        raise NoBatchingRule(f"{node.op} with a batched shape")
    value, *dims = ins
    out_ndim = node.outputs[0].type.ndim
    row_ndim = node.inputs[0].type.ndim
    if row_ndim < out_ndim:
        value = value.dimshuffle(0, *["x"] * (out_ndim - row_ndim), *range(1, row_ndim + 1))
    return [alloc(value, _batch_length(ins, batched), *dims)]


def _join(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    batched = one_batch_axis(node, ins, extra)
    axis = node.inputs[0]
    if batched[0] or not isinstance(axis, Constant):
        raise NoBatchingRule(f"{node.op} with a symbolic or batched axis")
    ndim = node.outputs[0].type.ndim
    a = int(np.asarray(axis.data)) % ndim
    length = _batch_length(ins, batched)
    parts = [t if b else _broadcast(t, length) for t, b in zip(ins[1:], batched[1:])]
    return [join(a + 1, *parts)]


def _specify_shape(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    if any(extra[1:]):  # as PyTensor: one shape per batch entry is not a static shape
        raise NotImplementedError(f"vectorize: {node.op} with a batched shape")
    return [type(node.op)((*(False,) * extra[0], *node.op.given))(*ins)]


def _split(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    batched = one_batch_axis(node, ins, extra)
    axis = node.inputs[1]
    if batched[1] or batched[2] or not isinstance(axis, Constant):
        raise NoBatchingRule(f"{node.op} with a symbolic or batched axis or sizes")
    a = int(np.asarray(axis.data)) % node.inputs[0].type.ndim
    outs = type(node.op)(node.op.len_splits)(ins[0], a + 1, ins[2], return_list=True)
    return outs


def _make_vector(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    batched = one_batch_axis(node, ins, extra)
    length = _batch_length(ins, batched)
    parts = [v if b else _broadcast(v, length) for v, b in zip(ins, batched)]
    out = stack(parts, axis=1)
    dtype = node.outputs[0].type.dtype
    return [out if out.type.dtype == dtype else out.astype(dtype)]


def _softmax(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    op = node.op
    if op.axis is None:
        raise NoBatchingRule(f"{op} over all axes")
    ndim = node.inputs[0].type.ndim
    return [type(op)(axis=op.axis % ndim + extra[0])(ins[0])]


#: The tensor library's rules, registered in the batching table at import.
RULES: dict[type, Any] = {
    Argmax: _argmax, Dot: _dot, Reshape: _reshape,
    Subtensor: _subtensor, Alloc: _alloc, Join: _join,
    AdvancedSubtensor1: _advanced_subtensor1, AdvancedIncSubtensor1: _advanced_inc_subtensor1,
    AdvancedSubtensor: _advanced_subtensor,
    MakeVector: _make_vector, Softmax: _softmax, LogSoftmax: _softmax,
    SpecifyShape: _specify_shape, Split: _split,
}

for _cls, _rule in RULES.items():
    register_batching_rule(_cls, _rule)


def _broadcast_like(value: Variable, reference: Variable) -> Variable:
    """``value`` repeated along the leading (batch) axis of ``reference``."""
    return _broadcast(value, _batch_length([reference], [True]))


BATCH_BROADCAST.register(TensorType, _broadcast_like)
