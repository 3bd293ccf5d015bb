"""``sparse_grad(x[ilist])``: the same rows, with a sparse (CSC) gradient for ``x``.

Taking a few rows of a large embedding-like matrix has a gradient that is zero
outside those rows; storing it sparse keeps the update cheap.  The forward
value is the dense ``AdvancedSubtensor1`` read; only the pullback differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.gradient import disconnected_type
from opgraph.graph.basic import Variable
from opgraph.tensor.advanced import AdvancedSubtensor
from opgraph.tensor.subtensor import AdvancedSubtensor1
from opgraph_sparse.structure import construct_sparse_from_list

__all__ = ["SparseGradSubtensor1", "sparse_grad"]


class SparseGradSubtensor1(AdvancedSubtensor1):
    """``x[ilist]`` of a matrix ``x`` whose gradient is a sparse CSC matrix."""

    sparse_grad = True

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        x, ilist = inputs
        if x.type.ndim != 2:
            raise TypeError(f"sparse_grad needs a matrix to index, got {x.type.ndim} dimensions "
                            f"for {x}")
        return [construct_sparse_from_list(x, cotangents[0], ilist), disconnected_type()]


def sparse_grad(var: Any) -> Variable:
    """``var`` (an ``x[int_vector]`` read) rebuilt so that the gradient of ``x`` is sparse."""
    owner = getattr(var, "owner", None)
    if owner is None or not isinstance(owner.op, (AdvancedSubtensor, AdvancedSubtensor1)):
        raise TypeError("sparse_grad: only a variable made by AdvancedSubtensor or "
                        f"AdvancedSubtensor1 (x[int_vector]) is supported, got {var!r}")
    x, *indices = owner.inputs
    if len(indices) != 1:
        raise TypeError("sparse_grad: only one advanced index is supported, got "
                        f"{len(indices)}")
    return SparseGradSubtensor1()(x, indices[0])
