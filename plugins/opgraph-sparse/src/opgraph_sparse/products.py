"""Products with a sparse operand: ``structured_dot`` (gradient on the stored entries),
``dot`` (dense result), ``true_dot`` (sparse result), ``sampling_dot`` and ``usmm``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.gradient import grad_not_implemented
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.scalar import upcast
from opgraph.tensor.basic import as_tensor_variable
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_sparse.arith import mul_s_s
from opgraph_sparse.convert import (
    CSC,
    CSR,
    SparseFromDense,
    _is_dense_variable,
    _is_sparse_variable,
    _name,
    as_sparse_variable,
    csm_indices,
    csm_indptr,
    csm_shape,
)
from opgraph_sparse.structure import transpose
from opgraph_sparse.type import SparseTensorType

sp = lazy_scipy_module("sparse")  # SciPy loads when a sparse value is first used


def _sparse_if_scipy(x: Any) -> Any:
    return as_sparse_variable(x) if sp.issparse(x) else x


def _dense_result(value: Any, dtype: str) -> np.ndarray:
    if sp.issparse(value):
        value = value.toarray()
    return np.asarray(value, dtype=dtype)


class StructuredDot(Op):
    """``a @ b`` for sparse ``a``; its gradient w.r.t. ``a`` lives on ``a``'s pattern."""

    __props__ = ()

    def make_node(self, a: Any, b: Any) -> Apply:
        a = as_sparse_variable(a)
        b = _sparse_if_scipy(b)
        if not _is_sparse_variable(b):
            b = as_tensor_variable(b)
        if b.type.ndim != 2:
            raise NotImplementedError(f"structured_dot: {_name(b)} must be a matrix")
        dtype = upcast(a.type.dtype, b.type.dtype)
        if _is_sparse_variable(b):
            return Apply(self, [a, b], [SparseTensorType(a.type.format, dtype)()])
        shape = (a.type.shape[0], b.type.shape[1])
        return Apply(self, [a, b], [TensorType(dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        a, b = inputs
        if a.shape[1] != b.shape[0]:
            raise ValueError(f"structured_dot: shape mismatch {a.shape} @ {b.shape}")
        res = a @ b
        otype = node.outputs[0].type
        if isinstance(otype, SparseTensorType):
            out[0][0] = sp.csr_matrix(res).astype(otype.dtype).asformat(otype.format)
        else:
            out[0][0] = _dense_result(res, otype.dtype)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        a, b = inputs
        g = gout[0]
        return [structured_dot_grad(a, b, g), structured_dot(transpose(a), g)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [(shapes[0][0], shapes[1][1])]


_structured_dot = StructuredDot()
"""``_structured_dot``: ``a @ b`` for sparse ``a``; its gradient w.r.t. ``a`` lives on ``a``'s
pattern."""


def structured_dot(x: Any, y: Any) -> Variable:
    """``x @ y`` with at least one sparse operand; the gradient is structured."""
    x, y = _sparse_if_scipy(x), _sparse_if_scipy(y)
    xs = isinstance(x, Variable) and _is_sparse_variable(x)
    ys = isinstance(y, Variable) and _is_sparse_variable(y)
    if not xs and not ys:
        raise TypeError("structured_dot requires at least one sparse argument")
    if xs:
        return _structured_dot(x, y)
    res = _structured_dot(transpose(y), as_tensor_variable(x).T)
    return transpose(res) if _is_sparse_variable(res) else res.T


class _StructuredDotGrad(Op):
    """``g_ab @ b.T`` sampled at the stored entries of sparse ``a`` (its data vector)."""

    __props__ = ()
    csr = False

    def make_node(self, a_indices: Any, a_indptr: Any, b: Any, g_ab: Any) -> Apply:
        ins = [as_tensor_variable(a_indices), as_tensor_variable(a_indptr)]
        b = b if isinstance(b, Variable) and _is_sparse_variable(b) else as_tensor_variable(b)
        g_ab = (g_ab if isinstance(g_ab, Variable) and _is_sparse_variable(g_ab)
                else as_tensor_variable(g_ab))
        dtype = upcast(b.type.dtype, g_ab.type.dtype)
        return Apply(self, [*ins, b, g_ab], [TensorType(dtype, (None,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        indices, indptr, b, g = inputs
        outer = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        rows, cols = (outer, indices) if self.csr else (indices, outer)
        g = g.toarray() if sp.issparse(g) else np.asarray(g)
        b = b.toarray() if sp.issparse(b) else np.asarray(b)
        vals = np.einsum("ij,ij->i", g[rows], b[cols]) if len(rows) else np.zeros(0)
        out[0][0] = vals.astype(node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


class StructuredDotGradCSC(_StructuredDotGrad):
    """Structured-dot gradient for a CSC ``a``."""

    csr = False


class StructuredDotGradCSR(_StructuredDotGrad):
    """Structured-dot gradient for a CSR ``a``."""

    csr = True


sdg_csc = StructuredDotGradCSC()
"""``sdg_csc``: Structured-dot gradient for a CSC ``a``."""
sdg_csr = StructuredDotGradCSR()
"""``sdg_csr``: Structured-dot gradient for a CSR ``a``."""


def structured_dot_grad(sparse_A: Any, dense_B: Any, ga: Any) -> Variable:
    """The gradient of ``structured_dot(A, B)`` w.r.t. ``A``, on ``A``'s pattern."""
    fmt = sparse_A.type.format
    if fmt not in ("csr", "csc"):
        raise NotImplementedError(f"structured_dot_grad: format {fmt} is not supported")
    grad_op, build = (sdg_csc, CSC) if fmt == "csc" else (sdg_csr, CSR)
    ind, ptr = csm_indices(sparse_A), csm_indptr(sparse_A)
    return build(grad_op(ind, ptr, dense_B, ga), ind, ptr, csm_shape(sparse_A))


class TrueDot(Op):
    """``x @ y`` for sparse ``x``: sparse result, regular gradient."""

    __props__ = ()

    def __init__(self, grad_preserves_dense: bool = True) -> None:
        self.grad_preserves_dense = grad_preserves_dense

    def make_node(self, x: Any, y: Any) -> Apply:
        if x.type.dtype != y.type.dtype:
            raise NotImplementedError(
                f"true_dot: dtypes differ ({x.type.dtype}, {y.type.dtype})")
        if not _is_sparse_variable(x):
            raise TypeError(f"true_dot: {_name(x)} must be sparse")
        fmt = "csr" if x.type.format == "csr" else "csc"
        return Apply(self, [x, y], [SparseTensorType(fmt, x.type.dtype)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        otype = node.outputs[0].type
        out[0][0] = sp.csr_matrix(x @ y).astype(otype.dtype).asformat(otype.format)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        x, y = inputs
        gz = gout[0]
        yt = transpose(y) if _is_sparse_variable(y) else y.T
        res = [true_dot(gz, yt), true_dot(transpose(x), gz)]
        if _is_dense_variable(y) and self.grad_preserves_dense:
            res[1] = res[1].toarray()
        return res

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [(shapes[0][0], shapes[1][1])]


def true_dot(x: Any, y: Any, grad_preserves_dense: bool = True) -> Variable:
    """``x @ y`` with at least one sparse operand, as a sparse matrix."""
    x, y = _sparse_if_scipy(x), _sparse_if_scipy(y)
    xs = isinstance(x, Variable) and _is_sparse_variable(x)
    ys = isinstance(y, Variable) and _is_sparse_variable(y)
    if not xs and not ys:
        raise TypeError("true_dot requires at least one sparse argument")
    if xs:
        return TrueDot(grad_preserves_dense)(x, y if ys else as_tensor_variable(y))
    return transpose(TrueDot(grad_preserves_dense)(transpose(y), as_tensor_variable(x).T))


class SamplingDot(Op):
    """``(x @ y.T)`` sampled where sparse ``p`` stores entries, times ``p``."""

    __props__ = ()

    def make_node(self, x: Any, y: Any, p: Any) -> Apply:
        x, y, p = as_tensor_variable(x), as_tensor_variable(y), as_sparse_variable(p)
        return Apply(self, [x, y, p], [p.type.clone(shape=(None, None))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y, p = inputs
        res = sp.csr_matrix(p.multiply(x @ y.T)).asformat(p.format)
        out[0][0] = res.astype(node.outputs[0].type.dtype)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        x, y, p = inputs
        pg = mul_s_s(p, gout[0])
        return [dot(pg, y), dot(transpose(pg), x), grad_not_implemented(self, 2, p)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[2]]


sampling_dot = SamplingDot()
"""``sampling_dot``: ``(x @ y.T)`` sampled where sparse ``p`` stores entries, times ``p``."""


class Dot(Op):
    """``x @ y`` with at least one sparse operand: a dense result."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = _sparse_if_scipy(x), _sparse_if_scipy(y)
        xs = isinstance(x, Variable) and _is_sparse_variable(x)
        ys = isinstance(y, Variable) and _is_sparse_variable(y)
        if not xs and not ys:
            raise TypeError(
                "Sparse dot product should have at least one sparse variable as inputs, but "
                f"the inputs are {x} ({getattr(x, 'type', type(x))}) and {y} "
                f"({getattr(y, 'type', type(y))}).")
        if not xs:
            x = as_tensor_variable(x)
            if x.type.ndim not in (1, 2):
                raise TypeError(f"Input 0 (0-indexed) must have ndim of 1 or 2, "
                                f"{x.type.ndim} given.")
        if not ys:
            y = as_tensor_variable(y)
            if y.type.ndim not in (1, 2):
                raise TypeError(f"Input 1 (0-indexed) must have ndim of 1 or 2, "
                                f"{y.type.ndim} given.")
        shape_x = (None, None) if xs else x.type.shape
        shape_y = (None, None) if ys else y.type.shape
        shape = shape_x[:-1] + shape_y[1:]
        dtype = upcast(x.type.dtype, y.type.dtype)
        return Apply(self, [x, y], [TensorType(dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        out[0][0] = _dense_result(x @ y, node.outputs[0].type.dtype)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        x, y = inputs
        gz = gout[0]
        if _is_dense_variable(y):
            gx = pt.dot(gz, y.T) if y.type.ndim == 2 else pt.outer(gz, y)
        else:
            gx = dot(gz, transpose(y))
        if _is_dense_variable(x):
            gy = pt.dot(x.T, gz) if x.type.ndim == 2 else pt.outer(x, gz)
        else:
            gy = dot(transpose(x), gz)
        return [_match(x, gx), _match(y, gy)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        xs, ys = shapes
        nx, ny = len(xs), len(ys)
        if nx == 2 and ny == 2:
            return [(xs[0], ys[1])]
        if nx == 1 and ny == 2:
            return [(ys[1],)]
        if nx == 2 and ny == 1:
            return [(xs[0],)]
        return [()]

    def __str__(self) -> str:
        return "Sparse" + type(self).__name__


def _match(var: Variable, g: Variable) -> Variable:
    """A dense gradient for a sparse input becomes sparse of its format."""
    if _is_sparse_variable(var) and not _is_sparse_variable(g):
        return SparseFromDense(var.type.format)(g)
    return g


_dot = Dot()
"""``_dot``: ``x @ y`` with at least one sparse operand: a dense result."""


def dot(x: Any, y: Any) -> Variable:
    """``x @ y`` with at least one sparse operand, as a dense tensor."""
    return _dot(x, y)


class Usmm(Op):
    """``alpha * (x @ y) + z`` with sparse ``x`` or ``y`` and dense ``z``."""

    __props__ = ()

    def make_node(self, alpha: Any, x: Any, y: Any, z: Any) -> Apply:
        if not (_is_sparse_variable(x) or _is_sparse_variable(y)):
            raise TypeError(f"usmm: {_name(x)} or {_name(y)} must be sparse")
        alpha, z = as_tensor_variable(alpha), as_tensor_variable(z)
        if z.type.ndim != 2:
            raise TypeError(f"usmm: {_name(z)} must be a matrix, got {z.type}")
        if not _is_sparse_variable(x):
            x = as_tensor_variable(x)
        if not _is_sparse_variable(y):
            y = as_tensor_variable(y)
        dtype = upcast(alpha.type.dtype, x.type.dtype, y.type.dtype, z.type.dtype)
        return Apply(self, [alpha, x, y, z], [TensorType(dtype, (None, None))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        alpha, x, y, z = inputs
        prod = x @ y
        prod = prod.toarray() if sp.issparse(prod) else np.asarray(prod)
        out[0][0] = np.asarray(prod * alpha + z, dtype=node.outputs[0].type.dtype)

    def __str__(self) -> str:
        return "Usmm{no_inplace}"


usmm = Usmm()
"""``usmm``: ``alpha * (x @ y) + z`` with sparse ``x`` or ``y`` and dense ``z``."""
