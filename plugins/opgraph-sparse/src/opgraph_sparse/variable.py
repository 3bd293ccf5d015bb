"""``SparseVariable`` and ``SparseConstant``: the operators sparse graphs are written with.

Arithmetic, comparisons, ``.T``, ``sum``, indexing and ``dot`` stay sparse;
the tensor methods sparse Ops lack (``exp``, ``reshape``, ``max``, ...) convert
the matrix to dense first and warn (``override_dense``).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.autodiff.arith import GradientArithmetic, register_gradient_arithmetic
from opgraph.graph.basic import Constant, Variable
from opgraph.tensor.shape import shape as _shape
from opgraph.tensor.variable import TensorVariable
from opgraph.utils import lazy_scipy_module
from opgraph_sparse import batching  # noqa: F401 (registers the batching rules)
from opgraph_sparse.arith import add as _add
from opgraph_sparse.arith import multiply, neg, sp_sum, structured_conjugate, subtract
from opgraph_sparse.compare import ge, gt, le, lt
from opgraph_sparse.convert import (
    cast,
    csm_data,
    dense_from_sparse,
    sp_ones_like,
    sp_zeros_like,
)
from opgraph_sparse.products import structured_dot
from opgraph_sparse.structure import (
    get_item_2d,
    get_item_2lists,
    get_item_list,
    get_item_scalar,
    transpose,
)
from opgraph_sparse.type import SparseTensorType
from opgraph_sparse.utils import hash_from_sparse

sp = lazy_scipy_module("sparse")  # SciPy loads when a sparse value is first used

__all__ = ["SparseConstant", "SparseConstantSignature", "SparseVariable", "constant",
           "override_dense"]

add = _add


def constant(x: Any, name: str | None = None) -> SparseConstant:
    """A SparseConstant holding a copy of scipy matrix ``x``."""
    if not isinstance(x, sp.spmatrix):
        raise TypeError(
            f"sparse.constant must be called on a scipy.sparse matrix, got {type(x).__name__}")
    return SparseConstant(SparseTensorType(x.format, x.dtype), x.copy(), name=name)


def override_dense(method: Callable) -> Callable:
    """The TensorVariable method of the same name, applied to the dense matrix (warns)."""
    name = method.__name__

    @functools.wraps(method)
    def to_dense(self: Any, *args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            f"Method {method.__name__} is not implemented for sparse variables: the variable "
            "will be converted to dense.", UserWarning, stacklevel=2)
        args = tuple(a.toarray() if isinstance(getattr(a, "type", None), SparseTensorType)
                     else a for a in args)
        # TensorVariable spells a few of these as functions only (``ceil``, ``trace``...),
        # some served by plugins: looked up when called.
        dense_method = getattr(TensorVariable, name, None) or getattr(pt, name)
        return dense_method(self.toarray(), *args, **kwargs)

    to_dense._is_dense_override = True  # type: ignore[attr-defined]
    return to_dense


def _dense(name: str) -> Callable:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    method.__name__ = method.__qualname__ = name
    return override_dense(method)


_DENSE_METHODS = (
    "__abs__", "__ceil__", "__floor__", "__trunc__", "transpose", "any", "all", "nonzero",
    "nonzero_values", "flatten", "ravel", "arccos", "arcsin", "arctan", "arccosh", "arcsinh",
    "arctanh", "ceil", "cos", "cosh", "deg2rad", "exp", "exp2", "expm1", "floor", "log",
    "log10", "log1p", "log2", "rad2deg", "sin", "sinh", "sqrt", "tan", "tanh", "copy", "prod",
    "mean", "var", "std", "min", "max", "argmin", "argmax", "argsort", "round", "trace",
    "cumsum", "cumprod", "ptp", "squeeze", "diagonal", "__and__", "__or__", "__xor__",
    "__pow__", "__mod__", "__divmod__", "__truediv__", "__floordiv__", "reshape", "dimshuffle",
    "repeat",
)


def _is_scalar_index(i: Any) -> bool:
    if isinstance(i, Variable):
        return getattr(i.type, "ndim", -1) == 0 and str(i.type.dtype).startswith(("int", "uint"))
    return bool(np.isscalar(i))


class _sparse_py_operators:
    """Operators and methods shared by SparseVariable and SparseConstant."""

    __slots__ = ()

    T = property(lambda self: transpose(self), doc="The transpose (read-only, sparse).")

    def astype(self, dtype: Any) -> Variable:
        return cast(self, dtype)

    def __neg__(self) -> Variable:
        return neg(self)

    def __add__(left, right: Any) -> Variable:
        return add(left, right)

    def __radd__(right, left: Any) -> Variable:
        return add(left, right)

    def __sub__(left, right: Any) -> Variable:
        return subtract(left, right)

    def __rsub__(right, left: Any) -> Variable:
        return subtract(left, right)

    def __mul__(left, right: Any) -> Variable:
        return multiply(left, right)

    def __rmul__(left, right: Any) -> Variable:
        return multiply(left, right)

    def __lt__(self, other: Any) -> Variable:
        return lt(self, other)

    def __le__(self, other: Any) -> Variable:
        return le(self, other)

    def __gt__(self, other: Any) -> Variable:
        return gt(self, other)

    def __ge__(self, other: Any) -> Variable:
        return ge(self, other)

    def __dot__(left, right: Any) -> Variable:
        return structured_dot(left, right)

    def __rdot__(right, left: Any) -> Variable:
        return structured_dot(left, right)

    dot = __dot__

    def sum(self, axis: int | None = None, sparse_grad: bool = False) -> Variable:
        return sp_sum(self, axis=axis, sparse_grad=sparse_grad)

    def toarray(self) -> Variable:
        return dense_from_sparse(self)

    todense = toarray

    @property
    def shape(self) -> Variable:
        return _shape(dense_from_sparse(self))

    ndim = property(lambda self: self.type.ndim)
    dtype = property(lambda self: self.type.dtype)
    format = property(lambda self: self.type.format)
    broadcastable = property(lambda self: self.type.broadcastable)
    # The number of stored entries (explicit zeros included), as for scipy matrices.
    size = property(lambda self: csm_data(self).size)

    def zeros_like(self) -> Variable:
        return sp_zeros_like(self)

    def ones_like(self) -> Variable:
        return sp_ones_like(self)

    def conj(self) -> Variable:
        return structured_conjugate(self)

    def __getitem__(self, args: Any) -> Variable:
        if not isinstance(args, tuple):
            args = (args,)
        if len(args) == 2:
            if _is_scalar_index(args[0]) and _is_scalar_index(args[1]):
                return get_item_scalar(self, args)
            if isinstance(args[0], list):
                return get_item_2lists(self, args[0], args[1])
            return get_item_2d(self, args)
        if isinstance(args[0], list):
            return get_item_list(self, args[0])
        return get_item_2d(self, args)

    def __iter__(self) -> Any:
        raise TypeError("sparse variables are not iterable")


for _m in _DENSE_METHODS:
    setattr(_sparse_py_operators, _m, _dense(_m))


class SparseVariable(_sparse_py_operators, Variable):
    """A symbolic sparse matrix."""

    __slots__ = ()

    def __str__(self) -> str:
        if self.name:
            return self.name
        return f"{type(self).__name__}{{{self.type.format},{self.type.dtype}}}"

    __repr__ = __str__


class SparseConstantSignature(tuple):
    """``(type, matrix)``: equal when the matrices agree to 1e-6 per stored entry."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, tuple) or len(other) != 2:
            return False
        (a, b), (x, y) = self, other
        return (a == x and b.dtype == y.dtype and type(b) is type(y) and b.shape == y.shape
                and abs(b - y).sum() <= 1e-6 * max(b.nnz, 1))

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        a, b = self
        return hash(type(self)) ^ hash(a) ^ hash(type(b))

    def pytensor_hash(self) -> str:
        return hash_from_sparse(self[1])


