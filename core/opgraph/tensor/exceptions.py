"""Errors raised by the tensor library (PyTensor's ``pytensor.tensor.exceptions``)."""

from __future__ import annotations

__all__ = [
    "EmptyConstantError",
    "NotScalarConstantError",
    "ShapeAssertionError",
    "ShapeError",
    "StaticIndexError",
]


class NotScalarConstantError(Exception):
    """A variable's value is not a scalar constant that can be known at graph construction."""


class EmptyConstantError(NotScalarConstantError):
    """A constant has no elements, so it holds no scalar value."""


class ShapeError(ValueError):
    """Shapes that cannot work together (known at graph construction or at run time)."""


class ShapeAssertionError(ShapeError, AssertionError):
    """A value breaks a shape the graph asserts (``specify_shape``, a reshape's length).

    An AssertionError, as PyTensor raises there, and a ShapeError (a ValueError).
    """


class StaticIndexError(IndexError, ValueError):
    """An index known at graph construction is out of range for a statically known dimension.

    It is an IndexError (what NumPy raises) and a ValueError (what bad graph input raises).
    """
