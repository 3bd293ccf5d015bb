"""Matrix inverse and pseudo-inverse (Blockwise over batches)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.assumptions import BUILTIN_KEYS, register_assumption, same_as_input
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.elemwise import _is_disconnected
from opgraph.tensor.type import TensorType
from opgraph_linalg._util import as_matrix, check_square_static, check_square_value, float_dtype

__all__ = ["MatrixInverse", "MatrixPinv", "inv", "matrix_inverse", "pinv", "tensorinv"]


def _live(g: Any) -> bool:
    return g is not None and not _is_disconnected(g)


class MatrixInverse(Op):
    """The inverse of a square matrix (``numpy.linalg.inv``)."""

    __props__ = ()
    gufunc_signature = "(m,m)->(m,m)"

    def make_node(self, x: Any) -> Apply:
        x = as_matrix(x, "matrix_inverse", "x")
        if x.type.ndim != 2:
            raise ValueError(f"matrix_inverse: the core op takes one matrix, got {x.type}")
        check_square_static(x, "matrix_inverse", "x")
        return Apply(self, [x], [TensorType(float_dtype(x.type.dtype), x.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (x,) = inputs
        check_square_value(x, "matrix_inverse", "x")
        output_storage[0][0] = np.asarray(np.linalg.inv(x), dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (gz,) = cotangents
        if not _live(gz):
            return [disconnected_type()]
        (xi,) = outputs
        return [-pt.dot(pt.dot(xi.T, gz), xi.T)]

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> list:
        (t,) = tangents
        if not _live(t):
            return [disconnected_type()]
        (xi,) = outputs
        return [-pt.dot(pt.dot(xi, t), xi)]


# inv(A) is diagonal / triangular / symmetric / positive definite / orthogonal iff A is.
for _key in BUILTIN_KEYS:
    register_assumption(_key, MatrixInverse)(same_as_input)


class MatrixPinv(Op):
    """The Moore-Penrose pseudo-inverse (``numpy.linalg.pinv``)."""

    __props__ = ("hermitian",)
    gufunc_signature = "(m,n)->(n,m)"

    def __init__(self, hermitian: bool = False) -> None:
        self.hermitian = bool(hermitian)

    def make_node(self, x: Any) -> Apply:
        x = as_matrix(x, "pinv", "x")
        if x.type.ndim != 2:
            raise ValueError(f"pinv: the core op takes one matrix, got {x.type}")
        m, n = x.type.shape
        return Apply(self, [x], [TensorType(float_dtype(x.type.dtype), (n, m))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (x,) = inputs
        out = np.linalg.pinv(x, hermitian=self.hermitian)
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        m, n = input_shapes[0]
        return [(n, m)]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (gz,) = cotangents
        if not _live(gz):
            return [disconnected_type()]
        (a,) = inputs
        (x,) = outputs
        m, n = a.shape[0], a.shape[1]
        dtype = x.type.dtype
        left = pt.eye(m, dtype=dtype) - pt.dot(a, x)  # I - A X, m x m
        right = pt.eye(n, dtype=dtype) - pt.dot(x, a)  # I - X A, n x n
        g = -pt.dot(pt.dot(x.T, gz), x.T)
        g = g + pt.dot(pt.dot(pt.dot(left, gz.T), x), x.T)
        g = g + pt.dot(pt.dot(pt.dot(x.T, x), gz.T), right)
        return [g]


def matrix_inverse(x: Any) -> Variable:
    """The inverse of ``x`` (or of each matrix in a batch)."""
    x = as_matrix(x, "matrix_inverse", "x")
    check_square_static(x, "matrix_inverse", "x")
    return Blockwise(MatrixInverse())(x)


inv = matrix_inverse


def pinv(x: Any, hermitian: bool = False) -> Variable:
    """The Moore-Penrose pseudo-inverse of ``x`` (batched)."""
    x = as_matrix(x, "pinv", "x")
    return Blockwise(MatrixPinv(hermitian=hermitian))(x)


def tensorinv(a: Any, ind: int = 2) -> Variable:
    """The inverse of ``a`` for ``tensordot(.., ind)`` (``numpy.linalg.tensorinv``)."""
    a = pt.as_tensor_variable(a)
    nd = a.type.ndim
    if not 0 < ind < nd:
        raise ValueError(f"tensorinv: ind must be between 1 and {nd - 1}, got {ind}")
    front = [a.shape[i] for i in range(ind)]
    back = [a.shape[i] for i in range(ind, nd)]
    square = pt.reshape(a, pt.stack([pt.prod(pt.stack(front)), pt.prod(pt.stack(back))]), ndim=2)
    return pt.reshape(matrix_inverse(square), pt.stack(back + front), ndim=nd)
