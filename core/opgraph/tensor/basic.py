"""PyTensor's ``tensor.basic``: conversions, creation, joining and constant lookup.

The ops live in small modules (creation, join, shape, constant_value); this
module gathers them under the names PyTensor code imports from
``pytensor.tensor.basic``, and adds the scalar/tensor conversions and casts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph import faces as _faces
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.scalar.type import SCALAR_CONVERSIONS, ScalarType
from opgraph.tensor import ufuncs as _ufuncs
from opgraph.tensor.arrays import (
    flatnonzero,
    moveaxis,
    nonzero,
    nonzero_values,
    roll,
    swapaxes,
    tile,
    where,
)
from opgraph.tensor.basic_more import *  # noqa: F403
from opgraph.tensor.basic_more import __all__ as _more_all
from opgraph.tensor.constant_value import (
    get_scalar_constant_value,
    get_underlying_scalar_constant_value,
    passthrough,
    register_constant_rule,
)
from opgraph.tensor.creation import (
    Alloc,
    ARange,
    Eye,
    alloc,
    arange,
    eye,
    full,
    full_like,
    identity_like,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from opgraph.tensor.elemwise import transpose  # noqa: F401  (PyTensor's tensor.basic name)
from opgraph.tensor.exceptions import EmptyConstantError, NotScalarConstantError
from opgraph.tensor.indexing_along import take_along_axis
from opgraph.tensor.join import Join, Split, concatenate, join, split, stack
from opgraph.tensor.math import second as _second_elemwise
from opgraph.tensor.math import switch  # noqa: F401  (PyTensor's tensor.basic name)
from opgraph.tensor.shape import (  # noqa: F401 (PyTensor's names)
    MakeVector,
    expand_dims,
    flatten,
    make_vector,
    shape_padleft,
    shape_padright,
)
from opgraph.tensor.type import TensorType, normalize_dtype, tensor
from opgraph.tensor.ufuncs import identity, tensor_copy  # noqa: F401 (PyTensor's names)
from opgraph.tensor.variable import (  # noqa: F401 (_as_tensor_variable: PyTensor's dispatcher)
    TensorConstant,
    TensorVariable,
    _as_tensor_variable,
    as_tensor,
    as_tensor_variable,
    constant,
    register_tensor_functions,
)

__all__ = [
    "ARange",
    "Alloc",
    "EmptyConstantError",
    "Eye",
    "Join",
    "MakeVector",
    "NotScalarConstantError",
    "ScalarFromTensor",
    "Split",
    "TensorConstant",
    "TensorFromScalar",
    "alloc",
    "arange",
    "as_tensor",
    "as_tensor_variable",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "atleast_Nd",
    "cast",
    "concatenate",
    "constant",
    "eye",
    "fill",
    "flatnonzero",
    "full",
    "full_like",
    "get_scalar_constant_value",
    "get_underlying_scalar_constant_value",
    "get_vector_length",
    "identity_like",
    "join",
    "make_vector",
    "moveaxis",
    "nonzero",
    "nonzero_values",
    "ones",
    "ones_like",
    "roll",
    "scalar_from_tensor",
    "second",
    "split",
    "stack",
    "swapaxes",
    "take_along_axis",
    "tensor",
    "tensor_from_scalar",
    "tile",
    "where",
    "zeros",
    "zeros_like",
]
__all__ += _more_all

# PyTensor's tensor.basic also holds these (defined in lower modules, re-exported here).
globals().update(
    (name, value) for name, value in vars(_ufuncs).items() if name.startswith("_convert_to_")
)


def __getattr__(name: str) -> Any:
    """diag/tril/trace...: served by the opgraph-linalg plugin, as in PyTensor's basic."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _faces.provided_name(__name__, name)


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def _scalar_type() -> Any:
    return ScalarType


# --------------------------------------------------------------------------- scalar <-> tensor


