"""Batching rules (``vectorize_graph``) for the sparse Ops.

Sparse matrices are 2-d, so a batch axis can only be added to a dense input:
``StructuredDot(A, b)`` with a batched dense ``b`` becomes one product with the
batch folded into the columns.  Ops whose dense input is added to or
multiplied with the sparse pattern have no batched-sparse form and say so.
"""

from __future__ import annotations

from opgraph.autodiff.vectorize import one_batch_axis, register_batching_rule
from opgraph.graph.basic import Apply
from opgraph_sparse.arith import (
    AddSD,
    SparseDenseVectorMultiply,
    StructuredAddSV,
)
from opgraph_sparse.compare import ComparisonSD
from opgraph_sparse.convert import SparseDenseMultiply
from opgraph_sparse.products import StructuredDot, structured_dot


def _structured_dot_rule(node: Apply, inputs: list, extra: list[int]) -> list:
    batched = one_batch_axis(node, inputs, extra)
    if batched[0]:
        raise NotImplementedError(
            "vectorize: StructuredDot's sparse (left) input is batched; sparse matrices "
            "have no batch axis")
    a, b = inputs
    if not batched[1]:
        return [structured_dot(a, b)]
    k = b.shape[1]
    folded = b.dimshuffle(1, 0, 2).reshape((k, -1))
    out = structured_dot(a, folded)
    unfolded = out.reshape((out.shape[0], b.shape[0], b.shape[2])).dimshuffle(1, 0, 2)
    return [unfolded]


def _no_batched_sparse(node: Apply, inputs: list, extra: list[int]) -> list:
    raise NotImplementedError(
        f"vectorize: {type(node.op).__name__} has no batched-sparse form: its dense "
        "input combines elementwise with a 2-d sparse matrix")


register_batching_rule(StructuredDot, _structured_dot_rule)
for _op in (AddSD, SparseDenseMultiply, SparseDenseVectorMultiply, StructuredAddSV,
            ComparisonSD):
    register_batching_rule(_op, _no_batched_sparse)

