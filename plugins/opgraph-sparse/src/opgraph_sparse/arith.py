"""Elementwise arithmetic, comparisons and sums on sparse matrices.

Unary functions that map 0 to 0 act on the stored values only
(``structured_elemwise``): the result keeps the input's sparsity pattern and
its gradient flows through ``CSM``/``CSMProperties``.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.scalar import as_scalar, upcast
from opgraph.tensor.basic import as_tensor_variable
from opgraph.tensor.shape import specify_broadcastable
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_sparse.convert import (
    CSM,
    SparseFromDense,
    _is_sparse_variable,
    _name,
    as_sparse_or_tensor_variable,
    as_sparse_variable,
    continuous_dtypes,
    csm_properties,
    dense_from_sparse,
    mul_s_d,
    sp_ones_like,
    sp_zeros_like,
)
from opgraph_sparse.structure import col_scale, row_scale
from opgraph_sparse.type import SparseTensorType

sp = lazy_scipy_module("sparse")  # SciPy loads when a sparse value is first used


def structured_elemwise(tensor_op: Callable) -> Callable:
    """Decorator: apply ``tensor_op`` to the stored values of a CSR/CSC matrix only."""

    def decorator(f: Callable) -> Callable:
        @functools.wraps(f)
        def wrapper(*args: Any) -> Variable:
            x = as_sparse_variable(args[0])
            if x.type.format not in ("csr", "csc"):
                raise TypeError(f"{f.__name__}: {_name(x)} must be csr or csc, got {x.type}")
            extra = [as_scalar(a) for a in args[1:]]
            data, ind, ptr, shape = csm_properties(x)
            return CSM(x.type.format)(tensor_op(data, *extra), ind, ptr, shape)

        return wrapper

    return decorator


def _structured(tensor_op: Callable, name: str, doc: str) -> Callable:
    def f(*args: Any) -> Variable:
        raise NotImplementedError

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return structured_elemwise(tensor_op)(f)


_UNARY = {
    "abs": pt.abs, "sin": pt.sin, "sinh": pt.sinh, "arcsin": pt.arcsin, "arcsinh": pt.arcsinh,
    "tan": pt.tan, "tanh": pt.tanh, "arctan": pt.arctan, "arctanh": pt.arctanh,
    "rint": pt.round_half_to_even, "sign": pt.sign, "ceil": pt.ceil, "floor": pt.floor,
    "log1p": pt.log1p, "expm1": pt.expm1, "deg2rad": pt.deg2rad, "rad2deg": pt.rad2deg,
    "trunc": pt.trunc, "sqr": pt.sqr, "sqrt": pt.sqrt, "_conj": pt.conj,
}
_funcs = {name: _structured(op, name, f"``{name}`` of the stored values (0 maps to 0).")
          for name, op in _UNARY.items()}
abs = _funcs["abs"]
sin = _funcs["sin"]
sinh = _funcs["sinh"]
arcsin = _funcs["arcsin"]
arcsinh = _funcs["arcsinh"]
tan = _funcs["tan"]
tanh = _funcs["tanh"]
arctan = _funcs["arctan"]
arctanh = _funcs["arctanh"]
rint = _funcs["rint"]
sign = _funcs["sign"]
ceil = _funcs["ceil"]
floor = _funcs["floor"]
log1p = _funcs["log1p"]
expm1 = _funcs["expm1"]
deg2rad = _funcs["deg2rad"]
rad2deg = _funcs["rad2deg"]
trunc = _funcs["trunc"]
sqr = _funcs["sqr"]
sqrt = _funcs["sqrt"]
_conj = _funcs["_conj"]
structured_sigmoid = _structured(pt.sigmoid, "structured_sigmoid",
                                 "Sigmoid of the stored values only.")
structured_exp = _structured(pt.exp, "structured_exp", "Exp of the stored values only.")
structured_log = _structured(pt.log, "structured_log", "Log of the stored values only.")
structured_pow = _structured(pt.pow, "structured_pow",
                             "The stored values to the power of a scalar.")
structured_minimum = _structured(pt.minimum, "structured_minimum",
                                 "Minimum of the stored values and a scalar.")
structured_maximum = _structured(pt.maximum, "structured_maximum",
                                 "Maximum of the stored values and a scalar.")
structured_add = _structured(pt.add, "structured_add", "The stored values plus a scalar.")


def neg(x: Any) -> Variable:
    """``-x`` for a sparse ``x``."""
    return -1 * x


def conjugate(x: Any) -> Variable:
    """The complex conjugate of the stored values (a no-op on real matrices)."""
    x = as_sparse_variable(x)
    if x.type.dtype not in ("complex64", "complex128"):
        return x
    return _conj(x)


structured_conjugate = conj = conjugate


class SpSum(Op):
    """Sum of a sparse matrix over ``axis`` (None, 0 or 1), as a dense tensor.

    ``sparse_grad`` (not a prop, so both kinds merge) makes the gradient structured.
    """

    __props__ = ("axis",)

    def __init__(self, axis: int | None = None, sparse_grad: bool = True) -> None:
        if axis not in (None, 0, 1):
            raise ValueError(f"SpSum: axis must be None, 0 or 1, got {axis!r}")
        self.axis = axis
        self.structured = sparse_grad

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        shape = () if self.axis is None else (None,)
        return Apply(self, [x], [TensorType(x.type.dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        (x,) = inputs
        dtype = node.outputs[0].type.dtype
        if self.axis is None:
            out[0][0] = np.asarray(x.sum(), dtype=dtype)
        else:
            out[0][0] = np.asarray(x.sum(self.axis), dtype=dtype).ravel()

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        (x,) = inputs
        (gz,) = gout
        if x.type.dtype not in continuous_dtypes:
            return [sp_zeros_like(x)]
        if self.structured:
            ones = sp_ones_like(x)
            if self.axis is None:
                return [mul_s_d(ones, gz)]
            return [col_scale(ones, gz) if self.axis == 0 else row_scale(ones, gz)]
        dense = dense_from_sparse(x)
        if self.axis is None:
            r = pt.second(dense, gz)
        elif self.axis == 0:
            r = specify_broadcastable(gz.dimshuffle("x", 0), 0) * pt.ones_like(dense)
        else:
            r = specify_broadcastable(gz.dimshuffle(0, "x"), 1) * pt.ones_like(dense)
        return [SparseFromDense(x.type.format)(r)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        if self.axis is None:
            return [()]
        return [(shapes[0][1],)] if self.axis == 0 else [(shapes[0][0],)]

    def __str__(self) -> str:
        return f"{type(self).__name__}{{axis={self.axis}}}"


def sp_sum(x: Any, axis: int | None = None, sparse_grad: bool = False) -> Variable:
    """The sum of sparse ``x`` over ``axis``, as a dense tensor."""
    return SpSum(axis, sparse_grad)(x)


def _check_formats(who: str, *xs: Variable) -> None:
    for x in xs:
        if x.type.format not in ("csr", "csc"):
            raise TypeError(f"{who}: {_name(x)} must be csr or csc, got {x.type}")


def _same_shape(who: str, x: Any, y: Any) -> None:
    if x.shape != y.shape:
        raise ValueError(f"{who}: shapes {x.shape} and {y.shape} differ")


class AddSS(Op):
    """Sparse + sparse: sparse."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_sparse_variable(y)
        _check_formats("add_s_s", x, y)
        out = SparseTensorType(x.type.format, upcast(x.type.dtype, y.type.dtype))
        return Apply(self, [x, y], [out()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        _same_shape("add_s_s", x, y)
        res = (x + y).astype(node.outputs[0].type.dtype)
        out[0][0] = res.asformat(node.outputs[0].type.format)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        return [gout[0], gout[0]]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


add_s_s = AddSS()
"""``add_s_s``: Sparse + sparse: sparse."""


class AddSSData(Op):
    """Add the stored values of two sparse matrices of the same pattern."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_sparse_variable(y)
        _check_formats("add_s_s_data", x, y)
        if x.type.dtype != y.type.dtype or x.type.format != y.type.format:
            raise NotImplementedError(
                f"add_s_s_data: both matrices must have one format and dtype, got {x.type} "
                f"and {y.type}")
        return Apply(self, [x, y], [x.type.clone(shape=(None, None))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        _same_shape("add_s_s_data", x, y)
        if x.data.shape != y.data.shape:
            raise ValueError("add_s_s_data: the matrices store different numbers of values")
        res = x.copy()
        res.data += y.data
        out[0][0] = res

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        return [gout[0] if i.type.dtype in continuous_dtypes else sp_zeros_like(i)
                for i in inputs]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


add_s_s_data = AddSSData()
"""``add_s_s_data``: Add the stored values of two sparse matrices of the same pattern."""


class AddSD(Op):
    """Sparse + dense matrix: dense."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_tensor_variable(y)
        _check_formats("add_s_d", x)
        if y.type.ndim != 2:
            raise TypeError(f"add_s_d: {_name(y)} must be a matrix, got {y.type}")
        out = TensorType(upcast(x.type.dtype, y.type.dtype), y.type.shape)
        return Apply(self, [x, y], [out()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        out[0][0] = np.asarray(x + y, dtype=node.outputs[0].type.dtype)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        x, _y = inputs
        return [mul_s_d(sp_ones_like(x), gout[0]), gout[0]]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[1]]


add_s_d = AddSD()
"""``add_s_d``: Sparse + dense matrix: dense."""


class StructuredAddSV(Op):
    """Add vector ``y[j]`` to the stored entries of column ``j`` of sparse ``x``."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_tensor_variable(y)
        _check_formats("structured_add_s_v", x)
        if y.type.ndim != 1:
            raise TypeError(f"structured_add_s_v: {_name(y)} must be a vector, got {y.type}")
        if x.type.dtype != y.type.dtype:
            raise NotImplementedError(
                f"structured_add_s_v: dtypes differ ({x.type.dtype}, {y.type.dtype})")
        return Apply(self, [x, y], [x.type.clone(shape=(None, None))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        if x.shape[1] != y.shape[0]:
            raise ValueError(f"structured_add_s_v: {x.shape[1]} columns, {y.shape[0]} values")
        coo = x.tocoo(copy=True)
        coo.data = coo.data + y[coo.col]
        out[0][0] = coo.asformat(x.format)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        return [gout[0], sp_sum(gout[0], axis=0, sparse_grad=True)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


structured_add_s_v = StructuredAddSV()
"""``structured_add_s_v``: Add vector ``y[j]`` to the stored entries of column ``j`` of sparse
``x``."""


def _operands(x: Any, y: Any) -> tuple[Variable, Variable]:
    x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
    if not (_is_sparse_variable(x) or _is_sparse_variable(y)):
        raise TypeError(f"expected at least one sparse operand, got {x.type} and {y.type}")
    return x, y


def add(x: Any, y: Any) -> Variable:
    """``x + y`` with at least one sparse operand; sparse + dense is dense."""
    x, y = _operands(x, y)
    if _is_sparse_variable(x) and _is_sparse_variable(y):
        return add_s_s(x, y)
    if _is_sparse_variable(x):
        return add_s_d(x, y)
    return add_s_d(y, x)


def subtract(x: Any, y: Any) -> Variable:
    """``x - y`` with at least one sparse operand."""
    x, y = _operands(x, y)
    return add(x, neg(y) if _is_sparse_variable(y) else -y)


def sub(x: Any, y: Any) -> Variable:
    """Deprecated spelling of :func:`subtract`."""
    warnings.warn("opgraph.sparse.sub is deprecated: use opgraph.sparse.subtract",
                  DeprecationWarning, stacklevel=2)
    return subtract(x, y)


class SparseSparseMultiply(Op):
    """Elementwise sparse * sparse: sparse."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_sparse_variable(y)
        _check_formats("mul_s_s", x, y)
        out = SparseTensorType(x.type.format, upcast(x.type.dtype, y.type.dtype))
        return Apply(self, [x, y], [out()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        _same_shape("mul_s_s", x, y)
        res = sp.csr_matrix(x.multiply(y)).astype(node.outputs[0].type.dtype)
        out[0][0] = res.asformat(node.outputs[0].type.format)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        x, y = inputs
        return [mul_s_s(y, gout[0]), mul_s_s(x, gout[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


mul_s_s = SparseSparseMultiply()
"""``mul_s_s``: Elementwise sparse * sparse: sparse."""


class SparseDenseVectorMultiply(Op):
    """Sparse matrix times a dense vector broadcast along the rows: sparse."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_tensor_variable(y)
        _check_formats("mul_s_v", x)
        if y.type.ndim != 1:
            raise ValueError(f"mul_s_v: {_name(y)} must have 1 dimension, got {y.type.ndim}")
        if x.type.dtype != y.type.dtype:
            raise NotImplementedError(
                f"mul_s_v: differing dtypes are not supported ({x.type.dtype}, {y.type.dtype})")
        a, b = x.type.shape[1], y.type.shape[0]
        if a is not None and b is not None and a != b:
            raise ValueError(f"mul_s_v: incompatible static shapes {x.type.shape}, "
                             f"{y.type.shape}")
        shape = (x.type.shape[0], b if a is None else a)
        return Apply(self, [x, y], [x.type.clone(shape=shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        if x.shape[1] != y.shape[0]:
            raise ValueError(f"mul_s_v: {x.shape[1]} columns, {y.shape[0]} values")
        coo = x.tocoo(copy=True)
        coo.data = coo.data * y[coo.col]
        out[0][0] = coo.asformat(x.format)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        x, y = inputs
        gz = gout[0]
        if gz.type.dtype != y.type.dtype:
            dtype = upcast(gz.type.dtype, y.type.dtype)
            y = y.astype(dtype)
            gz = _cast_sparse(gz, dtype)
        return [mul_s_v(gz, y), sp_sum(mul_s_s(x, gz), axis=0, sparse_grad=True)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


mul_s_v = SparseDenseVectorMultiply()
"""``mul_s_v``: Sparse matrix times a dense vector broadcast along the rows: sparse."""


def _cast_sparse(x: Variable, dtype: str) -> Variable:
    data, ind, ptr, shape = csm_properties(x)
    return CSM(x.type.format)(data.astype(dtype), ind, ptr, shape)


def multiply(x: Any, y: Any) -> Variable:
    """Elementwise ``x * y`` with at least one sparse operand: sparse."""
    x, y = _operands(x, y)
    if _is_sparse_variable(x) and _is_sparse_variable(y):
        if y.type.dtype == "float64" and x.type.dtype == "float32":
            x = _cast_sparse(x, "float64")
        return mul_s_s(x, y)
    if _is_sparse_variable(y):
        x, y = y, x
    if y.type.dtype == "float64" and x.type.dtype == "float32":
        x = _cast_sparse(x, "float64")
    if y.type.ndim == 1:
        return mul_s_v(x, y)
    return mul_s_d(x, y)


def mul(x: Any, y: Any) -> Variable:
    """Deprecated spelling of :func:`multiply`."""
    warnings.warn("opgraph.sparse.mul is deprecated: use opgraph.sparse.multiply",
                  DeprecationWarning, stacklevel=2)
    return multiply(x, y)



