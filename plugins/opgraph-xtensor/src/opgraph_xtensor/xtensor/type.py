"""XTensorType and its variables: NumPy arrays whose axes carry names.

A value is a plain ndarray (or an xarray DataArray, transposed to the
Type's dims on the way in); the names exist only in the graph, where every
xtensor Op aligns its inputs by name.  Functions defined in modules above
this one (``as_xtensor``, ``transpose``, ``specify_shape`` on xtensors) are
reached through :data:`XFUNCS`, a table those modules fill at import.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.compile.sharedvalue import SharedVariable, shared_constructor
from opgraph.graph.basic import Constant, Variable
from opgraph.graph.function_table import FunctionTable
from opgraph.graph.type import Type
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import TensorVariable

__all__ = [
    "XARRAY_AVAILABLE",
    "XFUNCS",
    "XTensorConstant",
    "XTensorSharedVariable",
    "XTensorType",
    "XTensorVariable",
    "as_xtensor",
    "dims_of",
    "is_dataarray",
    "xtensor",
    "xtensor_constant",
    "xtensor_shared",
]

#: functions this module calls and higher modules define (as_xtensor, transpose, ...)
XFUNCS = FunctionTable("opgraph.xtensor")

XARRAY_AVAILABLE: bool = importlib.util.find_spec("xarray") is not None
"""Whether xarray is installed (it is optional: only comparisons and ``.to_xarray`` need it)."""


def is_dataarray(value: Any) -> bool:
    """Duck-typed xarray.DataArray check (the package never imports xarray)."""
    return hasattr(value, "dims") and hasattr(value, "values") and hasattr(value, "coords")


def dims_of(dims: str | Iterable[str] | None, what: str = "dims") -> tuple[str, ...]:
    """``dims`` as a tuple of names (a single string is one name, as in xarray)."""
    if dims is None:
        raise TypeError(f"{what} must be given: a string or a sequence of strings, got None")
    if isinstance(dims, str):
        return (dims,)
    out = tuple(dims)
    for d in out:
        if not isinstance(d, str):
            raise TypeError(f"{what} must be strings, got {d!r} in {out!r}")
    return out


@attrs.frozen(init=False, repr=False)
class XTensorType(Type):
    """Arrays of ``dtype`` with named ``dims`` and static ``shape`` (None: any length)."""

    dtype: str
    dims: tuple[str, ...]
    shape: tuple[int | None, ...]
    name: str | None = attrs.field(default=None, eq=False)

    def __init__(self, dtype: Any, *, dims: Sequence[str],
                 shape: Sequence[int | None] | None = None,
                 name: str | None = None) -> None:
        dims = dims_of(dims)
        if len(set(dims)) != len(dims):
            raise ValueError(f"XTensorType: dims must be unique, got {dims}")
        shape = (None,) * len(dims) if shape is None else tuple(shape)
        if len(shape) != len(dims):
            raise ValueError(f"XTensorType: shape {shape} does not match dims {dims}")
        ttype = TensorType(dtype, shape=shape)
        object.__setattr__(self, "dtype", ttype.dtype)
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "shape", ttype.shape)
        object.__setattr__(self, "name", name)

    @property
    def ndim(self) -> int:
        return len(self.dims)

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return tuple(s == 1 for s in self.shape)

    @property
    def numpy_dtype(self) -> np.dtype:
        return np.dtype(self.dtype)

    @property
    def tensor_type(self) -> TensorType:
        """The TensorType of the same values without names."""
        return TensorType(self.dtype, shape=self.shape)

    def clone(self, dtype: Any = None, dims: Sequence[str] | None = None,
              shape: Sequence[int | None] | None = None, **kwargs: Any) -> XTensorType:
        dims = self.dims if dims is None else dims
        if shape is None:
            shape = self.shape if len(dims_of(dims)) == self.ndim else None
        return type(self)(self.dtype if dtype is None else dtype, dims=dims, shape=shape, **kwargs)

    def filter(self, value: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if is_dataarray(value):
            vdims = tuple(value.dims)
            if set(vdims) != set(self.dims) or len(vdims) != len(self.dims):
                raise ValueError(f"{self}: a DataArray with dims {vdims} cannot hold dims "
                                 f"{self.dims}")
            value = value.transpose(*self.dims).values
        return self.tensor_type.filter(value, strict=strict, allow_downcast=allow_downcast)

    def values_eq(self, a: Any, b: Any) -> bool:
        return self.tensor_type.values_eq(a, b)

    def values_eq_approx(self, a: Any, b: Any, **kwargs: Any) -> bool:
        return self.tensor_type.values_eq_approx(a, b, **kwargs)

    def may_share_memory(self, a: Any, b: Any) -> bool:
        return TensorType.may_share_memory(a, b)

    def is_super(self, otype: Type) -> bool:
        return (isinstance(otype, XTensorType) and otype.dtype == self.dtype
                and otype.dims == self.dims and len(otype.shape) == len(self.shape)
                and all(s is None or s == o for s, o in zip(self.shape, otype.shape)))

    def convert_variable(self, var: Variable) -> Variable | None:
        vtype = var.type
        if self.is_super(vtype):
            return var
        if (isinstance(vtype, XTensorType) and vtype.dtype == self.dtype
                and vtype.dims == self.dims and vtype.is_super(self)):
            return XFUNCS.specify_xshape(var, self.shape)
        return None

    def filter_variable(self, other: Any, allow_convert: bool = True) -> Variable:
        """``other`` as a variable of this Type: transposed, shape-specified, or a constant."""
        if not isinstance(other, Variable):
            other = self._constant(other)
        vtype = other.type
        if isinstance(vtype, TensorType):
            if vtype.ndim != self.ndim or vtype.dtype != self.dtype:
                raise TypeError(f"{self}.filter_variable: cannot convert {other} of type {vtype}")
            for d, s, o in zip(self.dims, self.shape, vtype.shape):
                if s is not None and o is not None and s != o:
                    raise TypeError(f"{self}.filter_variable: dim {d!r} has length {o} in "
                                    f"{other}, expected {s}")
            if not all(s is None or s == o for s, o in zip(self.shape, vtype.shape)):
                other = XFUNCS.specify_shape(other, self.shape)
            return XFUNCS.as_xtensor(other, dims=self.dims)
        if not isinstance(vtype, XTensorType):
            raise TypeError(f"{self}.filter_variable: expected an xtensor, got {other} of {vtype}")
        if vtype.dtype != self.dtype or set(vtype.dims) != set(self.dims) \
                or vtype.ndim != self.ndim:
            raise TypeError(f"{self}.filter_variable: {other} has type {vtype}, expected dims "
                            f"{self.dims} and dtype {self.dtype}")
        if vtype.dims != self.dims:
            other = XFUNCS.transpose(other, *self.dims)
            vtype = other.type
        for d, s, o in zip(self.dims, self.shape, vtype.shape):
            if s is not None and o is not None and s != o:
                raise TypeError(f"{self}.filter_variable: dim {d!r} has length {o} in {other}, "
                                f"expected {s}")
        if self.is_super(vtype):
            return other
        return XFUNCS.specify_xshape(other, self.shape)

    def _constant(self, value: Any) -> Variable:
        """A constant of this Type from a value: arrays may upcast safely, Python values
        (numbers, nested lists) take this dtype."""
        try:
            if is_dataarray(value):
                value = value.transpose(*self.dims).values
            if isinstance(value, np.ndarray | np.generic):
                if not np.can_cast(value.dtype, self.dtype, casting="safe"):
                    raise TypeError(f"cannot downcast an array of dtype {value.dtype} to "
                                    f"{self.dtype}")
                arr = value.astype(self.dtype)
            else:
                arr = np.asarray(value, dtype=self.dtype)
            return XFUNCS.as_xtensor(arr, dims=self.dims)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{self}.filter_variable: cannot convert {value!r:.60}: {exc}") \
                from None

    def make_variable(self, name: str | None = None) -> XTensorVariable:
        return XTensorVariable(self, None, None, name)

    def make_constant(self, value: Any, name: str | None = None) -> XTensorConstant:
        return XTensorConstant(self, self.filter(value), name=name)

    def get_shape_info(self, obj: Any) -> Any:
        return obj.shape

    def get_size(self, shape_info: Any) -> int:
        return int(np.prod(shape_info)) * np.dtype(self.dtype).itemsize if shape_info else \
            np.dtype(self.dtype).itemsize

    def __str__(self) -> str:
        if self.name:
            return self.name
        shape = ", ".join(f"{d}: {'?' if s is None else s}" for d, s in zip(self.dims, self.shape))
        return f"XTensorType({self.dtype}, {{{shape}}})"

    __repr__ = __str__


class XTensorVariable(Variable):
    """A symbolic array with named dims; methods follow xarray.DataArray (see methods.py)."""

    __slots__ = ()

    @property
    def dims(self) -> tuple[str, ...]:
        return self.type.dims

    @property
    def ndim(self) -> int:
        return self.type.ndim

    @property
    def dtype(self) -> str:
        return self.type.dtype

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return self.type.broadcastable

    @property
    def values(self) -> TensorVariable:
        """The same array as an ordinary tensor (axes in ``dims`` order)."""
        return XFUNCS.tensor_from_xtensor(self)

    data = values

    @property
    def shape(self) -> tuple[Any, ...]:
        """The length of every dim, as symbolic integer scalars."""
        t = XFUNCS.tensor_from_xtensor(self)
        return tuple(t.shape[i] for i in range(self.type.ndim))

    @property
    def sizes(self) -> dict[str, Any]:
        """``{dim: length}`` (xarray's ``sizes``)."""
        return dict(zip(self.type.dims, self.shape))

    @property
    def size(self) -> Any:
        t = XFUNCS.tensor_from_xtensor(self)
        return t.size

    def __len__(self) -> int:
        raise TypeError("len() of an XTensorVariable is symbolic: use x.sizes[dim]")

    def __bool__(self) -> bool:
        raise TypeError("XTensorVariable has no truth value (it is symbolic)")

    def __iter__(self) -> Any:
        raise TypeError("XTensorVariable is not iterable")


class XTensorConstant(Constant, XTensorVariable):
    """An xtensor constant: equal values with equal dims merge."""

    __slots__ = ()

    def signature(self) -> Any:
        return (self.type.dims, super().signature())


class XTensorSharedVariable(SharedVariable, XTensorVariable):
    """A shared array with named dims; ``set_value`` accepts DataArrays in any dim order."""

    __slots__ = ()


def xtensor(name: str | None = None, *, dims: str | Sequence[str], shape: Any = None,
            dtype: Any = "floatX") -> XTensorVariable:
    """A symbolic xtensor input with ``dims`` (and optional static ``shape``)."""
    if dtype == "floatX":
        dtype = TensorType("floatX", shape=()).dtype
    return XTensorType(dtype, dims=dims_of(dims), shape=shape)(name)


def xtensor_constant(x: Any, name: str | None = None, dims: str | Sequence[str] | None = None
                     ) -> XTensorConstant:
    """A constant from a DataArray (its dims) or an array with ``dims``."""
    if is_dataarray(x):
        if dims is not None:
            x = x.transpose(*dims_of(dims))
        dims, x = tuple(x.dims), x.values
    elif dims is None:
        raise TypeError(f"xtensor_constant: a {type(x).__name__} needs dims=")
    arr = np.asarray(x)
    if arr.dtype == object:
        raise TypeError(f"xtensor_constant: cannot make a constant of {x!r:.60}")
    ttype = TensorType(arr.dtype, shape=arr.shape)
    return XTensorConstant(XTensorType(ttype.dtype, dims=dims_of(dims), shape=arr.shape),
                           ttype.filter(arr), name=name)


def xtensor_shared(value: Any, name: str | None = None, strict: bool = False,
                   allow_downcast: bool | None = None, borrow: bool = False,
                   shape: Sequence[int | None] | None = None,
                   dims: str | Sequence[str] | None = None) -> XTensorSharedVariable:
    """A shared xtensor from a DataArray, or an ndarray with ``dims``."""
    if is_dataarray(value):
        if dims is not None:
            value = value.transpose(*dims_of(dims))
        dims, arr = tuple(value.dims), value.values
    elif dims is None:
        raise TypeError(f"xtensor_shared: a {type(value).__name__} needs dims= (or pass a "
                        "DataArray)")
    else:
        arr = value
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"xtensor_shared expects a DataArray or an ndarray, got "
                        f"{type(value).__name__}")
    xtype = XTensorType(arr.dtype, dims=dims_of(dims), shape=shape)
    data = arr if borrow else arr.copy()
    return XTensorSharedVariable(xtype, data, strict, allow_downcast, name=name)


@shared_constructor
def _dataarray_constructor(value: Any, name: str | None = None, strict: bool = False,
                           allow_downcast: bool | None = None, borrow: bool = False,
                           **kwargs: Any) -> XTensorSharedVariable:
    """``shared(DataArray)``: an XTensorSharedVariable (other values are not ours)."""
    if not is_dataarray(value):
        raise TypeError("not a DataArray")
    return xtensor_shared(value, name=name, strict=strict, allow_downcast=allow_downcast,
                          borrow=borrow, **kwargs)


def as_xtensor(x: Any, dims: str | Sequence[str] | None = None, *, name: str | None = None
               ) -> XTensorVariable:
    """``x`` as an xtensor: xtensors pass (transposed to ``dims``), tensors get ``dims``."""
    return XFUNCS.as_xtensor(x, dims=dims, name=name)
