"""PyTensor's ``pytensor.sparse.linalg``: ``block_diag`` of sparse or dense matrices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.utils import lazy_scipy_module
from opgraph_sparse.convert import as_sparse_or_tensor_variable, matrix
from opgraph_sparse.type import SparseTensorType

sp = lazy_scipy_module("sparse")  # SciPy loads when a sparse value is first used

__all__ = ["SparseBlockDiagonal", "block_diag", "matrix"]


class SparseBlockDiagonal(Op):
    """A sparse matrix with the ``n_inputs`` input matrices on its block diagonal."""

    __props__ = ("n_inputs", "format")

    def __init__(self, n_inputs: int, format: str = "csc") -> None:
        if format not in ("csr", "csc"):
            raise ValueError(f"block_diag: format must be 'csr' or 'csc', got {format!r}")
        self.n_inputs = int(n_inputs)
        self.format = format

    def make_node(self, *matrices: Any) -> Apply:
        if len(matrices) != self.n_inputs:
            raise ValueError(f"block_diag: expected {self.n_inputs} matrices, got "
                             f"{len(matrices)}")
        mats = [as_sparse_or_tensor_variable(m) for m in matrices]
        for m in mats:
            if m.type.ndim != 2:
                raise TypeError(f"block_diag: {m} must be a matrix, got {m.type}")
        dtype = np.result_type(*[m.type.dtype for m in mats]).name
        return Apply(self, mats, [SparseTensorType(self.format, dtype)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        dtype = node.outputs[0].type.dtype
        res = sp.block_diag(list(inputs), format=self.format, dtype=dtype)
        build = sp.csr_matrix if self.format == "csr" else sp.csc_matrix
        out[0][0] = build(res)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        rows, cols = shapes[0]
        for r, c in shapes[1:]:
            rows, cols = rows + r, cols + c
        return [(rows, cols)]


def block_diag(*matrices: Any, format: str = "csc", name: str | None = None) -> Variable:
    """The block-diagonal sparse matrix of ``matrices`` (scipy.sparse.block_diag)."""
    if not matrices:
        raise ValueError("block_diag: at least one matrix is needed")
    if len(matrices) == 1:
        return as_sparse_or_tensor_variable(matrices[0])
    out = SparseBlockDiagonal(len(matrices), format=format)(*matrices)
    if name is not None:
        out.name = name
    return out


