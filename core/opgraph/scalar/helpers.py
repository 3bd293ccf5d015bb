"""PyTensor's small scalar helpers: output-type rules opgraph's own ops do not use,
``convert``, ``as_common_dtype``, ``mod_check``, and the half-away rounding references.

They behave as PyTensor 3's do, so Op subclasses written against PyTensor
(``MyOp(upcast_out_min8)``) keep their dtypes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from opgraph.config import config
from opgraph.graph.basic import Variable
from opgraph.scalar.arith import mod
from opgraph.scalar.autocast import NumpyAutocaster, autocast_float
from opgraph.scalar.basic import ComplexError, upcast_out
from opgraph.scalar.type import ScalarType, as_scalar, complex_dtypes, get_scalar_type, upcast

__all__ = [
    "IntegerDivisionError",
    "ScalarConstantSignature",
    "as_common_dtype",
    "autocast_int",
    "convert",
    "float_out_nocomplex",
    "int_out_nocomplex",
    "mod_check",
    "real_out",
    "round_half_away_from_zero_",
    "round_half_away_from_zero_vec32",
    "round_half_away_from_zero_vec64",
    "same_out_float_only",
    "same_out_min8",
    "unary_out_lookup",
    "upcast_out_min8",
]

_FLOATS = ("float16", "float32", "float64")


class IntegerDivisionError(Exception):
    """Integers divided with ``/`` where ``//`` was meant (PyTensor's error name)."""


def _refuse_complex(types: tuple[ScalarType, ...]) -> None:
    if any(t.dtype in complex_dtypes for t in types):
        raise TypeError(f"complex argument not supported, got {[t.dtype for t in types]}")


def upcast_out_min8(*types: ScalarType) -> tuple[ScalarType]:
    """The upcast of the inputs, with bool raised to int8 (sums of bools count)."""
    (out,) = upcast_out(*types)
    return (get_scalar_type("int8"),) if out.dtype == "bool" else (out,)


def same_out_min8(t: ScalarType) -> tuple[ScalarType]:
    """The input's type, with bool raised to int8."""
    return (get_scalar_type("int8"),) if t.dtype == "bool" else (t,)


def same_out_float_only(t: ScalarType) -> tuple[ScalarType]:
    """The input's type, which must be a float."""
    if t.dtype not in _FLOATS:
        raise TypeError(f"only float types are supported, got {t.dtype}")
    return (t,)


def int_out_nocomplex(*types: ScalarType) -> tuple[ScalarType]:
    """Always int64; complex inputs are refused."""
    _refuse_complex(types)
    return (get_scalar_type("int64"),)


def float_out_nocomplex(*types: ScalarType) -> tuple[ScalarType]:
    """Always float64; complex inputs are refused."""
    _refuse_complex(types)
    return (get_scalar_type("float64"),)


def real_out(t: ScalarType) -> tuple[ScalarType]:
    """The real dtype of the same precision (complex64 -> float32); others unchanged."""
    real = {"complex64": "float32", "complex128": "float64"}.get(t.dtype)
    return (t,) if real is None else (get_scalar_type(real),)


class unary_out_lookup:
    """An output-type rule from a table ``{input type: output type}``; others: TypeError."""

    def __init__(self, type_table: Mapping[Any, Any]) -> None:
        self.tbl = dict(type_table)

    def __call__(self, *types: Any) -> Any:
        key = types[0] if len(types) == 1 else types
        try:
            out = self.tbl[key]
        except (KeyError, TypeError):
            raise TypeError(f"unary_out_lookup: no output type for {key}") from None
        return out if isinstance(key, (list, tuple)) else [out]

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.tbl == other.tbl  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(type(self))


def as_common_dtype(*vars: Any) -> Iterator[Any]:
    """The variables cast to their common (upcast) dtype."""
    dtype = upcast(*[v.dtype for v in vars])
    return (v.astype(dtype) for v in vars)


class _IntAutocaster(NumpyAutocaster):
    """The first int dtype that holds the value; OverflowError when none does."""

    def __call__(self, x: Any) -> str:  # type: ignore[override]
        for dtype in self.dtypes:
            info = np.iinfo(dtype)
            if info.min <= x <= info.max:
                return dtype
        raise OverflowError(f"{x} does not fit in any of {self.dtypes}")


autocast_int = _IntAutocaster(("int8", "int16", "int32", "int64"))
"""The smallest int dtype holding a Python int (what ``convert`` gives ints)."""


def _float_dtype(x: float) -> str:
    """PyTensor's float autocast: the first of float32, float64 (float16 first only when
    floatX is float16) that holds ``x`` exactly, unless ``autocast_float_as`` says otherwise."""
    candidates = autocast_float.dtypes
    if not autocast_float.overridden and config.floatX != "float16":
        candidates = tuple(d for d in candidates if d != "float16")
    with np.errstate(over="ignore"):
        for dtype in candidates:
            if np.isnan(x) or float(np.asarray(x, dtype=dtype)) == x:
                return dtype
    return candidates[-1]


def convert(x: Any, dtype: Any = None) -> np.ndarray:
    """``x`` as an ndarray, of ``dtype`` (``"floatX"`` allowed) or by the autocast rules."""
    if isinstance(x, np.ma.MaskedArray):
        raise NotImplementedError("convert: masked arrays are not supported")
    if dtype is not None:
        return np.asarray(x).astype(config.floatX if dtype == "floatX" else dtype)
    if isinstance(x, int):  # bools too, as in PyTensor: True -> int8
        try:
            return np.asarray(x, dtype=autocast_int(x))
        except OverflowError:  # beyond int64: as NumPy, into uint64
            return np.asarray(x, dtype="uint64")
    if isinstance(x, float):
        return np.asarray(x, dtype=_float_dtype(x))
    if isinstance(x, np.ndarray):
        return x
    out = np.asarray(x)
    if out.size == 0 and not hasattr(x, "dtype"):
        out = np.asarray(x, dtype=config.floatX)
    return out


def mod_check(x: Any, y: Any) -> Variable:
    """``x % y``; complex operands are refused (ComplexError)."""
    if any(as_scalar(v).type.dtype in complex_dtypes for v in (x, y)):
        raise ComplexError("the mod operator (%) is not defined on complex numbers")
    return mod(x, y)


class ScalarConstantSignature(tuple):
    """``(type, value)`` of a scalar constant: equal when both values are NaN, too."""

    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):
            return False
        (t0, d0), (t1, d1) = self, other  # type: ignore[misc]
        return t0 == t1 and bool(d0 == d1 or (np.isnan(d0) and np.isnan(d1)))

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        t, d = self
        return hash((type(self), t, "NaN" if np.isnan(d) else d))


def round_half_away_from_zero_(a: Any) -> Any:
    """One number rounded to the nearest integer, ties away from zero."""
    return np.floor(a + 0.5) if a > 0 else np.ceil(a - 0.5)


round_half_away_from_zero_vec64 = np.vectorize(round_half_away_from_zero_,
                                               doc="round_half_away_from_zero_vec64")
round_half_away_from_zero_vec32 = np.vectorize(round_half_away_from_zero_,
                                               doc="round_half_away_from_zero_vec32",
                                               otypes=["float32"])
