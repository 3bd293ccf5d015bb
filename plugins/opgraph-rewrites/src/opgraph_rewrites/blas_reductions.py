"""Reductions that BLAS does in one pass over memory: row/column sums and sums of squares.

A model's gradient reduces matrices it has just written: the bias gradient
is the batch sum of the backpropagated error (``sum(g, axis=0)``), the
squared loss is ``sum(d ** 2)``.  In the generated loops the first walks a
C-ordered matrix column by column (a strided read per element) and the second
writes ``d ** 2`` to memory only to read it back.  BLAS has both as one
streaming pass:

=========================  ==================================================
``sum(M, axis=0)``         ``Gemv(0, 1, M.T, ones(rows), 0)``: ``M.T @ 1``
``sum(M, axis=1)``         ``Gemv(0, 1, M, ones(cols), 0)``: ``M @ 1``
``sum(sqr(X))``            ``dot(flatten(X), flatten(X))``
=========================  ==================================================

Exact rewrites: multiplying by 1 is exact, ``x * x`` is the same product,
and inf/nan propagate alike; only the order of the additions changes, as
NumPy's pairwise summation itself does.  Only float64 sums whose accumulator
is their own dtype are rewritten (a float32 sum accumulates in float64,
which BLAS would not).  Registered in ``post_specialize`` (after
``pow(x, 2)`` became ``sqr(x)``) with tags ``fast_run`` and ``blas``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph.graph.rewriting.walking import in2out
from opgraph.scalar import arith
from opgraph.tensor.blas import Gemv
from opgraph.tensor.creation import alloc
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.products import dot
from opgraph.tensor.reduction import Sum
from opgraph.tensor.shape import flatten, shape_i
from opgraph_rewrites.utils import keep_type, single_client, tensor_constant

__all__ = ["local_sum_of_squares_to_dot", "local_sum_rows_to_gemv", "register_blas_rewrites"]

_BLAS_DTYPES = ("float64",)


def _exact_sum(node: Apply) -> bool:
    """A Sum whose input, accumulator and output share one BLAS dtype."""
    op = node.op
    x, out = node.inputs[0], node.outputs[0]
    dt = x.type.dtype
    return (isinstance(op, Sum) and dt in _BLAS_DTYPES and out.type.dtype == dt
            and op.accumulate_dtype(dt) == dt)


def _gemv_sum(matrix: Variable, axis: int) -> Variable:
    """``matrix.sum(axis)`` of a matrix as ``Gemv(y, 1, A, ones, 0)`` (y is never read)."""
    dt = matrix.type.dtype
    keep = 1 - axis
    a = matrix if axis == 1 else DimShuffle(input_ndim=2, new_order=(1, 0))(matrix)
    ones = alloc(tensor_constant(1.0, dt), shape_i(matrix, axis))
    unused = alloc(tensor_constant(0.0, dt), shape_i(matrix, keep))
    return Gemv()(unused, tensor_constant(1.0, dt), a, ones, tensor_constant(0.0, dt))


#: A matrix statically known to hold at most this many elements keeps its Sum: one C
#: loop beats a BLAS call plus the two vectors it needs (PyMC's per-call graphs).
SMALL_ELEMENTS = 4096


def _small(var: Variable) -> bool:
    shape = var.type.shape
    return None not in shape and int(np.prod(shape)) <= SMALL_ELEMENTS


@node_rewriter([Sum])
def local_sum_rows_to_gemv(fgraph: Any, node: Apply) -> Any:
    """sum(M, axis=0) -> M.T @ ones, sum(M, axis=1) -> M @ ones (M a float64 matrix, not
    statically small)."""
    if not _exact_sum(node) or node.inputs[0].type.ndim != 2 or _small(node.inputs[0]):
        return False
    axes = node.op.axis
    if axes is None or len(axes) != 1:
        return False
    new = _gemv_sum(node.inputs[0], axes[0])
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else False


def _squared(var: Variable) -> Variable | None:
    """X when ``var`` is ``sqr(X)`` or ``X * X``, else None."""
    owner = var.owner
    if owner is None or not isinstance(owner.op, Elemwise):
        return None
    scalar = owner.op.scalar_op
    if isinstance(scalar, arith.Sqr):
        return owner.inputs[0]
    if isinstance(scalar, arith.Mul) and len(owner.inputs) == 2 \
            and owner.inputs[0] is owner.inputs[1]:
        return owner.inputs[0]
    return None


@node_rewriter([Sum])
def local_sum_of_squares_to_dot(fgraph: Any, node: Apply) -> Any:
    """sum(sqr(X)) over every axis -> dot(X.ravel(), X.ravel()): no squares in memory.

    Only when ``sqr(X)`` has no other use (else it is computed anyway) and X
    comes out of a computation (a fresh contiguous array, so the ravel is a
    view, not a copy).
    """
    if not _exact_sum(node):
        return False
    sq = node.inputs[0]
    nd = sq.type.ndim
    if nd == 0 or set(node.op.axis if node.op.axis is not None else range(nd)) != set(range(nd)):
        return False
    x = _squared(sq)
    if x is None or x.type.dtype != sq.type.dtype or x.type.ndim != nd \
            or x.owner is None or not single_client(fgraph, sq):
        return False
    flat = x if nd == 1 else flatten(x, 1)
    fixed = keep_type(node.outputs[0], dot(flat, flat))
    return [fixed] if fixed is not None else False


def blas_rewriters() -> list[tuple[str, NodeRewriter]]:
    return [("local_sum_rows_to_gemv", local_sum_rows_to_gemv),
            ("local_sum_of_squares_to_dot", local_sum_of_squares_to_dot)]


def register_blas_rewrites(db: Any) -> None:
    """Add the rewrites above to the ``post_specialize`` phase of ``db``."""
    for name, rewriter in blas_rewriters():
        db.register(name, in2out(rewriter, name=name), "fast_run", "blas", phase="post_specialize")

