"""The docstrings of the elementwise functions (``pt.exp``, ``pt.add`` ...).

Those functions are ``Elemwise`` instances made one per line in
``opgraph.tensor.math``, which cannot carry a docstring in their source, so
their text lives in this table and :func:`attach_docs` sets it on each object
(``help(pt.exp)``, the API page).  An alias (``pt.multiply is pt.mul``) is
the same object and shares the text, which names the aliases.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["ELEMWISE_DOCS", "attach_docs"]

_COMMON = (
    "\n\nElementwise over tensors: the inputs broadcast as in NumPy (only axes of "
    "static length 1 broadcast), and the node fuses with its elementwise neighbours."
)

ELEMWISE_DOCS: dict[str, str] = {
    # arithmetic
    "add": "``a + b + ...``: the sum of any number of tensors (np.add).",
    "sub": "``a - b`` (np.subtract); alias ``subtract``.",
    "mul": "``a * b * ...``: the product of any number of tensors (np.multiply); alias "
           "``multiply``.",
    "true_div": "``a / b``, integers divide to a float (np.true_divide); aliases ``divide``, "
                "``true_divide``.",
    "int_div": "``a // b``: floor division (np.floor_divide); alias ``floor_div``.",
    "mod": "``a % b`` with the sign of ``b`` (np.remainder).",
    "pow": "``a ** b`` (np.power); alias ``power``.",
    "neg": "``-x`` (np.negative); alias ``negative``.",
    "abs": "``|x|``; the modulus, a float, for complex ``x`` (np.abs).",
    "sign": "The sign of ``x``: -1, 0 or 1 (np.sign); alias ``sgn``.",
    "sqr": "``x * x`` (np.square); alias ``square``.",
    "reciprocal": "``1 / x``, always a float (NumPy's reciprocal truncates integers).",
    "maximum": "The larger of ``a`` and ``b``; NaN propagates (np.maximum).",
    "minimum": "The smaller of ``a`` and ``b``; NaN propagates (np.minimum).",
    # exponentials, logarithms, roots
    "exp": "``e ** x`` (np.exp).",
    "exp2": "``2 ** x`` (np.exp2).",
    "expm1": "``exp(x) - 1``, accurate for small ``x`` (np.expm1).",
    "log": "The natural logarithm (np.log); ``log(0) = -inf``, NaN below 0.",
    "log2": "The base-2 logarithm (np.log2).",
    "log10": "The base-10 logarithm (np.log10).",
    "log1p": "``log(1 + x)``, accurate for small ``x`` (np.log1p).",
    "log1mexp": "``log(1 - exp(x))`` for ``x <= 0``, accurate near 0 and for large "
                "negative ``x``.",
    "sqrt": "The square root (np.sqrt); NaN below 0 for real ``x``.",
    "sigmoid": "The logistic function ``1 / (1 + exp(-x))``, without overflow for large "
               "``|x|`` (scipy.special.expit); alias ``expit``.",
    "softplus": "``log(1 + exp(x))``, computed so it never overflows (np.logaddexp(0, x)); "
                "alias ``log1pexp``.",
    # trigonometric and hyperbolic
    "sin": "The sine, ``x`` in radians (np.sin).",
    "cos": "The cosine, ``x`` in radians (np.cos).",
    "tan": "The tangent, ``x`` in radians (np.tan).",
    "arcsin": "The inverse sine, in radians (np.arcsin).",
    "arccos": "The inverse cosine, in radians (np.arccos).",
    "arctan": "The inverse tangent, in radians (np.arctan).",
    "arctan2": "``arctan2(y, x)``: the angle of the point ``(x, y)``, in radians, in the "
               "right quadrant (np.arctan2).",
    "sinh": "The hyperbolic sine (np.sinh).",
    "cosh": "The hyperbolic cosine (np.cosh).",
    "tanh": "The hyperbolic tangent (np.tanh).",
    "arcsinh": "The inverse hyperbolic sine (np.arcsinh).",
    "arccosh": "The inverse hyperbolic cosine (np.arccosh).",
    "arctanh": "The inverse hyperbolic tangent (np.arctanh).",
    # rounding
    "floor": "The largest integer ``<= x``, as a float for float ``x`` (np.floor).",
    "ceil": "The smallest integer ``>= x``, as a float for float ``x`` (np.ceil).",
    "trunc": "``x`` rounded towards zero (np.trunc).",
    "round_half_to_even": "``x`` rounded to the nearest integer, ties to even (np.round).",
    "round_half_away_from_zero": "``x`` rounded to the nearest integer, ties away from zero "
                                 "(C's ``round``).",
    # comparisons and logic
    "eq": "``a == b`` as a bool tensor (np.equal); alias ``equal``.",
    "neq": "``a != b`` as a bool tensor (np.not_equal); alias ``not_equal``.",
    "lt": "``a < b`` as a bool tensor (np.less); alias ``less``.",
    "le": "``a <= b`` as a bool tensor (np.less_equal); alias ``less_equal``.",
    "gt": "``a > b`` as a bool tensor (np.greater); alias ``greater``.",
    "ge": "``a >= b`` as a bool tensor (np.greater_equal); alias ``greater_equal``.",
    "and_": "``a & b``: logical and for bools, bitwise for integers (np.bitwise_and); alias "
            "``bitwise_and``.",
    "or_": "``a | b``: logical or for bools, bitwise for integers (np.bitwise_or); alias "
           "``bitwise_or``.",
    "xor": "``a ^ b``: exclusive or for bools, bitwise for integers (np.bitwise_xor); alias "
           "``bitwise_xor``.",
    "invert": "``~x``: logical not for bools, bitwise not for integers (np.invert); alias "
              "``bitwise_not``.",
    "isnan": "True where ``x`` is NaN (np.isnan); always False for integers.",
    "isinf": "True where ``x`` is plus or minus infinity (np.isinf).",
    # structure
    "switch": "``switch(cond, a, b)``: ``a`` where ``cond`` is true, else ``b`` (np.where "
              "with three arguments); alias ``where``.",
    "second": "``second(x, y)``: ``y`` broadcast to the shape of ``x`` (the values of ``x`` "
              "are not used); alias ``fill``.",
    "identity": "A copy of ``x`` (its output never aliases its input); alias ``tensor_copy``.",
    # complex numbers
    "real": "The real part of ``x`` (``x`` itself for a real input, np.real).",
    "imag": "The imaginary part of ``x`` (zero for a real input, np.imag).",
    "angle": "The argument of a complex ``x``, in radians (np.angle).",
    "complex": "``real + 1j * imag`` from two real tensors.",
    "complex_from_polar": "``abs * exp(1j * angle)`` from a modulus and an angle.",
}
"""Name in ``opgraph.tensor.math`` -> the docstring of that elementwise function."""


def attach_docs(namespace: Mapping[str, Any], docs: Mapping[str, str] = ELEMWISE_DOCS,
                common: str = _COMMON) -> None:
    """Set ``namespace[name].__doc__`` to ``docs[name] + common`` for every name present.

    Raises ``KeyError`` naming a table entry that ``namespace`` does not define, so
    a renamed function cannot silently lose its docstring.
    """
    for name, text in docs.items():
        if name not in namespace:
            raise KeyError(f"attach_docs: {name!r} has a docstring but is not defined")
        namespace[name].__doc__ = text + common
