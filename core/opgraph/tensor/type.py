"""TensorType: the Type of NumPy arrays of a given dtype and (partly) static shape.

A shape entry is an int (known length) or None (any length); an entry of 1 is
what PyTensor calls *broadcastable*.  Also the named constructors users know
(``matrix``, ``dvector``, ``iscalars`` ...).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.config import config
from opgraph.graph.basic import Variable
from opgraph.graph.type import HasDataType, HasShape, Type
from opgraph.graph.utils import type_name
from opgraph.link.c.type import CType

# The dtype families are the scalar library's: one table for both layers.
from opgraph.scalar.type import (
    all_dtypes,
    complex_dtypes,
    continuous_dtypes,
    discrete_dtypes,
    float_dtypes,
    int_dtypes,
    integer_dtypes,
    uint_dtypes,
)
from opgraph.tensor.function_table import TENSOR_FUNCTIONS as _tensor_functions

__all__ = [
    "DenseTensorType",
    "TensorType",
    "all_dtypes",
    "col",
    "cols",
    "complex_dtypes",
    "continuous_dtypes",
    "discrete_dtypes",
    "floatX",
    "float_dtypes",
    "get_floatX",
    "int_dtypes",
    "integer_dtypes",
    "matrices",
    "matrix",
    "row",
    "rows",
    "scalar",
    "scalars",
    "tensor",
    "tensor3",
    "tensor3s",
    "tensor4",
    "tensor4s",
    "tensor5",
    "tensor5s",
    "tensor6",
    "tensor6s",
    "tensor7",
    "tensor7s",
    "uint_dtypes",
    "values_eq_approx_always_true",
    "values_eq_approx_remove_inf",
    "values_eq_approx_remove_inf_nan",
    "values_eq_approx_remove_nan",
    "vector",
    "vectors",
]

# Tolerances used by values_eq_approx (absolute, relative), per dtype.
#: (atol, rtol) per dtype: how close two results must be to count as equal.
TOLERANCES = {
    "float16": (1e-3, 1e-3),
    "float32": (1e-5, 1e-5),
    "float64": (1e-8, 1e-5),
    "complex64": (1e-5, 1e-5),
    "complex128": (1e-8, 1e-5),
}


def get_floatX() -> str:
    """The configured default float dtype (float64 if the config is unavailable)."""
    return str(getattr(config, "floatX", "float64"))


def floatX() -> str:
    """Alias of :func:`get_floatX` (PyTensor spells the flag ``config.floatX``)."""
    return get_floatX()


def normalize_dtype(dtype: Any) -> str:
    """A canonical dtype string ("float64", ...); "floatX" resolves through the config."""
    if dtype is None or dtype == "floatX":
        return get_floatX()
    if isinstance(dtype, str) and dtype in all_dtypes:
        return dtype
    try:
        name = np.dtype(dtype).name
    except TypeError:
        raise TypeError(
            f"TensorType: dtype must be one of {', '.join(all_dtypes)} or 'floatX', "
            f"got {dtype!r}"
        ) from None
    if name not in all_dtypes:
        raise TypeError(
            f"TensorType: unsupported dtype {name!r} (from {dtype!r}); "
            f"expected one of {', '.join(all_dtypes)}"
        )
    return name


class ShapeEntryError(TypeError, ValueError):
    """A static shape entry that is not a non-negative int or None (PyTensor: ValueError)."""


def _warn_broadcastable_kwarg() -> None:
    warnings.warn(
        "The `broadcastable` keyword is deprecated; use `shape` (1 for a broadcastable "
        "dimension, None otherwise)", DeprecationWarning, stacklevel=4,
    )


def normalize_shape(shape: Any, broadcastable: Any = None) -> tuple[int | None, ...]:
    """Static shape as a tuple of int|None; ``broadcastable`` True means 1.

    A bool entry of ``shape`` is a broadcastable flag, as in PyTensor
    (``TensorType("float64", (False,))`` is a vector of unknown length).
    """
    if shape is not None and broadcastable is not None:
        raise TypeError("TensorType: pass either shape= or broadcastable=, not both")
    if broadcastable is not None:
        return tuple(1 if b else None for b in broadcastable)
    if shape is None:
        return ()
    if isinstance(shape, int | np.integer):
        shape = (shape,)
    out: list[int | None] = []
    for i, s in enumerate(shape):
        if s is None:
            out.append(None)
        elif isinstance(s, bool | np.bool_):
            # PyTensor's reading of a bool entry: a broadcastable flag (True: length 1).
            out.append(1 if s else None)
        elif isinstance(s, int | np.integer) and s >= 0:
            out.append(int(s))
        else:
            raise ShapeEntryError(
                f"TensorType broadcastable/shape must be a boolean, integer or None: shape "
                f"entry {i} must be a non-negative int or None, got {s!r}"
            )
    return tuple(out)


def _format_shape(shape: tuple[int | None, ...], unknown: str) -> str:
    parts = [unknown if s is None else str(s) for s in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _on_float64_variable(var: Variable) -> None:
    """``config.warn_float64``: warn, raise or break when a float64 variable is created."""
    msg = (
        f"a float64 tensor variable was created ({var}); config.warn_float64="
        f"{config.warn_float64!r} asks to report it (set it to 'ignore' to allow float64)"
    )
    if config.warn_float64 == "warn":
        level, frame = 1, sys._getframe(0)
        while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            frame, level = frame.f_back, level + 1  # point the warning at the user's line
        warnings.warn(msg, UserWarning, stacklevel=level)
    elif config.warn_float64 == "raise":
        raise TypeError(msg)
    elif config.warn_float64 == "pdb":
        breakpoint()


#: NumPy's limit on the number of dimensions of an array.
MAX_NDIM = 64


@attrs.frozen(init=False, repr=False)
class TensorType(Type):
    """NumPy arrays of ``dtype`` whose shape matches ``shape`` (None: any length)."""

    dtype: str
    shape: tuple[int | None, ...]
    name: str | None = attrs.field(default=None, eq=False)
    numpy_dtype: np.dtype = attrs.field(init=False, eq=False)

    def __init__(
        self,
        dtype: Any,
        shape: Iterable[int | None] | None = None,
        name: str | None = None,
        broadcastable: Iterable[bool] | None = None,
    ) -> None:
        dt = normalize_dtype(dtype)
        object.__setattr__(self, "dtype", dt)
        if broadcastable is not None and shape is None:
            _warn_broadcastable_kwarg()
        norm = normalize_shape(shape, broadcastable)
        if len(norm) > MAX_NDIM:
            raise ValueError(
                f"TensorType: the maximum supported dimension for a TensorType is currently "
                f"{MAX_NDIM}, found {len(norm)}"
            )
        object.__setattr__(self, "shape", norm)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "numpy_dtype", np.dtype(dt))

    # -- derived attributes ------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return tuple(s == 1 for s in self.shape)

    def __call__(self, name: str | None = None, shape: Any = None) -> Variable:
        """A new variable of this type, or (``shape=``) of this type made more precise.

        ``dmatrix(shape=(1, None))`` may fix lengths this type leaves open; it may not
        change the rank, change a fixed length or forget one (ValueError).
        """
        if shape is None:
            return super().__call__(name)
        shape = tuple(shape)
        if len(shape) != self.ndim:
            raise ValueError(
                f"{self}: shape {shape} has {len(shape)} entries; this type has {self.ndim} "
                "dimension(s)"
            )
        for axis, (mine, given) in enumerate(zip(self.shape, shape)):
            if mine is not None and given != mine:
                raise ValueError(
                    f"{self}: dimension {axis} has static length {mine}; shape= may only fix "
                    f"unknown lengths, got {given}"
                )
        return TensorType(self.dtype, shape)(name)

    def clone(
        self, dtype: Any = None, shape: Any = None, broadcastable: Any = None, **kwargs: Any
    ) -> TensorType:
        """A copy with a different dtype and/or static shape."""
        if kwargs:
            raise TypeError(f"TensorType.clone got unexpected arguments {sorted(kwargs)}")
        if broadcastable is not None:
            _warn_broadcastable_kwarg()
            shape = normalize_shape(None, broadcastable)
        return TensorType(
            self.dtype if dtype is None else dtype,
            self.shape if shape is None else shape,
        )

    def make_variable(self, name: str | None = None) -> Variable:
        var = self.variable_type(self, None, None, name)
        if self.dtype == "float64" and config.warn_float64 != "ignore":
            _on_float64_variable(var)
        return var

    # -- values --------------------------------------------------------------------------
    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """Return ``data`` as an ndarray of this Type or raise TypeError.

        strict: only an ndarray of exactly this dtype passes.  Otherwise safe casts
        are made; lossy ones need ``allow_downcast=True``, except that a Python
        float may become floatX when ``allow_downcast`` is None (PyTensor's rule),
        and any value that converts exactly (``[1, 2]`` to float32) passes.
        """
        if isinstance(data, Variable):
            raise TypeError(
                f"{self}: expected an array-like value, got the symbolic Variable {data}; "
                "symbolic variables are graph inputs, not values (did you mean to call a "
                "compiled function?)"
            )
        if type(data) is np.ndarray and data.dtype == self.numpy_dtype:
            pass
        elif (isinstance(data, np.ndarray) and data.dtype == self.numpy_dtype
              and not isinstance(data, np.matrix | np.ma.MaskedArray)):
            pass  # memmaps and other ndarray subclasses pass as they are (PyTensor too)
        elif strict:
            if not isinstance(data, np.ndarray):
                raise TypeError(
                    f"{self} (strict) expected an ndarray of dtype {self.dtype}, "
                    f"got {type_name(data)} {_short(data)}"
                )
            raise TypeError(
                f"{self} (strict) expected dtype {self.dtype}, got an ndarray of dtype "
                f"{data.dtype}"
            )
        else:
            data = self._convert(data, allow_downcast)

        if not data.flags.aligned:
            raise TypeError(
                f"{self}: the array is not aligned (its data does not start at a multiple "
                f"of its itemsize); pass a copy (np.array(value)) instead"
            )
        if data.ndim != self.ndim:
            raise TypeError(
                f"{self}: wrong number of dimensions: expected {self.ndim}, got {data.ndim} "
                f"(value of shape {data.shape})"
            )
        for expected, got in zip(self.shape, data.shape):
            if expected is not None and expected != got:
                raise TypeError(
                    f"{self}: static shape {_format_shape(self.shape, 'None')} is not "
                    f"compatible with the given value's shape {data.shape}"
                )
        return data

    def _convert(self, data: Any, allow_downcast: bool | None) -> np.ndarray:
        dtype = self.numpy_dtype
        if isinstance(data, np.ndarray) and data.dtype.kind not in "biufc":
            raise TypeError(
                f"{self} expected numeric data of dtype {self.dtype}, got an ndarray of "
                f"dtype {data.dtype}"
            )
        if allow_downcast:
            try:
                return _asarray(self, data, dtype)
            except TypeError:
                # Python ints out of the dtype's range: wrap around as a C cast would
                # (PyTensor's allow_input_downcast=True), instead of NumPy's OverflowError.
                original = _asarray(self, data, None)
                if original.dtype.kind not in "biu" or dtype.kind not in "biu":
                    raise
                return original.astype(dtype)
        if isinstance(data, np.ndarray):
            if np.result_type(dtype, data.dtype) == dtype:
                return data.astype(dtype)
            raise TypeError(
                f"{self} cannot store a value of dtype {data.dtype} without risking loss of "
                f"precision; expected dtype {self.dtype}. Cast the data to {self.dtype} "
                "explicitly, or pass allow_input_downcast=True to function()"
            )
        if isinstance(data, float) and allow_downcast is None and self.dtype == get_floatX():
            return np.asarray(data, dtype=dtype)
        original = _asarray(self, data, None)
        if original.dtype.kind not in "biufc":
            raise NonNumericValueError(
                f"{self} expected numeric data of dtype {self.dtype}, got {type_name(data)} "
                f"{_short(data)}"
            )
        converted = _asarray(self, original, dtype)
        if original.shape == converted.shape and TensorType.values_eq(
            original, converted, force_same_dtype=False
        ):
            return converted
        # Integers out of range are also an OverflowError, as NumPy >= 2 reports them.
        error = (IntegerOutOfRangeError if original.dtype.kind in "biu" and dtype.kind in "biu"
                 else TypeError)
        raise error(
            f"{self} cannot store {_short(data)} accurately: as {self.dtype} it becomes "
            f"{_short(converted)}. Convert the data to a {self.dtype} array explicitly, or "
            "pass allow_input_downcast=True to function()"
        )

    def filter_variable(self, other: Any, allow_convert: bool = True) -> Variable:
        """``other`` as a Variable of this Type (constants built from values)."""
        if not isinstance(other, Variable):
            other = _tensor_functions.as_tensor_variable(other)
            if other.type.dtype != self.dtype and isinstance(other.data, np.ndarray):
                other = self.make_constant(self.filter(other.data))
        return super().filter_variable(other, allow_convert)

    def convert_variable(self, var: Variable) -> Variable | None:
        """``var`` itself when it fits this Type; narrowed with specify_shape to the
        lengths both types know when they only differ in static shape; otherwise None."""
        vtype = var.type
        if self.is_super(vtype):
            return var
        if (isinstance(vtype, TensorType) and vtype.dtype == self.dtype
                and vtype.ndim == self.ndim
                and all(a is None or b is None or a == b for a, b in zip(self.shape, vtype.shape))):
            # Each type may know lengths the other does not: the result knows both.
            merged = tuple(b if a is None else a for a, b in zip(self.shape, vtype.shape))
            return _tensor_functions.specify_shape(var, merged)
        return None

    def is_super(self, otype: Type) -> bool:
        """True if every value of ``otype`` is a value of this Type."""
        if not isinstance(otype, TensorType):
            return False
        if otype.dtype != self.dtype or otype.ndim != self.ndim:
            return False
        return all(s is None or s == o for s, o in zip(self.shape, otype.shape))

    def in_same_class(self, otype: Type) -> bool:
        return (
            isinstance(otype, TensorType)
            and otype.dtype == self.dtype
            and otype.broadcastable == self.broadcastable
        )

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            return bool(np.may_share_memory(a, b))
        return False

    @staticmethod
    def values_eq(a: Any, b: Any, force_same_dtype: bool = True) -> bool:
        """Exact equality of two arrays; NaNs at the same places count as equal."""
        a = np.asarray(a)
        b = np.asarray(b)
        if a.shape != b.shape:
            return False
        if force_same_dtype and a.dtype != b.dtype:
            return False
        eq = a == b
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            eq = eq | (np.isnan(a) & np.isnan(b))
        return bool(np.all(eq))

    @staticmethod
    def values_eq_approx(
        a: Any,
        b: Any,
        allow_remove_inf: bool = False,
        allow_remove_nan: bool = False,
        rtol: float | None = None,
        atol: float | None = None,
    ) -> bool:
        """Closeness with a tolerance chosen from the less precise dtype.

        NaN and infinities must match in place (and sign) unless the
        ``allow_remove_*`` flags say to ignore those positions.
        """
        a = np.asarray(a)
        b = np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
            return bool(np.all(a == b))
        tol_a = TOLERANCES.get(a.dtype.name, TOLERANCES["float64"])
        tol_b = TOLERANCES.get(b.dtype.name, TOLERANCES["float64"])
        atol = max(tol_a[0], tol_b[0]) if atol is None else atol
        rtol = max(tol_a[1], tol_b[1]) if rtol is None else rtol
        a_nan, b_nan = np.isnan(a), np.isnan(b)
        a_inf, b_inf = np.isinf(a), np.isinf(b)
        ignore = np.zeros(a.shape, dtype=bool)
        if allow_remove_nan:
            ignore |= a_nan | b_nan
        elif not np.array_equal(a_nan, b_nan):
            return False
        else:
            ignore |= a_nan
        if allow_remove_inf:
            ignore |= a_inf | b_inf
        else:
            if not np.array_equal(a_inf, b_inf):
                return False
            if not np.array_equal(a[a_inf], b[b_inf]):
                return False
            ignore |= a_inf
        keep = ~ignore
        with np.errstate(invalid="ignore", over="ignore"):
            return bool(np.allclose(a[keep], b[keep], atol=atol, rtol=rtol))

    # -- shapes / memory --------------------------------------------------------------
    def get_shape_info(self, obj: Any) -> Any:
        return obj.shape

    def get_size(self, shape_info: Any) -> int:
        return int(np.prod(shape_info, dtype=np.int64)) * self.numpy_dtype.itemsize

    # -- printing -----------------------------------------------------------------------
    def __str__(self) -> str:
        if self.name:
            return self.name
        kind = ("Scalar", "Vector", "Matrix")[self.ndim] if self.ndim <= 2 else (
            f"Tensor{self.ndim}"
        )
        return f"{kind}({self.dtype}, shape={_format_shape(self.shape, '?')})"

    def __repr__(self) -> str:
        return f"TensorType({self.dtype}, shape={_format_shape(self.shape, 'None')})"


DenseTensorType = TensorType
"""PyTensor's name for the Type of dense arrays (sparse matrices have their own Type,
``opgraph.sparse.SparseTensorType``, which is not a TensorType here)."""


def _short(data: Any) -> str:
    text = repr(data)
    return text if len(text) <= 60 else text[:45] + " ... " + text[-10:]


class IntegerOutOfRangeError(TypeError, OverflowError):
    """An integer value that the integer dtype of a TensorType cannot hold."""


class NonNumericValueError(TypeError, ValueError):
    """A value that is not numbers at all (a string, an object): NumPy's ValueError too."""


