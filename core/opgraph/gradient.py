"""Symbolic differentiation: grad, Lop/pullback, Rop/pushforward, jacobian, hessian.

This is the public module (PyTensor's ``pytensor.gradient``); the
implementation lives in the small modules of :mod:`opgraph.autodiff`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from opgraph.autodiff.batched import Batched, batched_jacobian
from opgraph.autodiff.derived import hessian, hessian_vector_product, jacobian, subgraph_grad
from opgraph.autodiff.forward import Rop, pushforward, pushforward_through_pullback
from opgraph.autodiff.ops import (
    ConsiderConstant,
    DisconnectedGrad,
    GradClip,
    GradientIdentity,
    GradScale,
    UndefinedGrad,
    ZeroGrad,
    consider_constant,
    disconnected_grad,
    disconnected_grad_,
    grad_clip,
    grad_scale,
    undefined_grad,
    undefined_grad_,
    zero_grad,
    zero_grad_,
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
from opgraph.autodiff.vectorize import (
    NoBatchingRule,
    one_batch_axis,
    register_batching_rule,
    vectorize_graph,
)
from opgraph.autodiff.verify import numeric_grad, numeric_jacobian, verify_grad
from opgraph.graph.basic import Apply, Variable

__all__ = [
    "Apply",
    "Batched",
    "ConsiderConstant",
    "DisconnectedGrad",
    "DisconnectedInputError",
    "DisconnectedType",
    "GradClip",
    "GradScale",
    "GradientError",
    "GradientIdentity",
    "Lop",
    "NoBatchingRule",
    "NullType",
    "NullTypeGradError",
    "Rop",
    "UndefinedGrad",
    "Variable",
    "ZeroGrad",
    "batched_jacobian",
    "consider_constant",
    "disconnected_grad",
    "disconnected_grad_",
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
    "numeric_grad",
    "numeric_jacobian",
    "one_batch_axis",
    "pullback",
    "pushforward",
    "pushforward_through_pullback",
    "register_batching_rule",
    "subgraph_grad",
    "undefined_grad",
    "undefined_grad_",
    "vectorize_graph",
    "verify_grad",
    "zero_grad",
    "zero_grad_",
]

V = TypeVar("V")  # PyTensor's annotation alias


def as_list_or_tuple(use_list: bool, use_tuple: bool, outputs: Any) -> Any:
    """``outputs`` as a list (``use_list``), a tuple (``use_tuple``) or, with neither, the
    one object (a sequence must then hold exactly one)."""
    if use_list and use_tuple:
        raise ValueError("as_list_or_tuple: use_list and use_tuple cannot both be True")
    is_seq = isinstance(outputs, Sequence)
    if use_list or use_tuple:
        items = list(outputs) if is_seq else [outputs]
        return items if use_list else tuple(items)
    if is_seq:
        if len(outputs) != 1:
            raise ValueError(f"as_list_or_tuple: expected a one-element sequence, got "
                             f"{len(outputs)} elements")
        return outputs[0]
    return outputs
