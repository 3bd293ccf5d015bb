"""The few tensor operations the drivers need, imported lazily from the tensor library.

The drivers only build zeros, ones, sums and casts; going through this module
keeps :mod:`opgraph.gradient` importable before (and without) the tensor library.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Variable
from opgraph.graph.null_type import DisconnectedType, NullType

__all__ = [
    "add_terms",
    "as_tensor",
    "cast_like",
    "filled_like",
    "float_dtype_of",
    "is_discrete",
    "is_tensor",
    "one_constant",
    "zeros_like",
]

_DISCRETE_PREFIXES = ("int", "uint", "bool")


def _pt() -> Any:
    import opgraph.tensor as pt

    return pt


def _is_scalar_type(var: Any) -> bool:
    """Whether ``var`` is a variable of the scalar library (the bodies of Elemwise)."""
    try:
        from opgraph.scalar.type import ScalarType
    except ImportError:
        return False
    return isinstance(getattr(var, "type", None), ScalarType)


def _lib(var: Any) -> Any:
    """The library whose ops build gradients of ``var``: scalar for scalar variables."""
    if _is_scalar_type(var):
        import opgraph.scalar as ps

        return ps
    return _pt()


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
    from opgraph.config import config

    return config.floatX


def as_tensor(x: Any) -> Variable:
    """``x`` as a Variable (Variables pass through unchanged)."""
    if isinstance(x, Variable):
        return x
    return _pt().as_tensor_variable(x)


def zeros_like(var: Variable, dtype: str | None = None) -> Variable:
    """Symbolic zeros shaped like ``var``; float dtype unless ``dtype`` is given."""
    dtype = dtype or float_dtype_of(var)
    if _is_scalar_type(var):
        import opgraph.scalar as ps

        return ps.constant(np.zeros((), dtype=dtype), dtype=dtype)
    pt = _pt()
    if var.type.ndim == 0:
        return pt.constant(np.zeros((), dtype=dtype))
    return pt.zeros_like(var, dtype=dtype)


def one_constant(var: Variable) -> Variable:
    """The seed cotangent of a scalar cost: the constant 1 in its float dtype."""
    dtype = float_dtype_of(var)
    if _is_scalar_type(var):
        import opgraph.scalar as ps

        return ps.constant(np.ones((), dtype=dtype), dtype=dtype)
    return _pt().constant(np.ones((), dtype=dtype))


def filled_like(var: Variable, value: float | Variable, dtype: str | None = None) -> Variable:
    """``value`` broadcast to the shape of ``var`` (``second(var, value)``), so it depends on var.

    PyTensor builds seeds and disconnected zeros this way; a rewrite folds it.
    """
    if isinstance(value, Variable):
        if _is_scalar_type(var):
            return value
        return _pt().second(var, value)
    dtype = dtype or float_dtype_of(var)
    if _is_scalar_type(var):
        ps = _lib(var)  # the scalar library
        return ps.second(var, ps.constant(np.asarray(value, dtype=dtype), dtype=dtype))
    pt = _pt()
    return pt.second(var, pt.constant(np.asarray(value, dtype=dtype)))


def cast_like(term: Variable, var: Variable) -> Variable:
    """``term`` cast to the float dtype of ``var`` when they differ."""
    want = float_dtype_of(var)
    if getattr(term.type, "dtype", want) != want:
        return _lib(var).cast(term, want)
    return term


def add_terms(terms: Sequence[Variable]) -> Variable:
    """The sum of the gradient terms reaching one variable."""
    if len(terms) == 1:
        return terms[0]
    return _lib(terms[0]).add(*terms)
