"""Matrix inverse and pseudo-inverse (Blockwise over batches)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.assumptions import BUILTIN_KEYS, register_assumption, same_as_input
from opgraph.autodiff.undefined import is_disconnected as _is_disconnected
from opgraph.gradient import Lop
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.type import TensorType
from opgraph_linalg._util import as_matrix, check_square_static, check_square_value, float_dtype

__all__ = ["MatrixInverse", "MatrixPinv", "TensorInv", "inv", "matrix_inverse", "pinv",
           "tensorinv"]


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


def _tensorinv_graph(a: Variable, ind: int) -> Variable:
    """tensorinv as reshapes around matrix_inverse (TensorInv's definition for gradients)."""
    nd = a.type.ndim
    front = [a.shape[i] for i in range(ind)]
    back = [a.shape[i] for i in range(ind, nd)]
    square = pt.reshape(a, pt.stack([pt.prod(pt.stack(front)), pt.prod(pt.stack(back))]), ndim=2)
    return pt.reshape(matrix_inverse(square), pt.stack(back + front), ndim=nd)


class TensorInv(Op):
    """``numpy.linalg.tensorinv``: the inverse of ``a`` for ``tensordot(.., ind)``."""

    __props__ = ("ind",)

    def __init__(self, ind: int = 2) -> None:
        self.ind = int(ind)

    def make_node(self, a: Any) -> Apply:
        a = pt.as_tensor_variable(a)
        nd = a.type.ndim
        if not 0 < self.ind < nd:
            raise ValueError(f"tensorinv: ind must be between 1 and {nd - 1}, got {self.ind}")
        shape = a.type.shape[self.ind:] + a.type.shape[:self.ind]
        return Apply(self, [a], [TensorType(float_dtype(a.type.dtype), shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        front, back = a.shape[:self.ind], a.shape[self.ind:]
        if int(np.prod(front)) != int(np.prod(back)):
            raise ValueError(
                f"tensorinv: the product of the first {self.ind} axes of a {front} must equal "
                f"that of the others {back}, got shape {a.shape}"
            )
        out = np.linalg.tensorinv(a, ind=self.ind)
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        shp = tuple(input_shapes[0])
        return [shp[self.ind:] + shp[:self.ind]]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (a,) = inputs
        if not _live(cotangents[0]):
            return [disconnected_type()]
        return [Lop(_tensorinv_graph(a, self.ind), [a], cotangents[0])[0]]


def tensorinv(a: Any, ind: int = 2) -> Variable:
    """The inverse of ``a`` for ``tensordot(.., ind)`` (``numpy.linalg.tensorinv``)."""
    return TensorInv(ind)(pt.as_tensor_variable(a))
