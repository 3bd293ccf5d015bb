"""The few operations the drivers need on gradient terms, from tables the libraries fill.

The drivers only build zeros, ones, sums and casts.  How to build them
depends on the family of the variable (a tensor, a scalar of the scalar
library): each family registers a :class:`GradientArithmetic` for its Type
class, and the tensor library registers itself as the library the drivers use
for whole tensor graphs (``jacobian``'s reshapes, ``verify_grad``'s sums).
This module imports neither library, so :mod:`opgraph.gradient` sits below
both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from opgraph.config import config
from opgraph.graph.basic import Variable
from opgraph.graph.null_type import DisconnectedType, NullType
from opgraph.graph.table import TypeTable
from opgraph.graph.utils import type_name

__all__ = [
    "ARITHMETIC",
    "GradientArithmetic",
    "add_terms",
    "as_tensor",
    "cast_like",
    "filled_like",
    "float_dtype_of",
    "is_discrete",
    "is_tensor",
    "one_constant",
    "register_gradient_arithmetic",
    "register_tensor_library",
    "tensor_library",
    "zeros_like",
]

_DISCRETE_PREFIXES = ("int", "uint", "bool")


@attrs.frozen
class GradientArithmetic:
    """How one family of variables builds gradient terms (each ``dtype`` is a float dtype).

    ``zeros(var, dtype)`` / ``one(var, dtype)``: the zero cotangent of ``var`` and
    the seed 1 of a scalar cost; ``filled(var, value, dtype)``: ``value`` (a number
    or a Variable) broadcast like ``var``; ``cast(term, dtype)``; ``add(*terms)``.
    """

    zeros: Callable[[Variable, str], Variable]
    one: Callable[[Variable, str], Variable]
    filled: Callable[[Variable, Any, str], Variable]
    cast: Callable[[Variable, str], Variable]
    add: Callable[..., Variable]


ARITHMETIC: TypeTable[GradientArithmetic] = TypeTable(
    "gradient_arithmetic", "zeros, seeds, broadcasts, casts and sums of gradient terms, "
    "per Type class")
"""Type class -> the arithmetic of its variables (looked up along the Type's MRO); the
entry of ``object`` is the default, for variables of any other Type (the tensor one)."""
_TENSOR_LIBRARY: list[Any] = []


def register_gradient_arithmetic(
    type_class: type, arithmetic: GradientArithmetic, default: bool = False
) -> None:
    """Build the gradient terms of ``type_class`` variables with ``arithmetic``.

    ``default=True`` also uses it for variables of Types nobody registered.
    """
    if not isinstance(type_class, type) or not isinstance(arithmetic, GradientArithmetic):
        raise TypeError(
            "register_gradient_arithmetic: expected a Type class and a GradientArithmetic, "
            f"got {type_name(type_class)} and {type_name(arithmetic)}"
        )
    ARITHMETIC.register(type_class, arithmetic, stacklevel=2)
    if default:
        ARITHMETIC.register(object, arithmetic, stacklevel=2)


def register_tensor_library(library: Any) -> None:
    """The namespace (``opgraph.tensor``) the drivers build whole tensor graphs with."""
    _TENSOR_LIBRARY[:] = [library]


def tensor_library() -> Any:
    """The tensor library registered by ``opgraph.tensor`` (sum, reshape, stack, ...)."""
    if not _TENSOR_LIBRARY:
        raise RuntimeError(
            "the gradient drivers need the tensor library: import opgraph.tensor first"
        )
    return _TENSOR_LIBRARY[0]


_pt = tensor_library  # the drivers' short name


def _arithmetic(var: Any) -> GradientArithmetic:
    found = ARITHMETIC.lookup(getattr(var, "type", None))
    if found is None:
        raise RuntimeError(
            f"no gradient arithmetic for {var!r} of type {type_name(getattr(var, 'type', None))}"
            ": import opgraph.tensor (or the library of its type) first"
        )
    return found


def is_tensor(var: Any) -> bool:
    """Whether ``var`` has a tensor-like type (a dtype and a number of dimensions)."""
    typ = getattr(var, "type", None)
    if isinstance(typ, (NullType, DisconnectedType)):
        return False
    return hasattr(typ, "dtype") and hasattr(typ, "ndim")


def is_discrete(var: Any) -> bool:
    """Whether ``var`` holds integers or booleans (its gradient is zero or undefined)."""
    dtype = getattr(getattr(var, "type", None), "dtype", None)
    return isinstance(dtype, str) and dtype.startswith(_DISCRETE_PREFIXES)


def float_dtype_of(var: Any) -> str:
    """The dtype a gradient for ``var`` has: its own if float, else ``config.floatX``."""
    dtype = getattr(var.type, "dtype", None)
    if isinstance(dtype, str) and dtype.startswith(("float", "complex")):
        return dtype
    return config.floatX


def as_tensor(x: Any) -> Variable:
    """``x`` as a Variable (Variables pass through unchanged)."""
    if isinstance(x, Variable):
        return x
    return tensor_library().as_tensor_variable(x)


def zeros_like(var: Variable, dtype: str | None = None) -> Variable:
    """Symbolic zeros shaped like ``var``; float dtype unless ``dtype`` is given."""
    return _arithmetic(var).zeros(var, dtype or float_dtype_of(var))


def one_constant(var: Variable) -> Variable:
    """The seed cotangent of a scalar cost: the constant 1 in its float dtype."""
    return _arithmetic(var).one(var, float_dtype_of(var))


def filled_like(var: Variable, value: float | Variable, dtype: str | None = None) -> Variable:
    """``value`` broadcast to the shape of ``var`` (``second(var, value)``), so it depends on var.

    PyTensor builds seeds and disconnected zeros this way; a rewrite folds it.
    """
    return _arithmetic(var).filled(var, value, dtype or float_dtype_of(var))


def cast_like(term: Variable, var: Variable) -> Variable:
    """``term`` cast to the float dtype of ``var`` when they differ."""
    want = float_dtype_of(var)
    if getattr(term.type, "dtype", want) != want:
        return _arithmetic(var).cast(term, want)
    return term


def add_terms(terms: Sequence[Variable]) -> Variable:
    """The sum of the gradient terms reaching one variable."""
    if len(terms) == 1:
        return terms[0]
    return _arithmetic(terms[0]).add(*terms)
