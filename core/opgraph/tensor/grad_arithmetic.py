"""How gradient terms of tensor variables are built: the tensor entry of autodiff's table.

The drivers (autodiff/arith.py) sit below the tensor library and ask this
table for zeros, seeds, broadcasts, casts and sums; ``opgraph.tensor``
registers it (and itself, as the library for whole tensor graphs) on import.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.autodiff.arith import GradientArithmetic
from opgraph.graph.basic import Variable
from opgraph.tensor.basic import cast, second
from opgraph.tensor.creation import zeros_like
from opgraph.tensor.math import add
from opgraph.tensor.variable import constant

__all__ = ["TENSOR_ARITHMETIC"]


def _zeros(var: Variable, dtype: str) -> Variable:
    if var.type.ndim == 0:
        return constant(np.zeros((), dtype=dtype))
    return zeros_like(var, dtype=dtype)


def _one(var: Variable, dtype: str) -> Variable:
    return constant(np.ones((), dtype=dtype))


def _filled(var: Variable, value: Any, dtype: str) -> Variable:
    if isinstance(value, Variable):
        return second(var, value)
    return second(var, constant(np.asarray(value, dtype=dtype)))


TENSOR_ARITHMETIC = GradientArithmetic(
    zeros=_zeros, one=_one, filled=_filled, cast=cast, add=add
)