class SparseConstant(_sparse_py_operators, Constant):
    """A constant sparse matrix."""

    __slots__ = ()

    def signature(self) -> Any:
        return SparseConstantSignature((self.type, self.data))

    @property
    def unique_value(self) -> None:
        return None

    def __str__(self) -> str:
        return (f"{type(self).__name__}{{{self.type.format},{self.type.dtype},"
                f"shape={self.data.shape},nnz={self.data.nnz}}}")

    __repr__ = __str__


SparseTensorType.variable_type = SparseVariable
SparseTensorType.constant_type = SparseConstant


def _zeros(var: Variable, dtype: str) -> Variable:
    zeros = sp_zeros_like(var)
    return zeros if var.type.dtype == dtype else cast(zeros, dtype)


def _one(var: Variable, dtype: str) -> Variable:
    raise TypeError(f"{var} is a sparse matrix: the cost of grad() must be a scalar")


def _filled(var: Variable, value: Any, dtype: str) -> Variable:
    if not isinstance(value, Variable) and np.all(np.asarray(value) == 0):
        return _zeros(var, dtype)
    return multiply(cast(sp_ones_like(var), dtype), value)


def _cast(term: Variable, dtype: str) -> Variable:
    if isinstance(term.type, SparseTensorType):
        return cast(term, dtype)
    return pt.cast(term, dtype)


def _add(*terms: Variable) -> Variable:
    return functools.reduce(add, terms)


register_gradient_arithmetic(
    SparseTensorType,
    GradientArithmetic(zeros=_zeros, one=_one, filled=_filled, cast=_cast, add=_add))
