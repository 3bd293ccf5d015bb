"""Identity Ops that change only how gradients flow through them.

Each returns its input unchanged (a view); the pullback is what differs:
``zero_grad`` gives zeros, ``disconnected_grad`` cuts the path,
``undefined_grad`` marks it undefined, ``grad_clip`` clips and ``grad_scale``
scales the cotangent.  Rewrites may remove them after differentiation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from opgraph.autodiff import arith
from opgraph.autodiff.undefined import disconnected_type, grad_undefined
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op

__all__ = [
    "ConsiderConstant",
    "DisconnectedGrad",
    "GradClip",
    "GradScale",
    "GradientIdentity",
    "UndefinedGrad",
    "ZeroGrad",
    "consider_constant",
    "disconnected_grad",
    "disconnected_grad_",
    "grad_clip",
    "grad_scale",
    "undefined_grad",
    "undefined_grad_",
    "zero_grad",
    "zero_grad_",
]


class _GradientIdentity(Op):
    """Returns its first input as a view; subclasses choose the pullback."""

    view_map = {0: [0]}

    def make_node(self, x: Any, *extra: Any) -> Apply:
        x = arith.as_tensor(x)
        return Apply(self, [x, *(arith.as_tensor(e) for e in extra)], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = inputs[0]

    def pushforward(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        tangents: Sequence[Variable],
    ) -> list[Variable]:
        return [tangents[0]]

    def __str__(self) -> str:
        return type(self).__name__


#: The public name of the base class (rewrites remove these identities after grad).
GradientIdentity = _GradientIdentity


@attrs.frozen
class ZeroGrad(_GradientIdentity):
    """Identity whose gradient is zero (the path stays connected)."""

    def pullback(self, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        return [arith.zeros_like(inputs[0])]

    def pushforward(self, inputs, outputs, tangents):  # type: ignore[no-untyped-def]
        return [arith.zeros_like(inputs[0])]


@attrs.frozen
class ConsiderConstant(ZeroGrad):
    """Same as ZeroGrad: the argument is treated as a constant when differentiating."""


@attrs.frozen
class DisconnectedGrad(_GradientIdentity):
    """Identity that cuts the gradient path: the output does not depend on the input."""

    def pullback(self, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        return [disconnected_type()]

    def pushforward(self, inputs, outputs, tangents):  # type: ignore[no-untyped-def]
        return [disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]


@attrs.frozen
class UndefinedGrad(_GradientIdentity):
    """Identity whose gradient is undefined: an error if it is ever needed."""

    def pullback(self, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        return [grad_undefined(self, 0, inputs[0], "It was wrapped in undefined_grad.")]

    def pushforward(self, inputs, outputs, tangents):  # type: ignore[no-untyped-def]
        return [grad_undefined(self, 0, inputs[0], "It was wrapped in undefined_grad.")]


@attrs.frozen
class GradClip(_GradientIdentity):
    """Identity whose cotangent is clipped to [clip_lower_bound, clip_upper_bound]."""

    clip_lower_bound: float
    clip_upper_bound: float

    def __attrs_post_init__(self) -> None:
        if not self.clip_upper_bound >= self.clip_lower_bound:
            raise ValueError(
                f"grad_clip needs upper_bound >= lower_bound; got lower={self.clip_lower_bound}"
                f", upper={self.clip_upper_bound}"
            )

    def pullback(self, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        pt = arith._pt()
        g = cotangents[0]
        return [pt.minimum(pt.maximum(g, self.clip_lower_bound), self.clip_upper_bound)]

    def __str__(self) -> str:
        return f"GradClip{{{self.clip_lower_bound}, {self.clip_upper_bound}}}"


@attrs.frozen
class GradScale(_GradientIdentity):
    """Identity ``x`` (first input) whose cotangent is multiplied by the second input."""

    def pullback(self, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        x, multiplier = inputs
        return [arith.cast_like(cotangents[0] * multiplier, x), disconnected_type()]

    def pushforward(self, inputs, outputs, tangents):  # type: ignore[no-untyped-def]
        return [arith.cast_like(tangents[0] * inputs[1], inputs[0])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]


#: The Op instances behind the functions (PyTensor's ``zero_grad_`` and friends).
zero_grad_ = ZeroGrad()
"""The Op behind :func:`zero_grad`: the identity, with a zero gradient."""
disconnected_grad_ = DisconnectedGrad()
"""The Op behind :func:`disconnected_grad`: the identity, cut from the gradient graph."""
undefined_grad_ = UndefinedGrad()
"""The Op behind :func:`undefined_grad`: the identity, whose gradient is an error."""


def zero_grad(x: Any) -> Variable:
    """``x``, but its gradient is zero (forward value unchanged)."""
    return zero_grad_(x)


def consider_constant(x: Any) -> Variable:
    """``x``, treated as a constant by ``grad`` (its gradient is zero)."""
    return ConsiderConstant()(x)


def disconnected_grad(x: Any) -> Variable:
    """``x``, but ``grad`` sees no path through it (DisconnectedType, not zeros)."""
    return disconnected_grad_(x)


def undefined_grad(x: Any) -> Variable:
    """``x``, but its gradient is undefined: ``grad`` raises if it is needed."""
    return undefined_grad_(x)


def grad_clip(x: Any, lower_bound: float, upper_bound: float) -> Variable:
    """``x``, with its gradient clipped elementwise to ``[lower_bound, upper_bound]``."""
    return GradClip(float(lower_bound), float(upper_bound))(x)


def grad_scale(x: Any, multiplier: Any) -> Variable:
    """``x``, with its gradient multiplied by ``multiplier`` (a number or scalar tensor)."""
    return GradScale()(x, multiplier)