class TensorFromScalar(Op):
    """A scalar-Type value as a 0-d tensor (how scalar graphs re-enter tensor graphs)."""

    __props__ = ()

    def make_node(self, s: Any) -> Apply:
        scalar_type = _scalar_type()
        if not isinstance(getattr(s, "type", None), scalar_type):
            raise TypeError(
                f"tensor_from_scalar expects a Variable of a ScalarType, got {s!r:.60}"
            )
        return Apply(self, [s], [TensorType(s.type.dtype, ())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(inputs[0], dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [()]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [scalar_from_tensor(cotangents[0])]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return [None if tangents[0] is None else tensor_from_scalar(tangents[0])]


class ScalarFromTensor(Op):
    """A 0-d tensor as a scalar-Type value (the inputs of scalar ops)."""

    __props__ = ()

    def make_node(self, t: Any) -> Apply:
        t = as_tensor_variable(t)
        if t.type.ndim != 0:
            raise TypeError(
                f"scalar_from_tensor: {_name(t)} must be 0-d, got {t.type}"
            )
        return Apply(self, [t], [_scalar_type()(t.type.dtype)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(inputs[0])[()]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [()]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [tensor_from_scalar(cotangents[0])]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return [None if tangents[0] is None else scalar_from_tensor(tangents[0])]


_tensor_from_scalar = TensorFromScalar()
_scalar_from_tensor = ScalarFromTensor()


def tensor_from_scalar(s: Any) -> Variable:
    """The 0-d tensor holding the scalar ``s``."""
    return _tensor_from_scalar(s)


def scalar_from_tensor(t: Any) -> Variable:
    """The scalar-Type value of the 0-d tensor ``t``."""
    return _scalar_from_tensor(t)


# --------------------------------------------------------------------------- casts and fills


def cast(x: Any, dtype: Any) -> Variable:
    """``x`` converted to ``dtype`` ("floatX" allowed); ``x`` itself if already so."""
    x = as_tensor_variable(x)
    dt = normalize_dtype(dtype)
    if x.type.dtype == dt:
        return x
    return _ufuncs.cast(x, dt)


#: PyTensor's ``fill``/``second`` are the Elemwise op itself (``g.owner.op == fill`` holds):
#: ``second(model, value)`` is ``value`` broadcast against ``model``.
fill = second = _second_elemwise


# --------------------------------------------------------------------------- small helpers


def get_vector_length(v: Any) -> int:
    """The length of the vector ``v`` when known at graph construction; else ValueError."""
    v = as_tensor_variable(v)
    if v.type.ndim != 1:
        raise TypeError(f"get_vector_length: {_name(v)} must be a vector, got {v.type}")
    length = v.type.shape[0]
    if length is None:
        raise ValueError(
            f"Length of {_name(v)} cannot be determined: it is not known at graph construction"
        )
    return int(length)


def atleast_Nd(x: Any, n: int = 1, left: bool = True) -> Variable:
    """``x`` with length-1 dimensions added (on the left by default) up to ``n`` dims."""
    x = as_tensor_variable(x)
    missing = n - x.type.ndim
    if missing <= 0:
        return x
    return shape_padleft(x, missing) if left else shape_padright(x, missing)


def atleast_1d(*arrays: Any) -> Variable | list[Variable]:
    """NumPy's ``atleast_1d``."""
    out = [atleast_Nd(a, 1) for a in arrays]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arrays: Any) -> Variable | list[Variable]:
    """NumPy's ``atleast_2d``."""
    out = [atleast_Nd(a, 2) for a in arrays]
    return out[0] if len(out) == 1 else out


def atleast_3d(*arrays: Any) -> Variable | list[Variable]:
    """NumPy's ``atleast_3d`` (a vector becomes (1, n, 1), a matrix (m, n, 1))."""
    out = []
    for a in arrays:
        a = as_tensor_variable(a)
        if a.type.ndim == 0:
            out.append(shape_padleft(a, 3))
        elif a.type.ndim == 1:
            out.append(shape_padright(shape_padleft(a, 1), 1))
        elif a.type.ndim == 2:
            out.append(shape_padright(a, 1))
        else:
            out.append(a)
    return out[0] if len(out) == 1 else out


register_constant_rule(TensorFromScalar, passthrough)
register_constant_rule(ScalarFromTensor, passthrough)
SCALAR_CONVERSIONS[TensorType] = scalar_from_tensor  # as_scalar(0-d tensor), scalar/type.py
