"""The elementwise tensor functions: an Elemwise for every scalar op (``add``,
``exp``, ``cast``, ``switch`` ...), under PyTensor's and NumPy's names.

They live below the reductions, products, shape and indexing modules, which
build their graphs (and gradients) with them; ``opgraph.tensor.math`` re-exports
them with the reductions and products, as PyTensor keeps them all there.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Variable
from opgraph.scalar import arith as _sa
from opgraph.scalar import complex as _sc
from opgraph.scalar import logic as _sl
from opgraph.scalar import math as _sm
from opgraph.scalar import structural as _ss
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.math_docs import attach_docs as _attach_docs
from opgraph.tensor.type import normalize_dtype
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "abs",
    "add",
    "and_",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "cast",
    "ceil",
    "clip",
    "conj",
    "cos",
    "cosh",
    "divide",
    "eq",
    "exp",
    "exp2",
    "expm1",
    "floor",
    "floor_div",
    "ge",
    "gt",
    "identity",
    "int_div",
    "invert",
    "isinf",
    "isnan",
    "le",
    "log",
    "log1mexp",
    "log1p",
    "log2",
    "log10",
    "lt",
    "maximum",
    "minimum",
    "mod",
    "mul",
    "multiply",
    "neg",
    "negative",
    "neq",
    "or_",
    "pow",
    "power",
    "reciprocal",
    "round",
    "round_half_away_from_zero",
    "round_half_to_even",
    "second",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "softplus",
    "sqr",
    "sqrt",
    "square",
    "sub",
    "subtract",
    "switch",
    "tan",
    "tanh",
    "tensor_copy",
    "true_div",
    "true_divide",
    "trunc",
    "where",
    "xor",
]

# --------------------------------------------------------------------------- elementwise
# One module-level Elemwise per scalar op, under PyTensor's names.

add = Elemwise(_sa.add)
sub = Elemwise(_sa.sub)
mul = Elemwise(_sa.mul)
true_div = Elemwise(_sa.true_div)
int_div = Elemwise(_sa.int_div)
mod = Elemwise(_sa.mod)
pow = Elemwise(_sa.pow)
neg = Elemwise(_sa.neg)
abs = Elemwise(_sa.abs)
sign = Elemwise(_sa.sign)
sqr = Elemwise(_sa.sqr)
reciprocal = Elemwise(_sa.reciprocal)
maximum = Elemwise(_sa.maximum)
minimum = Elemwise(_sa.minimum)
_clip = Elemwise(_sa.clip)

exp = Elemwise(_sm.exp)
exp2 = Elemwise(_sm.exp2)
expm1 = Elemwise(_sm.expm1)
log = Elemwise(_sm.log)
log2 = Elemwise(_sm.log2)
log10 = Elemwise(_sm.log10)
log1p = Elemwise(_sm.log1p)
sqrt = Elemwise(_sm.sqrt)
sin = Elemwise(_sm.sin)
cos = Elemwise(_sm.cos)
tan = Elemwise(_sm.tan)
arcsin = Elemwise(_sm.arcsin)
arccos = Elemwise(_sm.arccos)
arctan = Elemwise(_sm.arctan)
arctan2 = Elemwise(_sm.arctan2)
sinh = Elemwise(_sm.sinh)
cosh = Elemwise(_sm.cosh)
tanh = Elemwise(_sm.tanh)
arcsinh = Elemwise(_sm.arcsinh)
arccosh = Elemwise(_sm.arccosh)
arctanh = Elemwise(_sm.arctanh)
sigmoid = Elemwise(_sm.sigmoid)
softplus = Elemwise(_sm.softplus)
log1mexp = Elemwise(_sm.log1mexp)
floor = Elemwise(_sm.floor)
ceil = Elemwise(_sm.ceil)
trunc = Elemwise(_sm.trunc)
round_half_to_even = Elemwise(_sm.round_half_to_even)
round_half_away_from_zero = Elemwise(_sm.round_half_away_from_zero)

eq = Elemwise(_sl.eq)
neq = Elemwise(_sl.neq)
lt = Elemwise(_sl.lt)
le = Elemwise(_sl.le)
gt = Elemwise(_sl.gt)
ge = Elemwise(_sl.ge)
and_ = Elemwise(_sl.and_)
or_ = Elemwise(_sl.or_)
xor = Elemwise(_sl.xor)
invert = Elemwise(_sl.invert)
isnan = Elemwise(_sl.isnan)
isinf = Elemwise(_sl.isinf)

switch = Elemwise(_ss.switch)
second = Elemwise(_ss.second)
identity = Elemwise(_ss.identity)
tensor_copy = identity

# NumPy-style aliases.
square = sqr
multiply = mul
subtract = sub
true_divide = divide = true_div
floor_div = int_div
power = pow
negative = neg
bitwise_and = and_
bitwise_or = or_
bitwise_xor = xor
bitwise_not = invert
where = switch

_ROUND_MODES = {
    "half_to_even": round_half_to_even,
    "half_away_from_zero": round_half_away_from_zero,
}


def round(a: Any, mode: str | None = None) -> Variable:
    """Round to integers; ties to even by default (like NumPy), or ``"half_away_from_zero"``."""
    op = _ROUND_MODES.get(mode or "half_to_even")
    if op is None:
        raise ValueError(
            f"round: mode must be one of {sorted(_ROUND_MODES)} or None, got {mode!r}"
        )
    return op(a)


clip = _clip
"""``clip(x, min, max)``: ``x`` limited to [min, max] elementwise (np.clip).

The Elemwise itself, as in PyTensor, so rewriters can track it
(``node_rewriter([clip])``).
"""


def cast(x: Any, dtype: Any) -> Variable:
    """``x`` converted to ``dtype`` (``x`` itself if it already has it); "floatX" allowed."""
    x = as_tensor_variable(x)
    dtype = normalize_dtype(dtype)
    if x.type.dtype == dtype:
        return x
    if x.type.dtype.startswith("complex") and not dtype.startswith("complex"):
        raise TypeError(
            f"cast of {x}: casting complex ({x.type.dtype}) to {dtype} is ambiguous; use "
            "real(), imag(), abs() or angle() first"
        )
    return _cast_op(dtype)(x)


_CAST_OPS: dict[str, Elemwise] = {}


def _cast_op(dtype: str) -> Elemwise:
    op = _CAST_OPS.get(dtype)
    if op is None:
        op = _CAST_OPS[dtype] = Elemwise(_ss.convert_to[dtype])
    return op


# PyTensor's per-dtype cast Ops (``_convert_to_float32``...), the ones ``cast`` uses.
for _dtype in _ss.convert_to:
    globals()[f"_convert_to_{_dtype}"] = _cast_op(_dtype)
del _dtype


def conj(x: Any) -> Variable:
    """Complex conjugate; real inputs are returned unchanged."""
    x = as_tensor_variable(x)
    if not x.type.dtype.startswith("complex"):
        return x
    return _conj(x)


# Complex numbers: parts, argument, conjugate and construction (NumPy's dtype rules).
real = Elemwise(_sc.real)
imag = Elemwise(_sc.imag)
angle = Elemwise(_sc.angle)
_conj = Elemwise(_sc.conj)
complex = Elemwise(_sc.complex)
complex_from_polar = Elemwise(_sc.complex_from_polar)
__all__ += ["angle", "complex", "complex_from_polar", "imag", "real"]
_attach_docs(globals())

