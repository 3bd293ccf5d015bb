"""Scalar ops between real and complex numbers: real/imag parts, angle, conj, construction.

Each follows NumPy's dtype rules: the parts of a complex64 are float32, and a
complex built from float32 parts is complex64 (float64 or integer parts give
complex128).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.scalar.basic import BinaryScalarOp, UnaryScalarOp, upcast_out
from opgraph.scalar.docs import attach_docs as _attach_docs
from opgraph.scalar.type import ScalarType, get_scalar_type

__all__ = [
    "Angle",
    "Complex",
    "ComplexFromPolar",
    "Conj",
    "Imag",
    "Real",
    "angle",
    "complex",
    "complex_from_polar",
    "conj",
    "imag",
    "real",
]

_PART = {"complex64": "float32", "complex128": "float64"}


def _part_out(t: ScalarType) -> tuple[ScalarType]:
    """Real part type: float32 for complex64, float64 for complex128, the input's otherwise."""
    return (get_scalar_type(_PART.get(t.dtype, t.dtype)),)


def _angle_out(t: ScalarType) -> tuple[ScalarType]:
    if t.dtype in _PART:
        return _part_out(t)
    return (get_scalar_type(np.result_type(t.dtype, np.float16).name),)


def _complex_out(a: ScalarType, b: ScalarType) -> tuple[ScalarType]:
    """complex64 from float32/float16/int8/int16 parts, complex128 otherwise (NumPy's rule)."""
    if a.dtype in _PART or b.dtype in _PART:
        raise TypeError(f"complex parts must be real, got {a.dtype} and {b.dtype}")
    up = upcast_out(a, b)[0].dtype
    return (get_scalar_type(np.result_type(up, np.complex64).name),)


class Real(UnaryScalarOp):
    """The real part (the value itself for a real input)."""

    nin = 1
    default_output_types_preference = staticmethod(_part_out)

    def numpy_fn(self, x: Any) -> Any:
        # np.real returns a view of its input (the input itself when real): an
        # Elemwise output must own its memory, or an inplace op on it writes the input.
        return np.array(np.real(x))


class Imag(UnaryScalarOp):
    """The imaginary part (zero for a real input)."""

    nin = 1
    default_output_types_preference = staticmethod(_part_out)

    def numpy_fn(self, x: Any) -> Any:
        return np.array(np.imag(x))  # a copy, not a view of the input (see Real)


class Angle(UnaryScalarOp):
    """The argument of a complex number, in radians (0 or pi for a real one)."""

    nin = 1
    default_output_types_preference = staticmethod(_angle_out)

    def numpy_fn(self, x: Any) -> Any:
        return np.angle(x)


class Conj(UnaryScalarOp):
    """The complex conjugate (the value itself for a real input)."""

    nin = 1
    default_output_types_preference = staticmethod(lambda t: (t,))

    def numpy_fn(self, x: Any) -> Any:
        return np.conj(x)


class Complex(BinaryScalarOp):
    """``real + 1j * imag`` from two real numbers."""

    nin = 2
    default_output_types_preference = staticmethod(_complex_out)

    def numpy_fn(self, x: Any, y: Any) -> Any:
        dtype = np.result_type(np.asarray(x).dtype, np.asarray(y).dtype, np.complex64)
        out = np.empty(np.broadcast(x, y).shape, dtype=dtype)
        out.real, out.imag = x, y
        return out if out.ndim else out[()]


class ComplexFromPolar(BinaryScalarOp):
    """``abs * exp(1j * angle)`` from a modulus and an angle."""

    nin = 2
    default_output_types_preference = staticmethod(_complex_out)

    def numpy_fn(self, r: Any, theta: Any) -> Any:
        dtype = np.result_type(np.asarray(r).dtype, np.asarray(theta).dtype, np.complex64)
        out = np.empty(np.broadcast(r, theta).shape, dtype=dtype)
        out.real, out.imag = r * np.cos(theta), r * np.sin(theta)
        return out if out.ndim else out[()]


real = Real(name="real")
imag = Imag(name="imag")
angle = Angle(name="angle")
conj = Conj(name="conj")
"""The complex conjugate (np.conj); a real value is returned unchanged."""
complex = Complex(name="complex")
complex_from_polar = ComplexFromPolar(name="complex_from_polar")

_attach_docs(globals())
