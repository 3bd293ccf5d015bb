"""Products with a diagonal or block-diagonal matrix, under PyTensor's names.

- ``dot_diag_to_elemwise``: ``diag(d) @ X -> d[:, None] * X``, ``X @ diag(d) ->
  X * d``, ``diag(d) @ x -> d * x`` and ``diag(a) @ diag(b) -> diag(a * b)``, for a
  diagonal written ``pt.diag(d)`` (AllocDiag) or ``eye(n) * d``. One product per
  element instead of a matrix product. The values are the matrix product's, except
  that an inf in ``X`` no longer turns the other rows into NaN (``0 * inf`` in the
  sum over the zeros of the diagonal matrix).
- ``local_block_diag_dot_to_dot_block_diag``: ``block_diag(a, b) @ y`` ->
  ``join(a @ y[:na], b @ y[na:])`` (and the mirror image), smaller products that skip
  the zero blocks.

``AllocDiag`` and ``BlockDiagonal`` come from opgraph-linalg through
``opgraph.tensor.basic``/``opgraph.tensor.linalg``; without it nothing matches.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import opgraph.tensor.linalg as tensor_linalg

import opgraph.scalar as ps
import opgraph.tensor.basic as tensor_basic
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.plugins import MissingPluginName
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.creation import Eye
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.join import concatenate
from opgraph.tensor.math import mul
from opgraph.tensor.products import Dot, MatMul, dot
from opgraph.tensor.reduction import Sum
from opgraph.tensor.shape import static_int
from opgraph_rewrites.utils import elemwise_of, ew, keep_type

__all__ = [
    "dot_diag_to_elemwise",
    "local_block_diag_dot_to_dot_block_diag",
    "local_sumsqr2dot",
    "math_dot_diag_rewriters",
]


def _plugin_op(module: Any, name: str) -> Any:
    op = getattr(module, name, None)
    return None if op is None or isinstance(op, MissingPluginName) else op


AllocDiag = _plugin_op(tensor_basic, "AllocDiag")
BlockDiagonal = _plugin_op(tensor_linalg, "BlockDiagonal")


def _fixed(node: Apply, new: Variable) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else None


def _is_identity(var: Variable) -> bool:
    """``var`` is a square identity matrix (a constant, or ``eye(n)`` with offset 0)."""
    if var.type.ndim != 2:
        return False
    if isinstance(var, Constant):
        data = np.asarray(var.data)
        return data.shape[0] == data.shape[1] and np.array_equal(data, np.eye(data.shape[0]))
    node = var.owner
    if node is None or not isinstance(node.op, Eye):
        return False
    n, m, k = (static_int(v) for v in node.inputs)
    return n is not None and n == m and k == 0


def _vector_of(var: Variable) -> Variable | None:
    """The vector ``d`` of ``d[None, :]`` or ``d[:, None]`` (a row or column of it)."""
    node = var.owner
    if node is None or not isinstance(node.op, DimShuffle) or node.op.input_ndim != 1:
        return None
    return node.inputs[0] if tuple(node.op.new_order) in (("x", 0), (0, "x")) else None


def _diagonal(var: Variable) -> Variable | None:
    """The vector ``d`` when ``var`` is the matrix ``diag(d)``, else None."""
    node = var.owner
    if node is None or var.type.ndim != 2:
        return None
    if AllocDiag is not None and isinstance(node.op, AllocDiag):
        values = node.inputs[0]
        axes = (node.op.axis1 % 2, node.op.axis2 % 2)
        return values if node.op.offset == 0 and axes == (0, 1) and values.type.ndim == 1 \
            else None
    mul_node = elemwise_of(var, ps.Mul)
    if mul_node is None or len(mul_node.inputs) != 2:
        return None
    a, b = mul_node.inputs
    for eye, other in ((a, b), (b, a)):
        if _is_identity(eye):
            d = _vector_of(other)
            if d is not None and var.type.shape[0] == var.type.shape[1]:
                return d
    return None


@node_rewriter([MatMul, Dot], name="dot_diag_to_elemwise")
def dot_diag_to_elemwise(fgraph: Any, node: Apply) -> Any:
    """A product with ``diag(d)`` as an elementwise product with ``d``."""
    a, b = node.inputs
    da, db = _diagonal(a), _diagonal(b)
    if da is None and db is None:
        return None
    if da is not None and db is not None:
        return _fixed(node, tensor_basic.alloc_diag(da * db, axis1=-2, axis2=-1))
    if da is not None:
        if b.type.ndim == 1:
            return _fixed(node, mul(da, b))
        if b.type.ndim != 2:
            return None
        return _fixed(node, mul(da.dimshuffle(0, "x"), b))
    if a.type.ndim == 1:
        return _fixed(node, mul(a, db))
    if a.type.ndim != 2:
        return None
    return _fixed(node, mul(a, db.dimshuffle("x", 0)))


def _block_diag_node(var: Variable) -> Apply | None:
    """``var``'s owner when it is a BlockDiagonal of matrices (a Blockwise of one with no
    batch axis included: ``pt.linalg.block_diag`` builds that)."""
    node = var.owner
    if node is None or BlockDiagonal is None:
        return None
    op = node.op
    core = op.core_op if isinstance(op, Blockwise) else op
    if not isinstance(core, BlockDiagonal) or any(i.type.ndim != 2 for i in node.inputs):
        return None
    return node


def _split_products(blocks: list[Variable], other: Variable, left: bool) -> Variable | None:
    """``block_diag(*blocks) @ other`` (``left``) or ``other @ block_diag(*blocks)`` as a
    join of the products of each block with its rows (columns) of ``other``."""
    sizes = [blk.type.shape[-1 if left else -2] for blk in blocks]
    if None in sizes:
        return None
    parts, start = [], 0
    for block, size in zip(blocks, sizes):
        if left:
            piece = other[..., start:start + size, :]
            parts.append(MatMul()(block, piece))
        else:
            piece = other[..., :, start:start + size]
            parts.append(MatMul()(piece, block))
        start += size
    return concatenate(parts, axis=-2 if left else -1)


@node_rewriter([MatMul, Dot], name="local_block_diag_dot_to_dot_block_diag")
def local_block_diag_dot_to_dot_block_diag(fgraph: Any, node: Apply) -> Any:
    """``block_diag(a, b) @ y`` as the join of ``a @ y[:na]`` and ``b @ y[na:]`` (and
    ``y @ block_diag(a, b)`` by columns), when the block sizes are static."""
    a, b = node.inputs
    if a.type.ndim < 2 or b.type.ndim < 2:
        return None
    for var, other, left in ((a, b, True), (b, a, False)):
        bd = _block_diag_node(var)
        if bd is None or (left and _block_diag_node(b) is not None):
            continue
        new = _split_products(list(bd.inputs), other, left)
        if new is not None:
            return _fixed(node, new)
    return None


def math_dot_diag_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags), in PyTensor's phases."""
    return {
        "canonicalize": [("dot_diag_to_elemwise", dot_diag_to_elemwise, ("fast_compile",))],
        "stabilize": [
            ("dot_diag_to_elemwise", dot_diag_to_elemwise, ()),
            ("local_block_diag_dot_to_dot_block_diag",
             local_block_diag_dot_to_dot_block_diag, ()),
        ],
    }


