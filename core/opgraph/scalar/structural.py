"""Scalar ops that move values rather than compute them: identity, cast, second, switch."""

from __future__ import annotations

import sys as _sys
from typing import Any

import numpy as np

from opgraph.autodiff.undefined import disconnected_type
from opgraph.graph.basic import Apply, Variable
from opgraph.scalar.basic import ScalarOp, UnaryScalarOp, same_out, transfer_type, upcast_out
from opgraph.scalar.docs import attach_docs as _attach_docs
from opgraph.scalar.function_table import SCALAR_FUNCTIONS
from opgraph.scalar.gradhelpers import cast_like, const_like, grad_zeros, is_discrete
from opgraph.scalar.type import ScalarType, all_dtypes, as_scalar, get_scalar_type

__all__ = [
    "Cast",
    "Identity",
    "Second",
    "Switch",
    "cast",
    "convert_to",
    "identity",
    "second",
    "switch",
]


class Identity(UnaryScalarOp):
    """Returns its input (a copy over arrays, so Elemwise outputs never alias inputs)."""

    default_output_types_preference = staticmethod(same_out)

    def numpy_fn(self, x: Any) -> Any:
        return np.array(x, copy=True)

    def impl(self, x: Any) -> Any:
        return x

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x,), (gz,) = inputs, cotangents
        return [grad_zeros(x) if is_discrete(x) else cast_like(gz, x)]


class Cast(UnaryScalarOp):
    """Convert to ``o_type``'s dtype (NumPy ``astype`` semantics: wraps, truncates)."""

    __props__ = ("o_type",)

    def __init__(self, o_type: ScalarType, name: str | None = None):
        if not isinstance(o_type, ScalarType):
            raise TypeError(f"Cast: o_type must be a ScalarType, got {o_type!r}")
        self.o_type = o_type
        super().__init__(transfer_type_fixed(o_type), name=name or f"convert_to_{o_type.dtype}")

    def __str__(self) -> str:
        # PyTensor prints a cast as Cast{dtype} (its name stays convert_to_<dtype>)
        return f"Cast{{{self.o_type.dtype}}}"

    def numpy_fn(self, x: Any) -> Any:
        with np.errstate(all="ignore"):
            return np.asarray(x).astype(self.o_type.dtype)

    def impl(self, x: Any) -> Any:
        return self.numpy_fn(x)[()]

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x,), (gz,) = inputs, cotangents
        if is_discrete(outputs[0]):
            return [grad_zeros(x)]
        return [cast_like(gz, x)]


class _FixedType:
    """Output rule of Cast: always ``o_type`` (compares by value)."""

    __slots__ = ("o_type",)

    def __init__(self, o_type: ScalarType):
        self.o_type = o_type

    def __call__(self, *types: ScalarType) -> tuple[ScalarType]:
        return (self.o_type,)

    @property
    def spec(self) -> tuple[ScalarType]:
        """The output types, as PyTensor's ``specific_out(...).spec`` holds them."""
        return (self.o_type,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _FixedType) and other.o_type == self.o_type

    def __hash__(self) -> int:
        return hash((_FixedType, self.o_type))


def transfer_type_fixed(o_type: ScalarType) -> _FixedType:
    return _FixedType(o_type)


#: convert_to["float64"] is the Cast instance to float64 (also module attributes).
convert_to: dict[str, Cast] = {d: Cast(get_scalar_type(d)) for d in all_dtypes}
"""Dtype name -> the Cast Op to that dtype (``convert_to["float64"]``)."""
for _dtype, _cast in convert_to.items():
    _cast.__doc__ = f"Cast a scalar to {_dtype} (as NumPy's ``astype``)."
del _dtype, _cast


def cast(x: Any, dtype: Any) -> Variable:
    """``x`` converted to ``dtype`` (returns ``x`` itself when it already has it)."""
    x = as_scalar(x)
    dtype = get_scalar_type(dtype).dtype
    if x.type.dtype == dtype:
        return x
    return convert_to[dtype](x)


class Second(ScalarOp):
    """second(x, y) = y, broadcast to x's shape over arrays (the body of ``fill``)."""

    nin = 2
    default_output_types_preference = transfer_type((1,))

    def numpy_fn(self, x: Any, y: Any) -> Any:
        x, y = np.asarray(x), np.asarray(y)
        if x.shape == y.shape:
            return y.copy()
        out = np.empty(np.broadcast_shapes(x.shape, y.shape), dtype=y.dtype)
        out[...] = y
        return out

    def impl(self, x: Any, y: Any) -> Any:
        return y

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False], [True]]

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (_, y), (gz,) = inputs, cotangents
        return [disconnected_type(), grad_zeros(y) if is_discrete(y) else cast_like(gz, y)]


class Switch(ScalarOp):
    """switch(cond, a, b): ``a`` where cond is true, else ``b`` (np.where)."""

    nin = 3

    def __init__(self, output_types_preference: Any = None, name: str | None = None):
        super().__init__(output_types_preference or _switch_out, name)

    def numpy_fn(self, cond: Any, a: Any, b: Any) -> Any:
        out = np.where(cond, a, b)
        dtype = np.result_type(np.asarray(a).dtype, np.asarray(b).dtype)
        return out if out.dtype == dtype else out.astype(dtype)

    def impl(self, cond: Any, a: Any, b: Any) -> Any:
        return a if cond else b

    def __str__(self) -> str:
        # PyTensor's switch has no name, so graphs print it as its class; Composite
        # names still read switch(c, a, b) (they use ``name``)
        return "Switch" if self.name == "switch" else self.name

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (c, a, b), (gz,) = inputs, cotangents
        zero = const_like(0, gz)
        ga = grad_zeros(a) if is_discrete(a) else cast_like(switch(c, gz, zero), a)
        gb = grad_zeros(b) if is_discrete(b) else cast_like(switch(c, zero, gz), b)
        # the condition is connected with a zero gradient, as in PyTensor (where
        # ``c + eps`` takes the same branch): ``grad(..., disconnected_inputs="warn")``
        # of a change point ``switch(x < tau, ...)`` wrt ``tau`` gives 0, no warning
        return [grad_zeros(c), ga, gb]


def _switch_out(cond: ScalarType, a: ScalarType, b: ScalarType) -> tuple[ScalarType]:
    return upcast_out(a, b)


identity = Identity(name="identity")
second = Second(name="second")
switch = Switch(name="switch")

_attach_docs(globals())
# Lower scalar modules (type, gradhelpers) call these ops by name.
SCALAR_FUNCTIONS.register(_sys.modules[__name__])
