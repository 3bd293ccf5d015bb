"""What each elementwise function computes, one line of docs per name (``exp``, ``add`` ...).

The scalar ops (``opgraph.scalar.exp``) and the tensor functions built on them
(``opgraph.tensor.exp``) are instances made one per line, which cannot carry a
docstring in their source; this table holds the text once and
:func:`attach_docs` sets it on the objects (``help()``, the API page).  Each
layer adds its own last paragraph (scalar: one value; tensor: broadcasting).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["FUNCTION_DOCS", "attach_docs"]

FUNCTION_DOCS: dict[str, str] = {
    "add": "``a + b + ...``: the sum of any number of values (np.add).",
    "sub": "``a - b`` (np.subtract).",
    "mul": "``a * b * ...``: the product of any number of values (np.multiply).",
    "true_div": "``a / b``, integers divide to a float (np.true_divide).",
    "int_div": "``a // b``: floor division (np.floor_divide).",
    "mod": "``a % b`` with the sign of ``b`` (np.remainder).",
    "pow": "``a ** b`` (np.power).",
    "neg": "``-x`` (np.negative).",
    "abs": "``|x|``; the modulus, a float, for complex ``x`` (np.abs).",
    "sign": "The sign of ``x``: -1, 0 or 1 (np.sign).",
    "sqr": "``x * x`` (np.square).",
    "reciprocal": "``1 / x``, always a float (NumPy's reciprocal truncates integers).",
    "maximum": "The larger of ``a`` and ``b``; NaN propagates (np.maximum).",
    "minimum": "The smaller of ``a`` and ``b``; NaN propagates (np.minimum).",
    "clip": "``x`` limited to ``[lo, hi]``: ``minimum(maximum(x, lo), hi)`` (np.clip).",
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
               "``|x|`` (scipy.special.expit).",
    "softplus": "``log(1 + exp(x))``, computed so it never overflows (np.logaddexp(0, x)).",
    "sin": "The sine, ``x`` in radians (np.sin).",
    "cos": "The cosine, ``x`` in radians (np.cos).",
    "tan": "The tangent, ``x`` in radians (np.tan).",
    "arcsin": "The inverse sine, in radians (np.arcsin).",
    "arccos": "The inverse cosine, in radians (np.arccos).",
    "arctan": "The inverse tangent, in radians (np.arctan).",
    "arctan2": "``arctan2(y, x)``: the angle of the point ``(x, y)``, in radians, in the right "
               "quadrant (np.arctan2).",
    "sinh": "The hyperbolic sine (np.sinh).",
    "cosh": "The hyperbolic cosine (np.cosh).",
    "tanh": "The hyperbolic tangent (np.tanh).",
    "arcsinh": "The inverse hyperbolic sine (np.arcsinh).",
    "arccosh": "The inverse hyperbolic cosine (np.arccosh).",
    "arctanh": "The inverse hyperbolic tangent (np.arctanh).",
    "floor": "The largest integer ``<= x``, as a float for float ``x`` (np.floor).",
    "ceil": "The smallest integer ``>= x``, as a float for float ``x`` (np.ceil).",
    "trunc": "``x`` rounded towards zero (np.trunc).",
    "round_half_to_even": "``x`` rounded to the nearest integer, ties to even (np.round).",
    "round_half_away_from_zero": "``x`` rounded to the nearest integer, ties away from zero "
                                 "(C's ``round``).",
    "eq": "``a == b`` as a bool (np.equal).",
    "neq": "``a != b`` as a bool (np.not_equal).",
    "lt": "``a < b`` as a bool (np.less).",
    "le": "``a <= b`` as a bool (np.less_equal).",
    "gt": "``a > b`` as a bool (np.greater).",
    "ge": "``a >= b`` as a bool (np.greater_equal).",
    "and_": "``a & b``: logical and for bools, bitwise for integers (np.bitwise_and).",
    "or_": "``a | b``: logical or for bools, bitwise for integers (np.bitwise_or).",
    "xor": "``a ^ b``: exclusive or for bools, bitwise for integers (np.bitwise_xor).",
    "invert": "``~x``: logical not for bools, bitwise not for integers (np.invert).",
    "isnan": "True where ``x`` is NaN (np.isnan); always False for integers.",
    "isinf": "True where ``x`` is plus or minus infinity (np.isinf).",
    "switch": "``switch(cond, a, b)``: ``a`` where ``cond`` is true, else ``b`` (np.where with "
              "three arguments).",
    "second": "``second(x, y)``: ``y`` broadcast to the shape of ``x`` (the values of ``x`` "
              "are not used).",
    "identity": "A copy of ``x`` (its output never aliases its input).",
    "real": "The real part of ``x`` (``x`` itself for a real input, np.real).",
    "imag": "The imaginary part of ``x`` (zero for a real input, np.imag).",
    "angle": "The argument of a complex ``x``, in radians (np.angle).",
    "complex": "``real + 1j * imag`` from two real values.",
    "complex_from_polar": "``abs * exp(1j * angle)`` from a modulus and an angle.",
}
"""Name -> what the function computes (the same text for the scalar op and the tensor one)."""

_SCALAR_NOTE = (
    "\n\nA scalar Op (one value per input); ``opgraph.tensor`` has the same name "
    "applied elementwise to tensors."
)


def attach_docs(namespace: Mapping[str, Any], docs: Mapping[str, str] = FUNCTION_DOCS,
                suffix: str = _SCALAR_NOTE, names: Any = None) -> None:
    """Set ``namespace[name].__doc__ = docs[name] + suffix`` for each of ``names``
    (default: every name of ``docs`` that ``namespace`` defines).

    A name in ``names`` that ``namespace`` does not define is a ``KeyError``, so a
    renamed function cannot silently lose its docstring.
    """
    wanted = [n for n in docs if n in namespace] if names is None else list(names)
    for name in wanted:
        if name not in namespace:
            raise KeyError(f"attach_docs: {name!r} has a docstring but is not defined")
        namespace[name].__doc__ = docs[name] + suffix
