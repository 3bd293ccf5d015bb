"""Matrix products and functions: kron, matrix_power, matrix_dot, expm."""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.autodiff.undefined import is_disconnected as _is_disconnected
from opgraph.gradient import grad_not_implemented
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_linalg._util import as_matrix, check_square_static, check_square_value, float_dtype
from opgraph_linalg.inverse import matrix_inverse

scipy_linalg = lazy_scipy_module("linalg")  # imported on first use, not at plugin load

__all__ = [
    "Expm", "ExpmFrechet", "KroneckerProduct", "expm", "kron", "kron_expanded", "matrix_dot",
    "matrix_power",
]


def _padded_shapes(a: Variable, b: Variable) -> tuple[list[Any], list[Any], int]:
    """The symbolic shapes of ``a`` and ``b`` padded on the left to the same rank."""
    nd = max(a.type.ndim, b.type.ndim)
    ones: list[Any] = [1] * nd
    sa = ones[: nd - a.type.ndim] + [a.shape[i] for i in range(a.type.ndim)]
    sb = ones[: nd - b.type.ndim] + [b.shape[i] for i in range(b.type.ndim)]
    return sa, sb, nd


class KroneckerProduct(Op):
    """``numpy.kron(a, b)`` as one node, so rewrites can see it (det, diag, inverse of a kron).

    Tensors of unequal rank are padded on the left, as NumPy does; the ranks
    must sum to 3 or more (two vectors: use ``outer``).
    """

    __props__ = ()

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = pt.as_tensor_variable(a), pt.as_tensor_variable(b)
        if a.type.ndim + b.type.ndim < 3:
            raise TypeError(
                f"kron: inputs dimensions must sum to 3 or more (for two vectors use outer), "
                f"got {a.type.ndim} ({a.type}) and {b.type.ndim} ({b.type})"
            )
        nd = max(a.type.ndim, b.type.ndim)
        sa = (1,) * (nd - a.type.ndim) + tuple(a.type.shape)
        sb = (1,) * (nd - b.type.ndim) + tuple(b.type.shape)
        shape = tuple(None if x is None or y is None else x * y for x, y in zip(sa, sb))
        dtype = np.result_type(a.type.dtype, b.type.dtype).name
        return Apply(self, [a, b], [TensorType(dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b = inputs
        output_storage[0][0] = np.asarray(np.kron(a, b), dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        a_shape, b_shape = input_shapes
        nd = max(len(a_shape), len(b_shape))
        sa = [1] * (nd - len(a_shape)) + list(a_shape)
        sb = [1] * (nd - len(b_shape)) + list(b_shape)
        return [tuple(x * y for x, y in zip(sa, sb))]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        a, b = inputs
        (g,) = cotangents
        if _is_disconnected(g):
            return [disconnected_type(), disconnected_type()]
        sa, sb, nd = _padded_shapes(a, b)
        # out[i0*B0 + j0, ...] = a[i0, ...] * b[j0, ...]: split every axis into (i, j)
        g_split = g.reshape([x for pair in zip(sa, sb) for x in pair], ndim=2 * nd)
        a_p = a.reshape(sa, ndim=nd) if a.type.ndim < nd else a
        b_p = b.reshape(sb, ndim=nd) if b.type.ndim < nd else b
        a_axes, b_axes = tuple(range(0, 2 * nd, 2)), tuple(range(1, 2 * nd, 2))
        ga = (g_split * pt.expand_dims(b_p, a_axes)).sum(axis=b_axes)
        gb = (g_split * pt.expand_dims(a_p, b_axes)).sum(axis=a_axes)
        ga = ga.reshape(a.shape, ndim=a.type.ndim) if a.type.ndim < nd else ga
        gb = gb.reshape(b.shape, ndim=b.type.ndim) if b.type.ndim < nd else gb
        return [pt.cast(ga, a.type.dtype), pt.cast(gb, b.type.dtype)]


def kron(a: Any, b: Any) -> Variable:
    """The Kronecker product (``numpy.kron``) of two tensors of rank >= 1."""
    return KroneckerProduct()(a, b)


def kron_expanded(a: Any, b: Any) -> Variable:
    """``kron(a, b)`` as broadcasting product and reshape (what the Op computes)."""
    a, b = pt.as_tensor_variable(a), pt.as_tensor_variable(b)
    nd = max(a.type.ndim, b.type.ndim)
    a = pt.shape_padleft(a, nd - a.type.ndim) if a.type.ndim < nd else a
    b = pt.shape_padleft(b, nd - b.type.ndim) if b.type.ndim < nd else b
    # a[i0, i1, ...] * b[j0, j1, ...] on interleaved axes (i0, j0, i1, j1, ...), then merged
    a_order = [x for i in range(nd) for x in (i, "x")]
    b_order = [x for i in range(nd) for x in ("x", i)]
    prod = a.dimshuffle(*a_order) * b.dimshuffle(*b_order)
    shape = [a.shape[i] * b.shape[i] for i in range(nd)]
    return pt.reshape(prod, shape, ndim=nd)


def matrix_dot(*args: Any) -> Variable:
    """``args[0] @ args[1] @ ...``."""
    if not args:
        raise TypeError("matrix_dot: needs at least one argument")
    return reduce(pt.dot, args[1:], pt.as_tensor_variable(args[0]))


def matrix_power(M: Any, n: int) -> Variable:
    """``M`` multiplied by itself ``n`` times (``numpy.linalg.matrix_power``; batched).

    ``n`` must be a Python int; a negative one powers the inverse.
    """
    if not isinstance(n, int | np.integer):
        raise TypeError(f"matrix_power: n must be an int, got {type(n).__name__} {n!r}")
    M = as_matrix(M, "matrix_power", "M")
    check_square_static(M, "matrix_power", "M")
    if n < 0:
        M, n = matrix_inverse(M), -n
    if n == 0:
        eye = pt.eye(M.shape[-1], dtype=M.type.dtype)
        return eye + pt.zeros_like(M)
    result = None
    base = M
    while n:  # binary exponentiation: O(log n) products
        if n & 1:
            result = base if result is None else pt.matmul(result, base)
        n >>= 1
        if n:
            base = pt.matmul(base, base)
    return result  # type: ignore[return-value]


class Expm(Op):
    """The matrix exponential (``scipy_linalg.expm``)."""

    __props__ = ()
    gufunc_signature = "(m,m)->(m,m)"

    def make_node(self, a: Any) -> Apply:
        a = as_matrix(a, "expm", "A")
        if a.type.ndim != 2:
            raise ValueError(f"expm: the core op takes one matrix, got {a.type}")
        check_square_static(a, "expm", "A")
        return Apply(self, [a], [TensorType(float_dtype(a.type.dtype), a.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        check_square_value(a, "expm", "A")
        output_storage[0][0] = np.asarray(scipy_linalg.expm(a),
                                          dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (gz,) = cotangents
        if _is_disconnected(gz):
            return [disconnected_type()]
        (a,) = inputs
        return [ExpmFrechet()(a.T, gz)]  # the adjoint of L(A, .) is L(A^T, .)

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> list:
        (t,) = tangents
        if _is_disconnected(t):
            return [disconnected_type()]
        return [ExpmFrechet()(inputs[0], t)]


class ExpmFrechet(Op):
    """The Frechet derivative of expm at ``A`` in direction ``E``."""

    __props__ = ()
    gufunc_signature = "(m,m),(m,m)->(m,m)"

    def make_node(self, a: Any, e: Any) -> Apply:
        a, e = pt.as_tensor_variable(a), pt.as_tensor_variable(e)
        dtype = float_dtype(a.type.dtype, e.type.dtype)
        return Apply(self, [a, e], [TensorType(dtype, a.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, e = inputs
        out = scipy_linalg.expm_frechet(a, e, compute_expm=False)
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        """Linear in ``E`` (adjoint: ``L(A^T, .)``); the second derivative in ``A`` is not
        implemented."""
        (gz,) = cotangents
        a, _ = inputs
        if _is_disconnected(gz):
            return [disconnected_type(), disconnected_type()]
        return [
            grad_not_implemented(self, 0, a, "Second derivatives of expm are not implemented."),
            ExpmFrechet()(a.T, gz),
        ]


def expm(A: Any) -> Variable:
    """The matrix exponential of ``A`` (batched)."""
    A = as_matrix(A, "expm", "A")
    check_square_static(A, "expm", "A")
    return Blockwise(Expm())(A)
