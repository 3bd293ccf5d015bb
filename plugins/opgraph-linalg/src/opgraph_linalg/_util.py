"""Helpers shared by the linear-algebra Ops: argument checks, dtypes, triangle masks."""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.basic import Variable
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.type import TensorType

__all__ = [
    "as_matrix",
    "check_square_static",
    "check_square_value",
    "float_dtype",
    "matrix_transpose",
    "transposed_operand",
    "triangle",
    "triangle_grad",
]


def float_dtype(*dtypes: str) -> str:
    """The floating dtype of a result: float32/complex kept, integers and bools -> float64."""
    out = np.result_type(*dtypes)
    if out.kind in "fc":
        return "float64" if out.name == "float16" else out.name
    return "float64"


def as_matrix(x: Any, who: str, arg: str, min_ndim: int = 2) -> Variable:
    """``x`` as a tensor with at least ``min_ndim`` dimensions, or a TypeError naming ``arg``."""
    x = pt.as_tensor_variable(x)
    if not isinstance(x.type, TensorType):
        raise TypeError(f"{who}: {arg} must be a tensor, got type {x.type}")
    if x.type.ndim < min_ndim:
        raise ValueError(
            f"{who}: {arg} must have at least {min_ndim} dimensions (a matrix, or a batch of "
            f"them), got {x.type.ndim}-d {x.type}"
        )
    return x


def check_square_static(x: Variable, who: str, arg: str) -> None:
    """Raise at construction when the static shape already shows a non-square matrix."""
    m, n = x.type.shape[-2:]
    if m is not None and n is not None and m != n:
        raise ValueError(f"{who}: {arg} must be a square matrix, got static shape {x.type.shape}")


def check_square_value(a: np.ndarray, who: str, arg: str) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{who}: {arg} must be a square matrix, got shape {a.shape}")


def matrix_transpose(x: Variable) -> Variable:
    """Swap the last two axes."""
    nd = x.type.ndim
    order = (*range(nd - 2), nd - 1, nd - 2)
    return DimShuffle(input_ndim=nd, new_order=order)(x)


def transposed_operand(var: Variable) -> Variable | None:
    """``x`` when ``var`` is ``x`` with its last two axes swapped, else None."""
    node = var.owner
    if node is None or not isinstance(node.op, DimShuffle):
        return None
    nd = node.op.input_ndim
    if nd >= 2 and node.op.new_order == (*range(nd - 2), nd - 1, nd - 2):
        return node.inputs[0]
    return None


def _tri_mask(x: Variable, k: int, lower: bool) -> Variable:
    rows = pt.arange(x.shape[-2])[:, None]
    cols = pt.arange(x.shape[-1])[None, :]
    return pt.ge(rows + k, cols) if lower else pt.le(rows + k, cols)


def triangle(x: Any, k: int = 0, lower: bool = True) -> Variable:
    """tril(x, k) (lower) or triu(x, k) of the last two axes, as a differentiable graph."""
    x = pt.as_tensor_variable(x)
    zero = pt.constant(0, dtype=x.type.dtype)
    return pt.switch(_tri_mask(x, k, lower), x, zero)


def triangle_grad(g: Variable, lower: bool) -> Variable:
    """The gradient for an input of which only one triangle is read (the matrix it stands
    for is symmetric): entries off the diagonal collect both mirrored cotangents."""
    both = triangle(g + matrix_transpose(g), 0, lower)
    diag_only = triangle(triangle(g, 0, True), 0, False)
    return both - diag_only
