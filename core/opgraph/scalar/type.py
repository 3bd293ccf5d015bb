"""ScalarType: one NumPy scalar of a fixed dtype, and its Variable classes.

Values at run time are NumPy scalars (``np.float64(1.5)``), never Python
numbers, so the dtype a graph declares is the dtype that flows through it.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from typing import Any, ClassVar

import attrs
import numpy as np

from opgraph.config import config
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.table import TypeTable
from opgraph.graph.type import HasDataType, HasShape, Type
from opgraph.graph.utils import type_name
from opgraph.link.c.type import CType
from opgraph.scalar.autocast import autocast_float
from opgraph.scalar.function_table import SCALAR_FUNCTIONS

__all__ = [
    "ScalarConstant",
    "ScalarType",
    "ScalarVariable",
    "all_dtypes",
    "all_types",
    "as_scalar",
    "complex_dtypes",
    "complex_types",
    "complexs",
    "complexs64",
    "complexs128",
    "constant",
    "continuous_dtypes",
    "continuous_types",
    "discrete_dtypes",
    "discrete_types",
    "float_dtypes",
    "float_types",
    "floats",
    "get_scalar_type",
    "int_dtypes",
    "int_types",
    "integer_dtypes",
    "integer_types",
    "ints",
    "uint_dtypes",
    "uint_types",
    "upcast",
]

int_dtypes = ("int8", "int16", "int32", "int64")
"""The signed integer dtype names."""
uint_dtypes = ("uint8", "uint16", "uint32", "uint64")
"""The unsigned integer dtype names."""
float_dtypes = ("float16", "float32", "float64")
"""The floating-point dtype names."""
complex_dtypes = ("complex64", "complex128")
"""The complex dtype names."""
integer_dtypes = int_dtypes + uint_dtypes
"""Every integer dtype name, signed then unsigned."""
discrete_dtypes = ("bool", *integer_dtypes)
"""``bool`` and the integer dtype names: the dtypes without a gradient."""
continuous_dtypes = float_dtypes + complex_dtypes
"""The float and complex dtype names: the dtypes that have a gradient."""
all_dtypes = discrete_dtypes + continuous_dtypes
"""Every dtype name a tensor may have."""

# (atol, rtol) used by values_eq_approx, per dtype family: loose enough for the
# rounding error of a few operations at that precision.
_TOLERANCES = {
    "float16": (5e-3, 5e-3),
    "float32": (1e-5, 1e-5),
    "float64": (1e-8, 1e-5),
    "complex64": (1e-5, 1e-5),
    "complex128": (1e-8, 1e-5),
}


def _normalize_dtype(dtype: Any) -> str:
    try:
        name = np.dtype(dtype).name
    except TypeError as err:
        raise TypeError(
            f"ScalarType: dtype must be one of {', '.join(all_dtypes)}, got {dtype!r}"
        ) from err
    if name not in all_dtypes:
        raise TypeError(f"ScalarType: dtype must be one of {', '.join(all_dtypes)}, got {name!r}")
    return name


def upcast(*dtypes: Any) -> str:
    """The dtype NumPy promotes these dtypes to (``numpy.result_type`` on dtypes)."""
    if not dtypes:
        raise TypeError("upcast needs at least one dtype")
    return np.result_type(*[np.dtype(d) for d in dtypes]).name


def _floatx() -> str:
    try:
        return config.floatX
    except Exception:  # config is optional at this layer
        return "float64"


@attrs.frozen
class ScalarType(Type):
    """The Type of a single number of ``dtype`` (a NumPy dtype name)."""

    dtype: str = attrs.field(converter=_normalize_dtype)

    ndim: ClassVar[int] = 0
    shape: ClassVar[tuple] = ()
    broadcastable: ClassVar[tuple] = ()

    @property
    def numpy_dtype(self) -> np.dtype:
        return np.dtype(self.dtype)

    def clone(self, dtype: Any = None, **kwargs: Any) -> ScalarType:
        """This type with another dtype (``clone("float64")``, as in PyTensor)."""
        if dtype is not None:
            kwargs["dtype"] = dtype
        return super().clone(**kwargs)  # type: ignore[return-value]

    # -- values ---------------------------------------------------------------
    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """Return ``data`` as a NumPy scalar of this dtype.

        ``strict``: only a NumPy scalar (or 0-d array) of exactly this dtype.
        Otherwise lossless conversions are accepted (a safe cast, or a Python
        number whose value survives); ``allow_downcast=True`` accepts any cast,
        and ``None`` also lets a Python float become floatX.
        """
        dt = np.dtype(self.dtype)
        if isinstance(data, np.generic) and data.dtype == dt:
            return data
        if isinstance(data, np.ndarray):
            if data.ndim != 0:
                raise TypeError(
                    f"{self}: expected a scalar (0-d) value, got an array of shape {data.shape}"
                )
            if data.dtype == dt:
                return data[()]
        if strict:
            raise TypeError(
                f"{self}: strict filter expects a NumPy scalar of dtype {self.dtype}, "
                f"got {type_name(data)} {data!r:.60}"
                + (f" of dtype {data.dtype}" if hasattr(data, "dtype") else "")
            )
        if isinstance(data, np.ndarray | np.generic):
            src = data.dtype
            if src.kind not in "biufc":
                raise TypeError(f"{self}: expected a number, got a value of dtype {src}")
            if allow_downcast or np.can_cast(src, dt, "safe"):
                return np.asarray(data).astype(dt)[()]
            raise TypeError(
                f"{self} cannot store a value of dtype {src} without risking loss of "
                f"precision (given {data!r:.60}); cast it explicitly or pass allow_downcast=True"
            )
        if not isinstance(data, numbers.Number) or isinstance(data, np.ndarray):
            raise TypeError(
                f"{self}: expected a number (Python or NumPy scalar), "
                f"got {type_name(data)} {data!r:.60}"
            )
        return self._filter_python_number(data, dt, allow_downcast)

    def _filter_python_number(self, data: Any, dt: np.dtype, allow_downcast: bool | None) -> Any:
        try:
            with np.errstate(all="ignore"):
                converted = np.asarray(data).astype(dt)[()]
        except (OverflowError, TypeError, ValueError) as err:
            raise TypeError(f"{self}: cannot represent {data!r} ({type_name(data)})") from err
        if allow_downcast:
            return converted
        if allow_downcast is None and isinstance(data, float) and self.dtype == _floatx():
            return converted
        same = converted.item() == data  # compare as Python numbers, not in the narrow dtype
        if not same and isinstance(data, float | complex) and dt.kind in "fc":
            same = bool(np.isnan(data)) and bool(np.isnan(converted))
        if not same:
            raise TypeError(
                f"{self} cannot store the Python {type_name(data)} {data!r} without changing "
                f"its value (it would become {converted!r}); pass allow_downcast=True to accept"
            )
        return converted

    def values_eq(self, a: Any, b: Any) -> bool:
        return bool(a == b) or bool(
            np.dtype(self.dtype).kind in "fc" and np.isnan(a) and np.isnan(b)
        )

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        """Equal within the tolerance of this dtype (NaNs at the same place count as equal)."""
        tol = _TOLERANCES.get(self.dtype)
        if tol is None:
            return bool(a == b)
        atol, rtol = tol
        return bool(np.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True))

    def get_shape_info(self, obj: Any) -> tuple:
        return ()

    def get_size(self, shape_info: Any) -> int:
        return np.dtype(self.dtype).itemsize

    def upcast(self, *others: ScalarType) -> str:
        return upcast(self.dtype, *[o.dtype for o in others])

    def __str__(self) -> str:
        return self.dtype

    def __repr__(self) -> str:
        return f"ScalarType({self.dtype})"


def get_scalar_type(dtype: Any) -> ScalarType:
    """The (cached) ScalarType of ``dtype``."""
    try:
        return _scalar_type_by_name(dtype if isinstance(dtype, str) else _normalize_dtype(dtype))
    except TypeError:  # unhashable dtype-like: normalize first
        return _scalar_type_by_name(_normalize_dtype(dtype))


@functools.cache
def _scalar_type_by_name(name: str) -> ScalarType:
    return ScalarType(name)


def _op(name: str) -> Any:
    """A scalar op by public name (defined on top of this module: see function_table)."""
    return getattr(SCALAR_FUNCTIONS, name)


class _ScalarOperators:
    """Python operators on scalar variables build scalar op nodes."""

    __slots__ = ()

    @property
    def dtype(self) -> str:
        return self.type.dtype  # type: ignore[attr-defined]

    def __add__(self, other: Any) -> Any:
        return _op("add")(self, other)

    def __radd__(self, other: Any) -> Any:
        return _op("add")(other, self)

    def __sub__(self, other: Any) -> Any:
        return _op("sub")(self, other)

    def __rsub__(self, other: Any) -> Any:
        return _op("sub")(other, self)

    def __mul__(self, other: Any) -> Any:
        return _op("mul")(self, other)

    def __rmul__(self, other: Any) -> Any:
        return _op("mul")(other, self)

    def __truediv__(self, other: Any) -> Any:
        return _op("true_div")(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _op("true_div")(other, self)

    def __floordiv__(self, other: Any) -> Any:
        return _op("int_div")(self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return _op("int_div")(other, self)

    def __mod__(self, other: Any) -> Any:
        return _op("mod")(self, other)

    def __rmod__(self, other: Any) -> Any:
        return _op("mod")(other, self)

    def __pow__(self, other: Any) -> Any:
        return _op("pow")(self, other)

    def __rpow__(self, other: Any) -> Any:
        return _op("pow")(other, self)

    def __neg__(self) -> Any:
        return _op("neg")(self)

    def __abs__(self) -> Any:
        return _op("abs")(self)

    def __invert__(self) -> Any:
        return _op("invert")(self)

    def __and__(self, other: Any) -> Any:
        return _op("and_")(self, other)

    def __rand__(self, other: Any) -> Any:
        return _op("and_")(other, self)

    def __or__(self, other: Any) -> Any:
        return _op("or_")(self, other)

    def __ror__(self, other: Any) -> Any:
        return _op("or_")(other, self)

    def __xor__(self, other: Any) -> Any:
        return _op("xor")(self, other)

    def __rxor__(self, other: Any) -> Any:
        return _op("xor")(other, self)

    def __lt__(self, other: Any) -> Any:
        return _op("lt")(self, other)

    def __le__(self, other: Any) -> Any:
        return _op("le")(self, other)

    def __gt__(self, other: Any) -> Any:
        return _op("gt")(self, other)

    def __ge__(self, other: Any) -> Any:
        return _op("ge")(self, other)

    def astype(self, dtype: Any) -> Any:
        return _op("cast")(self, dtype)

    def zeros_like(self, dtype: Any = None) -> Any:
        return _op("second")(self, constant(0, dtype=dtype or self.dtype))

    def ones_like(self, dtype: Any = None) -> Any:
        return _op("second")(self, constant(1, dtype=dtype or self.dtype))


class ScalarVariable(_ScalarOperators, Variable):
    """A symbolic scalar; supports the arithmetic and comparison operators."""

    __slots__ = ()


class ScalarConstant(_ScalarOperators, Constant):
    """A constant scalar (its ``data`` is a NumPy scalar of the Type's dtype)."""

    __slots__ = ()

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return str(self.data)


ScalarType.variable_type = ScalarVariable
ScalarType.constant_type = ScalarConstant


def _python_number_dtype(x: Any) -> str:
    """PyTensor's autocast: the smallest int type holding an int; floatX for exact floats."""
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        for d in int_dtypes:
            info = np.iinfo(d)
            if info.min <= x <= info.max:
                return d
        if 0 <= x <= np.iinfo("uint64").max:
            return "uint64"
        raise TypeError(f"as_scalar: the Python int {x} does not fit in 64 bits")
    if isinstance(x, float):
        if autocast_float.overridden:
            return autocast_float(x)
        fx = _floatx()
        if fx != "float64" and (np.isnan(x) or float(np.asarray(x, dtype=fx)) == x):
            return fx
        return "float64"
    if isinstance(x, complex):
        return "complex128"
    raise TypeError(f"as_scalar: expected a number, got {type_name(x)} {x!r:.60}")


def constant(x: Any, name: str | None = None, dtype: Any = None) -> ScalarConstant:
    """A ScalarConstant holding ``x`` (its dtype inferred like PyTensor's when not given)."""
    if dtype is None:
        if isinstance(x, np.generic | np.ndarray):
            dtype = x.dtype
        else:
            dtype = _python_number_dtype(x)
    stype = get_scalar_type(dtype)
    return ScalarConstant(stype, stype.filter(x, allow_downcast=True), name=name)


SCALAR_CONVERSIONS: TypeTable[Callable[[Variable], Variable]] = TypeTable(
    "scalar_conversions", "how as_scalar turns a 0-d variable of each Type class into a scalar")
"""Type class -> how a 0-d variable of it becomes a scalar (the tensor library adds
``scalar_from_tensor`` for TensorType); :func:`as_scalar` looks here."""


def as_scalar(x: Any, name: str | None = None) -> Variable:
    """``x`` as a scalar Variable: scalar variables pass through, numbers become constants.

    A 0-d variable of another library is converted by that library's entry in
    :data:`SCALAR_CONVERSIONS` (``scalar_from_tensor`` for tensors).
    """
    if isinstance(x, Variable):
        if isinstance(x.type, ScalarType):
            return x
        if getattr(x.type, "ndim", None) == 0:
            convert = SCALAR_CONVERSIONS.lookup(x.type, skip=(object,))
            if convert is not None:
                return convert(x)
        raise TypeError(f"as_scalar: cannot convert the variable {x} of type {x.type} to a scalar")
    if isinstance(x, Apply):
        outs = x.outputs
        if len(outs) != 1:
            raise TypeError(f"as_scalar: the Apply {x} has {len(outs)} outputs; pick one")
        return as_scalar(outs[0], name)
    if isinstance(x, np.ndarray) and x.ndim != 0:
        raise TypeError(f"as_scalar: expected a scalar, got an array of shape {x.shape}")
    if isinstance(x, str) or not isinstance(x, numbers.Number | np.generic | np.ndarray):
        raise TypeError(
            f"as_scalar: expected a number or a scalar Variable, got {type_name(x)} {x!r:.60}"
        )
    return constant(x, name=name)


def _types(dtypes: tuple[str, ...]) -> tuple[ScalarType, ...]:
    return tuple(get_scalar_type(d) for d in dtypes)


#: PyTensor's tuples of scalar Types (the ``*_dtypes`` tuples hold their names).
int_types = _types(int_dtypes)
"""The signed integer scalar Types."""
uint_types = _types(uint_dtypes)
"""The unsigned integer scalar Types."""
float_types = _types(float_dtypes)
"""The floating-point scalar Types."""
complex_types = _types(complex_dtypes)
"""The complex scalar Types."""
integer_types = _types(integer_dtypes)
"""Every integer scalar Type, signed then unsigned."""
discrete_types = _types(discrete_dtypes)
"""The bool and integer scalar Types (no gradient)."""
continuous_types = _types(continuous_dtypes)
"""The float and complex scalar Types (they have a gradient)."""
all_types = _types(all_dtypes)
"""Every scalar Type."""


def _variables(dtype: str) -> Callable[..., Any]:
    def make(*names: Any) -> Any:
        """Scalar variables of one dtype: ``make("xyz")`` or ``make("x", "y")`` name them
        (one per character of a single string), ``make(3)`` makes three unnamed ones;
        a single name gives a single variable."""
        typ = get_scalar_type(dtype)
        if names and isinstance(names[0], int):
            return [typ() for _ in range(names[0])]
        if len(names) == 1:
            names = names[0]
        if len(names) == 1:
            return typ(name=names[0])
        return [typ(name=n) for n in names]

    make.__name__ = f"{dtype}s"
    return make


#: PyTensor's plural constructors (``floats`` is float64, as there).
floats = _variables("float64")
ints = _variables("int64")
complexs = _variables("complex128")
complexs64 = _variables("complex64")
complexs128 = _variables("complex128")


# PyTensor's ScalarType derives from these; opgraph's registers with them.
for _base in (HasDataType, HasShape, CType):
    _base.register(ScalarType)
del _base
