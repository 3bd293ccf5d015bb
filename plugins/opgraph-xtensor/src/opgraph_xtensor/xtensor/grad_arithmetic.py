"""How the gradient drivers build xtensor gradient terms (zeros, seeds, sums of terms).

A variable used twice gets the sum of its terms; for xtensors the sum aligns
the terms by dim name (they carry the same dims, possibly in another order).
"""

from __future__ import annotations

from typing import Any

from opgraph.autodiff.arith import GradientArithmetic, register_gradient_arithmetic
from opgraph.graph.basic import Variable
from opgraph_xtensor.xtensor.math import add, astype
from opgraph_xtensor.xtensor.shape import full_like, transpose, zeros_like
from opgraph_xtensor.xtensor.type import XTensorType

__all__ = ["XTENSOR_ARITHMETIC"]


def _filled(var: Variable, value: Any, dtype: str) -> Variable:
    return full_like(var, value, dtype=dtype)


def _add(*terms: Variable) -> Variable:
    out = terms[0]
    for t in terms[1:]:
        out = add(out, t)
    if isinstance(terms[0].type, XTensorType) and out.type.dims != terms[0].type.dims:
        out = transpose(out, *terms[0].type.dims)
    return out


XTENSOR_ARITHMETIC = GradientArithmetic(
    zeros=lambda var, dtype: zeros_like(var, dtype=dtype),
    one=lambda var, dtype: full_like(var, 1, dtype=dtype),
    filled=_filled,
    cast=lambda term, dtype: astype(term, dtype),
    add=_add,
)
register_gradient_arithmetic(XTensorType, XTENSOR_ARITHMETIC)

