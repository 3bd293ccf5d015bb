"""TensorVariable / TensorConstant (Python operators build graph nodes) and the
conversions ``as_tensor_variable`` / ``constant``.

Dtype rule for Python numbers (documented once, used everywhere):

* On their own (``constant(2)``, ``as_tensor_variable(2.5)``): bool -> bool,
  int -> int64 (uint64 if only that fits), float -> floatX, complex -> complex128.
  Nested lists follow NumPy, except that float64 becomes floatX.
* Inside an elementwise expression (``x * 2.``, ``pt.maximum(x, 0)``) Python
  numbers are *weak*, as in NumPy 2 (NEP 50): they take the dtype of the
  array operands (``fmatrix * 2.`` stays float32, ``ivector + 1`` stays
  int32), widening only when the value does not fit (``bvector + 1000`` is
  int16). See ``opgraph.tensor.elemwise.as_elemwise_inputs``.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.unify import register_pattern_constant
from opgraph.graph.utils import type_name
from opgraph.scalar.autocast import autocast_float
from opgraph.scalar.type import ScalarType
from opgraph.tensor.function_table import TENSOR_FUNCTIONS, register_tensor_functions
from opgraph.tensor.type import TensorType, get_floatX

__all__ = [
    "TensorConstant",
    "TensorVariable",
    "as_tensor",
    "as_tensor_variable",
    "as_tensor_variable_dispatch",
    "constant",
    "python_number_dtype",
    "register_tensor_functions",
    "register_tensor_methods",
]


def _math() -> Any:
    """The registered tensor functions (see :mod:`opgraph.tensor.function_table`)."""
    return TENSOR_FUNCTIONS


def _binary(name: str, reflected: bool = False) -> Any:
    def method(self: TensorVariable, other: Any) -> Any:
        fn = getattr(_math(), name)
        try:
            return fn(other, self) if reflected else fn(self, other)
        except (NotImplementedError, TypeError):
            if _convertible(other):
                raise
            return NotImplemented

    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


def _convertible(x: Any) -> bool:
    """Whether ``x`` is something as_tensor_variable accepts (to pick NotImplemented)."""
    return isinstance(x, Variable | numbers.Number | np.ndarray | np.generic | list | tuple)


# NumPy ufunc names whose tensor function has another name.
_UFUNC_NAMES = {
    "absolute": "abs", "negative": "neg", "multiply": "mul", "subtract": "sub",
    "divide": "true_div", "true_divide": "true_div", "floor_divide": "int_div",
    "power": "pow", "remainder": "mod", "bitwise_and": "and_", "bitwise_or": "or_",
    "bitwise_xor": "xor", "invert": "invert", "logical_not": "invert",
    "less": "lt", "greater": "gt", "less_equal": "le", "greater_equal": "ge",
    "logical_and": "and_", "logical_or": "or_", "logical_xor": "xor",
}
# ``array == var`` stays Python's identity comparison, not an elementwise graph.
_IDENTITY_UFUNC = frozenset({"equal", "not_equal"})


class _TensorOperators:
    """Operators and NumPy-like methods shared by TensorVariable and TensorConstant."""

    __slots__ = ()
    # NumPy hands ``ndarray * var`` and ``np.exp(var)`` to the tensor functions.
    __array_priority__ = 1000

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """``np.exp(x)``, ``np.add(array, x)``...: the tensor function of the same name.

        Only plain calls without ``out=``/``where=`` are symbolic; anything else is
        NotImplemented (so NumPy raises its usual TypeError).
        """
        if ufunc.__name__ in _IDENTITY_UFUNC and method == "__call__" and len(inputs) == 2:
            same = inputs[0] is inputs[1]  # what Python's ``==`` on objects gives
            return same if ufunc.__name__ == "equal" else not same
        if method != "__call__" or kwargs:
            return NotImplemented
        fn = getattr(_math(), _UFUNC_NAMES.get(ufunc.__name__, ufunc.__name__), None)
        if fn is None or not callable(fn):
            return NotImplemented
        return fn(*inputs)

    # -- arithmetic ------------------------------------------------------------------
    __add__ = _binary("add")
    __radd__ = _binary("add", True)
    __sub__ = _binary("sub")
    __rsub__ = _binary("sub", True)
    __mul__ = _binary("mul")
    __rmul__ = _binary("mul", True)
    __truediv__ = _binary("true_div")
    __rtruediv__ = _binary("true_div", True)
    __floordiv__ = _binary("int_div")
    __rfloordiv__ = _binary("int_div", True)
    __mod__ = _binary("mod")
    __rmod__ = _binary("mod", True)
    __pow__ = _binary("pow")
    __rpow__ = _binary("pow", True)
    __matmul__ = _binary("matmul")
    __rmatmul__ = _binary("matmul", True)
    __and__ = _binary("and_")
    __rand__ = _binary("and_", True)
    __or__ = _binary("or_")
    __ror__ = _binary("or_", True)
    __xor__ = _binary("xor")
    __rxor__ = _binary("xor", True)
    # Comparisons are symbolic; == and != keep identity semantics (use eq()/neq()).
    __lt__ = _binary("lt")
    __le__ = _binary("le")
    __gt__ = _binary("gt")
    __ge__ = _binary("ge")

    def __divmod__(self, other: Any) -> tuple[Any, Any]:
        m = _math()
        return m.int_div(self, other), m.mod(self, other)

    def __rdivmod__(self, other: Any) -> tuple[Any, Any]:
        m = _math()
        return m.int_div(other, self), m.mod(other, self)

    def __neg__(self) -> Any:
        return _math().neg(self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return _math().abs(self)

    def __invert__(self) -> Any:
        return _math().invert(self)

    def __round__(self, ndigits: int | None = None) -> Any:
        if ndigits:
            raise NotImplementedError("round(x, ndigits) with ndigits != 0 is not supported")
        return _math().round(self)

    def __trunc__(self) -> Any:
        return _math().trunc(self)

    def __floor__(self) -> Any:
        return _math().floor(self)

    def __ceil__(self) -> Any:
        return _math().ceil(self)

    def __bool__(self) -> bool:
        raise TypeError(
            f"The truth value of the symbolic variable {self} is unknown until it is computed; "
            "use pt.switch/pt.where or ifelse for conditions, and `is` for identity"
        )

    def __iter__(self) -> Any:
        length = self.type.shape[0] if self.ndim else None  # type: ignore[attr-defined]
        if length is None:
            raise TypeError(
                f"cannot iterate over {self}: its first dimension has no static length "
                "(index it explicitly, or give the type a static shape)"
            )
        for i in range(length):
            yield self[i]

    # -- indexing ------------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Any:
        return TENSOR_FUNCTIONS.get_item(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(
            "symbolic tensors are immutable (no item assignment): use pt.set_subtensor(x[index], "
            "value) to build the updated tensor. Use the output of `x[idx].set` or "
            "`x[idx].inc` instead."
        )

    def set(self, value: Any, **kwargs: Any) -> Any:
        """``x[idx].set(y)``: x with that part replaced by y (set_subtensor)."""
        return TENSOR_FUNCTIONS.set_subtensor(self, value, **kwargs)

    def inc(self, value: Any, **kwargs: Any) -> Any:
        """``x[idx].inc(y)``: x with y added to that part (inc_subtensor)."""
        return TENSOR_FUNCTIONS.inc_subtensor(self, value, **kwargs)

    # -- static information ----------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return self.type.ndim  # type: ignore[attr-defined]

    @property
    def dtype(self) -> str:
        return self.type.dtype  # type: ignore[attr-defined]

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return self.type.broadcastable  # type: ignore[attr-defined]

    @property
    def shape(self) -> Any:
        return TENSOR_FUNCTIONS.shape(self)

    @property
    def size(self) -> Any:
        return _math().prod(self.shape)

    @property
    def T(self) -> Any:
        return self.transpose()

    @property
    def mT(self) -> Any:
        """The last two axes swapped, as NumPy's ``mT`` (a stack of matrices, transposed)."""
        if self.ndim < 2:
            raise ValueError(f"mT needs at least 2 dimensions; {self} has {self.ndim}")
        return self.dimshuffle(*range(self.ndim - 2), self.ndim - 1, self.ndim - 2)

    # -- shape manipulation ------------------------------------------------------------
    def dimshuffle(self, *pattern: Any) -> Any:
        """Reorder, add ("x") or drop (broadcastable) dimensions: ``x.dimshuffle(1, "x", 0)``."""
        if len(pattern) == 1 and isinstance(pattern[0], list | tuple):
            pattern = tuple(pattern[0])
        return TENSOR_FUNCTIONS.DimShuffle(input_ndim=self.ndim, new_order=tuple(pattern))(self)

    def transpose(self, *axes: Any) -> Any:
        if len(axes) == 1 and isinstance(axes[0], list | tuple | np.ndarray):
            axes = tuple(int(a) for a in axes[0])
        return TENSOR_FUNCTIONS.transpose(self, axes or None)

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
        """``np.diagonal``: the diagonal of the (axis1, axis2) planes, shifted by ``offset``."""
        return TENSOR_FUNCTIONS.diagonal(self, offset, axis1, axis2)

    def reshape(self, shape: Any, *, ndim: int | None = None) -> Any:
        return TENSOR_FUNCTIONS.reshape(self, shape, ndim=ndim)

    def flatten(self, ndim: int = 1) -> Any:
        return TENSOR_FUNCTIONS.flatten(self, ndim)

    def ravel(self) -> Any:
        return self.flatten()

    def squeeze(self, axis: Any = None) -> Any:
        return TENSOR_FUNCTIONS.squeeze(self, axis)

    def astype(self, dtype: Any) -> Any:
        return _math().cast(self, dtype)

    def copy(self, name: str | None = None) -> Any:
        return _math().tensor_copy(self, name=name)

    # -- reductions and friends ------------------------------------------------------------
    def sum(self, axis: Any = None, dtype: Any = None, keepdims: bool = False,
            acc_dtype: Any = None) -> Any:
        return _math().sum(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def prod(self, axis: Any = None, dtype: Any = None, keepdims: bool = False,
             acc_dtype: Any = None) -> Any:
        return _math().prod(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def mean(self, axis: Any = None, dtype: Any = None, keepdims: bool = False,
             acc_dtype: Any = None) -> Any:
        return _math().mean(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def var(self, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
        return _math().var(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def std(self, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
        return _math().std(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def max(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _math().max(self, axis=axis, keepdims=keepdims)

    def min(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _math().min(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _math().argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _math().argmin(self, axis=axis, keepdims=keepdims)

    def any(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _math().any(self, axis=axis, keepdims=keepdims)

    def all(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _math().all(self, axis=axis, keepdims=keepdims)

    def dot(self, other: Any) -> Any:
        return _math().dot(self, other)

    def clip(self, a_min: Any, a_max: Any) -> Any:
        return _math().clip(self, a_min, a_max)

    def norm(self, L: float, axis: Any = None, keepdims: bool = False) -> Any:
        """The ``L``-norm ``sum(|x| ** L) ** (1 / L)`` over ``axis`` (``L`` finite, non-zero)."""
        if L == 0 or not np.isfinite(L):
            raise NotImplementedError(f"norm: only finite, non-zero L are supported, got {L}")
        powered = _math().abs(self) ** L
        return powered.sum(axis=axis, keepdims=keepdims) ** (1.0 / L)

    def fill(self, value: Any) -> Any:
        """``value`` broadcast to this tensor's shape (PyTensor's ``fill(self, value)``)."""
        return _math().second(self, value)

    def round(self, mode: str | None = None) -> Any:
        return _math().round(self, mode=mode)

    def conj(self) -> Any:
        return _math().conj(self)

    conjugate = conj

    def zeros_like(self, dtype: Any = None) -> Any:
        return TENSOR_FUNCTIONS.zeros_like(self, dtype=dtype)

    def ones_like(self, dtype: Any = None) -> Any:
        return TENSOR_FUNCTIONS.ones_like(self, dtype=dtype)


def register_tensor_methods(**functions: Any) -> None:
    """Give tensor variables and constants the methods ``x.name(...) == function(x, ...)``.

    The modules that define array functions above this one (``sort``,
    ``extra_ops``...) call this at import, so a method lives next to the
    function it forwards to and this module imports none of them.
    """
    for name, fn in functions.items():
        if name in _TensorOperators.__dict__ and _TensorOperators.__dict__[name] is not fn:
            raise ValueError(f"tensor method {name!r} is already defined")

        def method(self: Any, *args: Any, _fn: Any = fn, **kwargs: Any) -> Any:
            return _fn(self, *args, **kwargs)

        method.__name__ = name
        method.__doc__ = fn.__doc__
        setattr(_TensorOperators, name, method)


class TensorVariable(_TensorOperators, Variable):
    """A symbolic NumPy array; Python operators and methods build graph nodes."""

    __slots__ = ()


class TensorConstant(TensorVariable, Constant):
    """A constant array (read-only ``data``); equal constants share a signature and merge."""

    __slots__ = ()

    def __str__(self) -> str:
        data = self.data
        text = str(data) if data.size <= 8 else np.array2string(data, threshold=6)
        text = " ".join(text.split())
        if len(text) > 40:
            text = text[:25].strip() + " ... " + text[-10:].strip()
        # A named constant prints as name{value}, as PyTensor (and a graph Constant) does.
        return f"{self.name}{{{text}}}" if self.name is not None else f"TensorConstant{{{text}}}"


TensorType.variable_type = TensorVariable
TensorType.constant_type = TensorConstant


# --------------------------------------------------------------------------- conversions


def python_number_dtype(x: Any) -> str:
    """Dtype of a Python number used on its own (see the module docstring)."""
    if isinstance(x, bool | np.bool_):
        return "bool"
    if isinstance(x, int):
        if -(2**63) <= x < 2**63:
            return "int64"
        if 0 <= x < 2**64:
            return "uint64"
        raise TypeError(f"the Python int {x} does not fit in 64 bits (int64 or uint64)")
    if isinstance(x, float):
        if autocast_float.overridden:
            return autocast_float(x)
        return get_floatX()
    if isinstance(x, complex):
        return "complex128"
    raise TypeError(f"expected a Python number, got {type_name(x)} {x!r:.60}")


def _is_python_data(x: Any) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, np.generic)


def _to_array(x: Any, dtype: Any = None) -> np.ndarray:
    """``x`` as an ndarray following the documented dtype rule."""
    if dtype is not None:
        dtype = np.dtype(get_floatX() if dtype == "floatX" else dtype)
        try:
            arr = np.asarray(x)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"cannot convert {type_name(x)} {x!r:.60} to a tensor: {exc}") from None
        if arr.dtype.kind not in "biufc":
            raise TypeError(
                f"cannot convert {type_name(x)} {x!r:.60} to a numeric tensor of dtype {dtype}"
            )
        return arr.astype(dtype, copy=False)
    if _is_python_data(x):
        return np.asarray(x, dtype=python_number_dtype(x))
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cannot convert {type_name(x)} {x!r:.80} to a tensor: {exc}") from None
    if arr.dtype.kind not in "biufc":
        raise TypeError(
            f"cannot convert {type_name(x)} {x!r:.80} to a tensor: expected numbers, got "
            f"data of NumPy dtype {arr.dtype}"
        )
    if (
        arr.dtype == np.float64
        and not isinstance(x, np.ndarray | np.generic)
        and get_floatX() != "float64"
    ):
        arr = arr.astype(get_floatX())
    return arr


def _fix_ndim(arr: np.ndarray, ndim: int | None, what: Any) -> np.ndarray:
    if ndim is None or arr.ndim == ndim:
        return arr
    if arr.ndim < ndim:
        return arr.reshape((1,) * (ndim - arr.ndim) + arr.shape)
    extra = arr.ndim - ndim
    if all(s == 1 for s in arr.shape[:extra]):
        return arr.reshape(arr.shape[extra:])
    raise ValueError(
        f"cannot make {what!r:.60} (shape {arr.shape}) into a tensor with ndim={ndim}: "
        "only leading dimensions of length 1 can be dropped"
    )


def constant(
    x: Any, name: str | None = None, ndim: int | None = None, dtype: Any = None
) -> TensorConstant:
    """A TensorConstant of ``x`` with a fully static shape (dtype rule: module docstring).

    A TensorConstant is returned as it is (with ``ndim``, leading length-1 axes are
    added or dropped); masked arrays are refused.
    """
    if isinstance(x, TensorConstant) and dtype is None:
        return x if ndim is None else constant(x.data, name=name or x.name, ndim=ndim)
    if isinstance(x, np.ma.MaskedArray):
        raise NotImplementedError(
            "constant: MaskedArrays are not supported (pass x.filled(...) or x.data)"
        )
    if isinstance(x, Variable):
        raise TypeError(
            f"constant() expects a value, got the symbolic Variable {x}; use "
            "as_tensor_variable for variables"
        )
    arr = _fix_ndim(_to_array(x, dtype), ndim, x)
    ttype = TensorType(arr.dtype, arr.shape)
    return TensorConstant(ttype, arr, name=name)


@functools.singledispatch
def _as_tensor_variable(x: Any, name: str | None, ndim: int | None, **kwargs: Any) -> Variable:
    if isinstance(x, bool):
        raise TypeError(
            f"as_tensor_variable: cannot convert the Python bool {x} to a tensor (ambiguous "
            "with integers); use numpy.bool_ or constant(x, dtype='bool')"
        )
    if isinstance(x, str) or x is None:
        raise TypeError(
            f"as_tensor_variable: cannot convert {type_name(x)} {x!r:.60} to a tensor "
            "(expected a number, a list of numbers, an ndarray or a Variable)"
        )
    return constant(x, name=name, ndim=ndim, **kwargs)


# The public name plugins register their own types with (PyTensor spells it privately).
as_tensor_variable_dispatch = _as_tensor_variable


@_as_tensor_variable.register(Apply)
def _apply_to_tensor(x: Apply, name: str | None, ndim: int | None, **kwargs: Any) -> Variable:
    if getattr(x.op, "default_output", None) is None and len(x.outputs) != 1:
        raise TypeError(
            f"as_tensor_variable: the Apply {x} has {len(x.outputs)} outputs and no "
            "default_output; pass one of node.outputs"
        )
    return _as_tensor_variable(x.default_output(), name, ndim, **kwargs)


@_as_tensor_variable.register(Variable)
def _variable_to_tensor(x: Variable, name: str | None, ndim: int | None, **kwargs: Any) -> Variable:
    if isinstance(x.type, TensorType):
        return _adjust_ndim(x, ndim)
    if isinstance(x.type, ScalarType):
        return _adjust_ndim(TENSOR_FUNCTIONS.tensor_from_scalar(x), ndim)
    raise TypeError(
        f"as_tensor_variable: the Variable {x} has Type {x.type}, which is not a TensorType or "
        "scalar Type and cannot be converted to a tensor"
    )


@_as_tensor_variable.register(list)
@_as_tensor_variable.register(tuple)
def _sequence_to_tensor(
    x: Sequence[Any], name: str | None, ndim: int | None, **kwargs: Any
) -> Variable:
    if any(isinstance(xi, Variable) for xi in x):
        if all(isinstance(xi, Constant) and np.ndim(xi.data) == 0 for xi in x):
            # constants only: the result is a constant too (as with plain numbers)
            dtype = np.result_type(*[np.asarray(xi.data).dtype for xi in x])
            return constant(np.array([xi.data for xi in x], dtype=dtype), name=name,
                            ndim=ndim, **kwargs)
        return _adjust_ndim(TENSOR_FUNCTIONS.stack([as_tensor_variable(xi) for xi in x]), ndim)
    return constant(x, name=name, ndim=ndim, **kwargs)


def _adjust_ndim(x: Variable, ndim: int | None) -> Variable:
    if ndim is None or x.type.ndim == ndim:
        return x
    if x.type.ndim < ndim:
        return TENSOR_FUNCTIONS.shape_padleft(x, ndim - x.type.ndim)
    extra = x.type.ndim - ndim
    if all(x.type.broadcastable[:extra]):
        return x.dimshuffle(list(range(x.type.ndim))[extra:])
    raise ValueError(
        f"Tensor of type {x.type} could not be cast to have {ndim} dimensions "
        f"(as_tensor_variable of {x}: only leading broadcastable dimensions can be dropped)"
    )


def as_tensor_variable(x: Any, name: str | None = None, ndim: int | None = None,
                       **kwargs: Any) -> TensorVariable:
    """``x`` as a tensor Variable: variables pass through (scalar ones are wrapped),
    Apply nodes give their default output, numbers/lists/arrays become constants.

    ``ndim`` pads with leading broadcastable dimensions or drops leading ones.
    New kinds of objects can be taught with ``_as_tensor_variable.register``.
    """
    return _as_tensor_variable(x, name, ndim, **kwargs)


as_tensor = as_tensor_variable


register_pattern_constant(constant)  # numbers in logic patterns become tensor constants

#: PyTensor's names for the dense tensor variable classes (opgraph has one kind).
DenseTensorVariable = TensorVariable
DenseTensorConstant = TensorConstant




def get_unique_constant_value(x: Any) -> Any:
    """The one value every element of the constant ``x`` has; None if not a constant or not
    uniform."""
    if not isinstance(x, TensorConstant):
        return None
    data = np.asarray(x.data)
    if data.size == 0:
        return None
    first = data.flat[0]
    return first if bool(np.all(data == first)) else None  # NaN is never uniform, as PyTensor
