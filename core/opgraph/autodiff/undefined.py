"""Markers for gradients that do not exist (disconnected) or cannot be computed (null).

Kept apart from the drivers so Op authors can import these early and cheaply.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Variable
from opgraph.graph.null_type import DisconnectedType, NullType, disconnected_type

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


class NullTypeGradError(TypeError):
    """A gradient that is needed is undefined or not implemented (a NullType)."""


class DisconnectedInputError(ValueError):
    """``grad`` was asked for the gradient of an input the cost does not depend on."""


class GradientError(AssertionError):
    """An analytic gradient disagrees with finite differences (raised by ``verify_grad``).

    Attributes name the input (``arg``), the flat position of the worst mismatch
    (``err_pos``), both values and the errors against their tolerances.
    """

    def __init__(
        self,
        arg: int,
        err_pos: int | tuple[int, ...],
        shape: tuple[int, ...],
        val1: float,
        val2: float,
        abs_err: float,
        rel_err: float,
        abs_tol: float,
        rel_tol: float,
    ) -> None:
        self.arg = arg
        self.err_pos = err_pos
        self.shape = shape
        self.val1 = val1
        self.val2 = val2
        self.abs_err = abs_err
        self.rel_err = rel_err
        self.abs_tol = abs_tol
        self.rel_tol = rel_tol
        super().__init__(str(self))

    def __str__(self) -> str:
        return (
            f"GradientError: numeric gradient and analytic gradient exceed tolerance:\n"
            f"        At position {self.err_pos} of argument {self.arg} with shape {self.shape},\n"
            f"            val1 = {self.val1:f}      ,  val2 = {self.val2:f}\n"
            f"            abs. error = {self.abs_err:f},  abs. tolerance = {self.abs_tol:f}\n"
            f"            rel. error = {self.rel_err:f},  rel. tolerance = {self.rel_tol:f}"
        )


def grad_undefined(op: Any, x_pos: int, x: Any, comment: str = "") -> Variable:
    """A NullType gradient for input ``x_pos`` of ``op``: mathematically undefined.

    Only an error when something actually needs that gradient.
    """
    return NullType(
        f"This variable is Null because the gradient for input {x_pos} ({x}) of the "
        f"{op} op is mathematically undefined. {comment}".rstrip()
    )()


def grad_not_implemented(op: Any, x_pos: int, x: Any, comment: str = "") -> Variable:
    """A NullType gradient for input ``x_pos`` of ``op``: defined but not implemented."""
    return NullType(
        f"This variable is Null because the gradient for input {x_pos} ({x}) of the "
        f"{op} op is not implemented. {comment}".rstrip()
    )()


def is_disconnected(var: Any) -> bool:
    """Whether ``var`` is a DisconnectedType marker."""
    return isinstance(getattr(var, "type", None), DisconnectedType)


def is_null(var: Any) -> bool:
    """Whether ``var`` is a NullType (undefined) gradient."""
    return isinstance(getattr(var, "type", None), NullType)
