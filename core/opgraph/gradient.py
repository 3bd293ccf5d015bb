"""Symbolic differentiation: grad, Lop/pullback, Rop/pushforward, jacobian, hessian.

This is the public module (PyTensor's ``pytensor.gradient``); the
implementation lives in the small modules of :mod:`opgraph.autodiff`.
"""

from __future__ import annotations

from opgraph.autodiff.derived import hessian, hessian_vector_product, jacobian
from opgraph.autodiff.forward import Rop, pushforward
from opgraph.autodiff.ops import (
    ConsiderConstant,
    DisconnectedGrad,
    GradClip,
    GradScale,
    UndefinedGrad,
    ZeroGrad,
    consider_constant,
    disconnected_grad,
    grad_clip,
    grad_scale,
    undefined_grad,
    zero_grad,
)
from opgraph.autodiff.reverse import Lop, grad, pullback
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
from opgraph.autodiff.verify import numeric_jacobian, verify_grad

__all__ = [
    "ConsiderConstant",
    "DisconnectedGrad",
    "DisconnectedInputError",
    "DisconnectedType",
    "GradClip",
    "GradScale",
    "GradientError",
    "Lop",
    "NullType",
    "NullTypeGradError",
    "Rop",
    "UndefinedGrad",
    "ZeroGrad",
    "consider_constant",
    "disconnected_grad",
    "disconnected_type",
    "grad",
    "grad_clip",
    "grad_not_implemented",
    "grad_scale",
    "grad_undefined",
    "hessian",
    "hessian_vector_product",
    "is_disconnected",
    "is_null",
    "jacobian",
    "numeric_jacobian",
    "pullback",
    "pushforward",
    "undefined_grad",
    "verify_grad",
    "zero_grad",
]