def _asarray(ttype: TensorType, data: Any, dtype: Any) -> np.ndarray:
    """np.asarray with conversion failures reported as TypeError naming the Type."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            return np.asarray(data, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(
            f"{ttype} expected numeric data convertible to {ttype.dtype}, got "
            f"{type_name(data)} {_short(data)} ({exc})"
        ) from None


# --------------------------------------------------------------------------- constructors

def values_eq_approx_always_true(a: Any, b: Any) -> bool:
    """Any two values compare equal: the tag rewrites set when a result may differ freely."""
    return True


def values_eq_approx_remove_nan(a: Any, b: Any) -> bool:
    """``values_eq_approx`` ignoring positions where either value is NaN."""
    return TensorType.values_eq_approx(a, b, allow_remove_nan=True)


def values_eq_approx_remove_inf(a: Any, b: Any) -> bool:
    """``values_eq_approx`` ignoring positions where either value is infinite."""
    return TensorType.values_eq_approx(a, b, allow_remove_inf=True)


def values_eq_approx_remove_inf_nan(a: Any, b: Any) -> bool:
    """``values_eq_approx`` ignoring positions where either value is NaN or infinite."""
    return TensorType.values_eq_approx(a, b, allow_remove_inf=True, allow_remove_nan=True)


_VALID_DTYPE_NAMES = frozenset(all_dtypes) | {"floatX"}


def _check_constructor_shape(
    shape: Any, ndim_shape: tuple[int | None, ...], who: str
) -> tuple[int | None, ...]:
    """``shape`` checked for a fixed-rank constructor (``vector``, ``row``...)."""
    ndims = len(ndim_shape)
    if not isinstance(shape, tuple):
        raise TypeError(f"{who}: Shape must be a tuple, got {type(shape).__name__} {shape!r}")
    if len(shape) != ndims:
        raise ValueError(f"{who}: Shape must be a tuple of length {ndims}, got {shape}")
    for s in shape:
        if s is not None and (isinstance(s, bool) or not isinstance(s, int | np.integer)):
            raise TypeError(f"{who}: Shape entries must be None or integer, got {s!r}")
    for axis, (fixed, s) in enumerate(zip(ndim_shape, shape)):
        if fixed is not None and s != fixed:
            which = "first" if axis == 0 else "second"
            raise ValueError(
                f"The {which} dimension of a `{who}` must have shape {fixed}, got {s}"
            )
    return shape


def _make(ndim_shape: tuple[int | None, ...], who: str) -> Any:
    def constructor(
        name: str | None = None, *, dtype: Any = None, shape: Sequence[int | None] | None = None
    ) -> Variable:
        shape = ndim_shape if shape is None else _check_constructor_shape(shape, ndim_shape, who)
        return TensorType(dtype, shape)(name)

    return constructor


scalar = _make((), "scalar")
vector = _make((None,), "vector")
matrix = _make((None, None), "matrix")
row = _make((1, None), "row")
col = _make((None, 1), "col")
tensor3 = _make((None,) * 3, "tensor3")
tensor4 = _make((None,) * 4, "tensor4")
tensor5 = _make((None,) * 5, "tensor5")
tensor6 = _make((None,) * 6, "tensor6")
tensor7 = _make((None,) * 7, "tensor7")
for _fn, _doc in [
    (scalar, "A 0-d tensor variable (dtype defaults to floatX)."),
    (vector, "A 1-d tensor variable (dtype defaults to floatX)."),
    (matrix, "A 2-d tensor variable (dtype defaults to floatX)."),
    (row, "A 1xN matrix variable: its first dimension broadcasts."),
    (col, "An Nx1 matrix variable: its second dimension broadcasts."),
    (tensor3, "A 3-d tensor variable."),
    (tensor4, "A 4-d tensor variable."),
    (tensor5, "A 5-d tensor variable."),
    (tensor6, "A 6-d tensor variable."),
    (tensor7, "A 7-d tensor variable."),
]:
    _fn.__doc__ = _doc


def tensor(
    *args: Any,
    dtype: Any = None,
    shape: Sequence[int | None] | None = None,
    name: str | None = None,
    broadcastable: Sequence[bool] | None = None,
    ndim: int | None = None,
) -> Variable:
    """A tensor variable of any rank.

    Both spellings work: PyTensor's ``tensor("x", dtype="float32", shape=(None, 3))``
    (the one positional argument is the name when ``dtype=`` is given or it is
    not a dtype) and ``tensor("float32", (None, 3), "x")`` (dtype, shape, name).
    """
    if len(args) > 4:
        raise TypeError(f"tensor() takes at most 4 positional arguments; got {len(args)}")
    if len(args) == 1 and dtype is not None:
        if name is not None:
            raise TypeError(f"tensor(): name given twice ({args[0]!r} and name={name!r})")
        args, name = (), args[0]
    keywords = {"dtype": dtype, "shape": shape, "name": name, "broadcastable": broadcastable}
    positional = dict(zip(keywords, args))
    for key in positional:
        if keywords[key] is not None:
            raise TypeError(f"tensor(): {key} given both by position and by keyword")
    dtype = positional.get("dtype", dtype)
    shape = positional.get("shape", shape)
    name = positional.get("name", name)
    broadcastable = positional.get("broadcastable", broadcastable)
    if "dtype" in positional and isinstance(dtype, str) and dtype not in _VALID_DTYPE_NAMES:
        # Only full dtype names count as a positional dtype: NumPy also reads one-letter
        # strings ("a", "b", "f"...) as dtypes, but tensor("a", shape=...) names a variable.
        if name is not None:
            raise TypeError(
                f"tensor(): {dtype!r} is not a dtype name and name={name!r} was also given"
            )
        dtype, name = None, dtype
    if shape is None and broadcastable is None:
        if ndim is None:
            raise TypeError(
                "tensor(): give shape= (e.g. (None, 3)), broadcastable= or ndim= to fix the rank"
            )
        shape = (None,) * ndim
    ttype = TensorType(dtype, shape, broadcastable=broadcastable)
    if ndim is not None and ttype.ndim != ndim:
        raise ValueError(f"tensor(): shape {ttype.shape} does not have ndim={ndim}")
    return ttype(name)


def _multi(constructor: Any) -> Any:
    def plural(*names: Any, dtype: Any = None) -> Any:
        kw = {} if dtype is None else {"dtype": dtype}
        if names and isinstance(names[0], int):
            if names[0] == 1:
                return constructor(**kw)
            return [constructor(**kw) for _ in range(names[0])]
        if len(names) == 1:
            names = names[0]
        if len(names) == 1:
            return constructor(names, **kw)
        return [constructor(n, **kw) for n in names]

    plural.__doc__ = (
        "Several variables at once: ('a', 'b'), a string of one-letter names ('xyz') "
        "or a count (3)."
    )
    return plural


def _typed(constructor: Any, dtype: str) -> Any:
    return lambda name=None: constructor(name, dtype=dtype)


scalars = _multi(scalar)
vectors = _multi(vector)
matrices = _multi(matrix)
rows = _multi(row)
cols = _multi(col)
tensor3s = _multi(tensor3)
tensor4s = _multi(tensor4)
tensor5s = _multi(tensor5)
tensor6s = _multi(tensor6)
tensor7s = _multi(tensor7)

# Prefixed forms (PyTensor: Type instances, so ``x.type == dmatrix`` holds).
_PREFIXES = {
    "b": "int8",
    "w": "int16",
    "i": "int32",
    "l": "int64",
    "f": "float32",
    "d": "float64",
    "c": "complex64",
    "z": "complex128",
}
_KINDS = {
    "scalar": ((), "scalars"),
    "vector": ((None,), "vectors"),
    "matrix": ((None, None), "matrices"),
    "row": ((1, None), "rows"),
    "col": ((None, 1), "cols"),
    "tensor3": ((None,) * 3, "tensor3s"),
    "tensor4": ((None,) * 4, "tensor4s"),
    "tensor5": ((None,) * 5, "tensor5s"),
    "tensor6": ((None,) * 6, "tensor6s"),
    "tensor7": ((None,) * 7, "tensor7s"),
}
_KIND_FUNCS = {
    "scalar": scalar,
    "vector": vector,
    "matrix": matrix,
    "row": row,
    "col": col,
    "tensor3": tensor3,
    "tensor4": tensor4,
    "tensor5": tensor5,
    "tensor6": tensor6,
    "tensor7": tensor7,
}

for _prefix, _dtype in _PREFIXES.items():
    for _kind, (_shape, _plural) in _KINDS.items():
        globals()[_prefix + _kind] = TensorType(_dtype, _shape)
        __all__.append(_prefix + _kind)
        if _plural is not None:
            globals()[_prefix + _plural] = _multi(_typed(_KIND_FUNCS[_kind], _dtype))
            __all__.append(_prefix + _plural)
del _prefix, _dtype, _kind, _shape, _plural, _fn, _doc

# PyTensor's tuples of the common types by kind (``x.type in float_matrix_types``)
for _kind, _dtypes in (("float", ("float32", "float64")),
                       ("int", ("int8", "int16", "int32", "int64")),
                       ("complex", ("complex64", "complex128"))):
    for _suffix, _shape in (("", ()), ("_scalar", ()), ("_vector", (None,)),
                            ("_matrix", (None, None))):
        globals()[f"{_kind}{_suffix}_types"] = tuple(TensorType(d, _shape) for d in _dtypes)
        __all__.append(f"{_kind}{_suffix}_types")
del _kind, _dtypes, _suffix, _shape


# PyTensor's TensorType derives from these; opgraph's registers with them.
for _base in (HasDataType, HasShape, CType):
    _base.register(TensorType)
del _base
