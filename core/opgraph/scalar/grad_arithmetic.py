"""How gradient terms of scalar variables (the bodies of Elemwise) are built.

The scalar entry of autodiff's table (autodiff/arith.py), registered when
the scalar library is imported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.autodiff.arith import GradientArithmetic, register_gradient_arithmetic
from opgraph.graph.basic import Variable
from opgraph.scalar.arith import add
from opgraph.scalar.structural import cast, second
from opgraph.scalar.type import ScalarType, constant

__all__ = ["SCALAR_ARITHMETIC"]


def _const(value: Any, dtype: str) -> Variable:
    return constant(np.asarray(value, dtype=dtype), dtype=dtype)


def _filled(var: Variable, value: Any, dtype: str) -> Variable:
    if isinstance(value, Variable):
        return value
    return second(var, _const(value, dtype))


SCALAR_ARITHMETIC = GradientArithmetic(
    zeros=lambda var, dtype: _const(0, dtype),
    one=lambda var, dtype: _const(1, dtype),
    filled=_filled,
    cast=cast,
    add=add,
)

register_gradient_arithmetic(ScalarType, SCALAR_ARITHMETIC)