def _expanded(var: Variable, order: tuple) -> Variable | None:
    node = var.owner
    if node is None or not isinstance(node.op, DimShuffle) or node.op.input_ndim != 2:
        return None
    return node.inputs[0] if tuple(node.op.new_order) == order else None


@node_rewriter([Sum], name="local_sumsqr2dot")
def local_sumsqr2dot(fgraph: Any, node: Apply) -> Any:
    """sum(sqr(W[None] * G[:, None]), axis=(1, 2)) -> dot(sqr(G), sum(sqr(W), axis=0)).

    Opt-in (by its name): the regrouped products over- and underflow differently
    (``G = 1e200``, ``W = 1e-200`` gives NaN instead of 1), so FAST_RUN leaves it."""
    if tuple(sorted(node.op.axis or ())) != (1, 2):
        return None
    sq = elemwise_of(node.inputs[0], ps.Sqr)
    prod = None if sq is None else elemwise_of(sq.inputs[0], ps.Mul)
    if prod is None or len(prod.inputs) != 2:
        return None
    a, b = prod.inputs
    for wv, gv in ((a, b), (b, a)):
        w, g = _expanded(wv, ("x", 0, 1)), _expanded(gv, (0, "x", 1))
        if w is not None and g is not None:
            sq_w = ew(ps.sqr)(w)
            return _fixed(node, dot(ew(ps.sqr)(g), sq_w.sum(axis=0)))
    return None
