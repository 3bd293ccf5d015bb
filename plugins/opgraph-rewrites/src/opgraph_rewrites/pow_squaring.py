"""``local_pow_to_nested_squaring`` (PyTensor's ``tensor.rewriting.math``): ``x ** n``
for a constant integer ``n`` with ``4 < |n| <= 512`` as repeated squaring in one
scalar Composite (``x**15 = x * x2 * x4 * x8`` with ``x2 = sqr(x)``, ``x4 = sqr(x2)``,
``x8 = sqr(x4)``), and ``reciprocal`` of it for a negative ``n``: a few
multiplications instead of a call to ``pow``. The result agrees with ``pow`` to a few
units in the last place; overflow, zeros, signs, inf and NaN come out as with ``pow``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scalar.composite import Composite
from opgraph.scalar.type import get_scalar_type
from opgraph.tensor.elemwise import Elemwise
from opgraph_rewrites.utils import const_value, ew, keep_type

__all__ = ["local_pow_to_nested_squaring", "pow_squaring_rewriters"]

_MAX_EXPONENT = 512


def _nested_squares(n: int, dtype: str) -> Composite:
    """The scalar program of ``x ** n`` (``n >= 1``) by binary powering."""
    x = get_scalar_type(dtype)()
    square, result = x, None
    while True:
        if n & 1:
            result = square if result is None else ps.mul(result, square)
        n >>= 1
        if not n:
            break
        square = ps.sqr(square)
    return Composite([x], [result])


@node_rewriter([ew(ps.pow)], name="local_pow_to_nested_squaring")
def local_pow_to_nested_squaring(fgraph: Any, node: Apply) -> Any:
    """x ** 15 -> Composite(x * sqr(x) * sqr(sqr(x)) * ...); x ** -15 -> 1 / that."""
    x, e = node.inputs
    out = node.outputs[0]
    c = const_value(e)
    if c is None or np.ndim(c) != 0 or not out.type.dtype.startswith("float"):
        return None
    value = float(c)
    if not value.is_integer() or not 4 < abs(value) <= _MAX_EXPONENT:
        return None
    if x.type.dtype != out.type.dtype:
        return None  # an integer base raised into a float: leave pow's own casting
    powered: Variable = Elemwise(scalar_op=_nested_squares(int(abs(value)), out.type.dtype))(x)
    if value < 0:
        powered = ew(ps.reciprocal)(powered)
    fixed = keep_type(out, powered, refs=node.inputs)
    return [fixed] if fixed is not None else None


def pow_squaring_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags): specialize, as in PyTensor."""
    return {"specialize": [("local_pow_to_nested_squaring", local_pow_to_nested_squaring, ())]}
