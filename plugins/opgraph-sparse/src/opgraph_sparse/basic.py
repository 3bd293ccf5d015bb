"""Sparse variables: constructors, ``as_sparse_variable`` and dense/sparse conversions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.tensor.type import get_floatX
from opgraph.tensor.variable import as_tensor_variable
from opgraph_sparse.type import FORMATS, SparseConstant, SparseTensorType, SparseVariable

__all__ = [
    "CSMFromDense",
    "DenseFromSparse",
    "as_sparse",
    "as_sparse_or_tensor_variable",
    "as_sparse_variable",
    "csc_from_dense",
    "csc_matrix",
    "csr_from_dense",
    "csr_matrix",
    "dense_from_sparse",
    "matrix",
]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def as_sparse_variable(x: Any, name: str | None = None) -> Variable:
    """``x`` as a sparse Variable: a sparse Variable itself, or a constant of a scipy matrix."""
    if isinstance(x, Variable):
        if isinstance(x.type, SparseTensorType):
            return x
        raise TypeError(
            f"as_sparse_variable: {_name(x)} has type {x.type}; expected a sparse variable "
            "(use csr_from_dense/csc_from_dense to convert a dense one)"
        )
    if sp.issparse(x):
        fmt = x.format if x.format in FORMATS else "csr"
        value = x.asformat(fmt)
        stype = SparseTensorType(fmt, value.dtype, shape=value.shape)
        return SparseConstant(type=stype, data=value, name=name)
    raise TypeError(
        f"as_sparse_variable: expected a sparse Variable or a scipy.sparse matrix, got "
        f"{type(x).__name__}"
    )


as_sparse = as_sparse_variable


def as_sparse_or_tensor_variable(x: Any, name: str | None = None) -> Variable:
    """A sparse variable for sparse input, a tensor variable otherwise."""
    try:
        return as_sparse_variable(x, name)
    except TypeError:
        return as_tensor_variable(x, name=name)


def matrix(format: str, name: str | None = None, dtype: Any = None) -> Variable:
    """A symbolic sparse matrix of ``format`` ("csr" or "csc")."""
    return SparseTensorType(format, dtype or get_floatX())(name)


def csr_matrix(name: str | None = None, dtype: Any = None) -> Variable:
    """A symbolic CSR matrix."""
    return matrix("csr", name, dtype)


def csc_matrix(name: str | None = None, dtype: Any = None) -> Variable:
    """A symbolic CSC matrix."""
    return matrix("csc", name, dtype)


class DenseFromSparse(Op):
    """The dense ndarray of a sparse matrix."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [x.type.dense_type()()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(inputs[0].toarray())

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [CSMFromDense(inputs[0].type.format)(cotangents[0])]


class CSMFromDense(Op):
    """A sparse matrix of ``format`` holding a dense matrix's nonzero entries."""

    __props__ = ("format",)

    def __init__(self, format: str) -> None:
        if format not in FORMATS:
            raise ValueError(f"CSMFromDense: format must be one of {FORMATS}, got {format!r}")
        self.format = format

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim != 2:
            raise TypeError(f"{self.format}_from_dense: {_name(x)} must be a matrix, got {x.type}")
        out = SparseTensorType(self.format, x.type.dtype, shape=x.type.shape)
        return Apply(self, [x], [out()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        build = sp.csr_matrix if self.format == "csr" else sp.csc_matrix
        output_storage[0][0] = build(inputs[0])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [DenseFromSparse()(cotangents[0])]


dense_from_sparse = DenseFromSparse()
"""``dense_from_sparse(x)``: the dense tensor of sparse ``x``."""
csr_from_dense = CSMFromDense("csr")
"""``csr_from_dense(x)``: the CSR sparse matrix of dense matrix ``x``."""
csc_from_dense = CSMFromDense("csc")
"""``csc_from_dense(x)``: the CSC sparse matrix of dense matrix ``x``."""

SparseVariable.toarray = lambda self: dense_from_sparse(self)  # type: ignore[attr-defined]
SparseConstant.toarray = SparseVariable.toarray  # type: ignore[attr-defined]
