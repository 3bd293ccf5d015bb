"""Symbolic differentiation: grad, Lop/pullback, Rop/pushforward, jacobian, hessian.

The public module; implementation lives in :mod:`opgraph.autodiff`.
"""

from __future__ import annotations

from opgraph.autodiff.undefined import (
    DisconnectedInputError,
    DisconnectedType,
    GradientError,
    NullType,
    NullTypeGradError,
    disconnected_type,
    grad_not_implemented,
    grad_undefined,
    is_disconnected,
    is_null,
)

__all__ = [
    "DisconnectedInputError",
    "DisconnectedType",
    "GradientError",
    "NullType",
    "NullTypeGradError",
    "disconnected_type",
    "grad_not_implemented",
    "grad_undefined",
    "is_disconnected",
    "is_null",
]
