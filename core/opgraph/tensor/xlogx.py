"""``xlogx(x) = x * log(x)`` and ``xlogy0(x, y) = x * log(y)``, both 0 where ``x == 0``.

The limits that make entropy-like sums finite; the gradients are those of the
plain products away from ``x == 0``.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Variable
from opgraph.tensor import math as ptm
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["xlogx", "xlogy0"]


def xlogx(x: Any) -> Variable:
    """``x * log(x)``, with the value 0 at ``x == 0``."""
    x = as_tensor_variable(x)
    return ptm.switch(ptm.eq(x, 0), 0.0, x * ptm.log(ptm.switch(ptm.eq(x, 0), 1, x)))


def xlogy0(x: Any, y: Any) -> Variable:
    """``x * log(y)``, with the value 0 wherever ``x == 0`` (even when ``y == 0``)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    return ptm.switch(ptm.eq(x, 0), 0.0, x * ptm.log(ptm.switch(ptm.eq(x, 0), 1, y)))
