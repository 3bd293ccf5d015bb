"""Arithmetic scalar ops: + - * / // % **, negation, abs, sign, sqr, reciprocal, max/min, clip.

Each pullback is written in scalar terms: ``gz`` is the output cotangent and
the result is one scalar Variable per input (see :mod:`gradhelpers`).
"""

from __future__ import annotations

import sys as _sys
from collections.abc import Callable
from typing import Any

import numpy as np

from opgraph.autodiff.undefined import grad_undefined
from opgraph.graph.basic import Variable
from opgraph.scalar.basic import (
    BinaryScalarOp,
    ScalarOp,
    UnaryScalarOp,
    upcast_out_no_complex,
    upgrade_to_float,
)
from opgraph.scalar.docs import attach_docs as _attach_docs
from opgraph.scalar.function_table import SCALAR_FUNCTIONS
from opgraph.scalar.gradhelpers import cast_like, const_like, grad_zeros, is_discrete
from opgraph.scalar.logic import and_, eq, ge, gt, le, lt, neq
from opgraph.scalar.structural import switch

__all__ = [
    "Abs",
    "Add",
    "Clip",
    "IntDiv",
    "Maximum",
    "Minimum",
    "Mod",
    "Mul",
    "Neg",
    "Pow",
    "Reciprocal",
    "ScalarMaximum",
    "ScalarMinimum",
    "Sign",
    "Sqr",
    "Sub",
    "TrueDiv",
    "abs",
    "add",
    "clip",
    "int_div",
    "maximum",
    "minimum",
    "mod",
    "mul",
    "neg",
    "pow",
    "reciprocal",
    "sign",
    "sqr",
    "sub",
    "true_div",
]


def _g(x: Variable, expr: Callable[[], Variable]) -> Variable:
    """Gradient for input x: ``expr()`` in x's dtype (a float one for a discrete x).

    As in PyTensor, an integer input of a float-valued op gets the gradient the
    same graph would have over floats; the driver gives zeros to integer outputs.
    """
    g = expr()
    if is_discrete(x) and is_discrete(g):
        return grad_zeros(x)  # an integer-valued op (its output cotangent is integer)
    return cast_like(g, x)


class Add(ScalarOp):
    nfunc_spec = ("add", 2, 1)
    commutative = True
    associative = True
    identity = 0
    symbol = "+"

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (gz,) = cotangents
        return [_g(x, lambda: gz) for x in inputs]


class Mul(ScalarOp):
    nfunc_spec = ("multiply", 2, 1)
    commutative = True
    associative = True
    identity = 1
    symbol = "*"

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (gz,) = cotangents
        grads = []
        for i, x in enumerate(inputs):
            others = inputs[:i] + inputs[i + 1 :]
            grads.append(_g(x, lambda others=others: mul(gz, *others) if others else gz))
        return grads


class Sub(BinaryScalarOp):
    nfunc_spec = ("subtract", 2, 1)
    symbol = "-"

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x, y), (gz,) = inputs, cotangents
        return [_g(x, lambda: gz), _g(y, lambda: neg(gz))]


class TrueDiv(BinaryScalarOp):
    """x / y; integers give float64, as NumPy's true_divide."""

    nfunc_spec = ("true_divide", 2, 1)
    symbol = "/"

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x, y), (gz,) = inputs, cotangents
        return [
            _g(x, lambda: true_div(gz, y)),
            _g(y, lambda: neg(true_div(mul(gz, x), mul(y, y)))),
        ]


class IntDiv(BinaryScalarOp):
    """x // y (floor division, NumPy's floor_divide); the gradient is undefined."""

    nfunc_spec = ("floor_divide", 2, 1)
    symbol = "//"

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        return [
            grad_zeros(x) if is_discrete(x) else grad_undefined(self, i, x, "(floor division)")
            for i, x in enumerate(inputs)
        ]


class Mod(BinaryScalarOp):
    """x % y with the sign of y (NumPy's remainder)."""

    nfunc_spec = ("remainder", 2, 1)
    symbol = "%"

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x, y), (gz,) = inputs, cotangents
        return [_g(x, lambda: gz), _g(y, lambda: neg(mul(gz, int_div(x, y))))]


class Pow(BinaryScalarOp):
    nfunc_spec = ("power", 2, 1)
    symbol = "**"

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x, y), (gz,) = inputs, cotangents
        (out,) = outputs

        def grad_y() -> Any:
            # d(x**y)/dy = log(x) x**y, which is 0 (not 0 * -inf = nan) where x == 0
            term = mul(gz, SCALAR_FUNCTIONS.log(x), out)
            return switch(eq(x, const_like(0, x)), const_like(0, term), term)

        return [
            _g(x, lambda: mul(gz, y, pow(x, sub(y, const_like(1, y))))),
            _g(y, grad_y),
        ]


class Neg(UnaryScalarOp):
    nfunc_spec = ("negative", 1, 1)
    symbol = "-"

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x,), (gz,) = inputs, cotangents
        return [_g(x, lambda: neg(gz))]


class Abs(UnaryScalarOp):
    """|x|; complex inputs give their modulus (a float)."""

    nfunc_spec = ("absolute", 1, 1)

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x,), (gz,) = inputs, cotangents
        return [_g(x, lambda: mul(gz, sign(x)))]


class Sign(UnaryScalarOp):
    nfunc_spec = ("sign", 1, 1)

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        return [grad_zeros(inputs[0])]


class Sqr(UnaryScalarOp):
    """x * x."""

    nfunc_spec = ("square", 1, 1)

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x,), (gz,) = inputs, cotangents
        return [_g(x, lambda: mul(gz, x, const_like(2, x)))]


class Reciprocal(UnaryScalarOp):
    """1 / x, always a float (NumPy's reciprocal truncates on integers; this does not)."""

    nfunc_spec = ("reciprocal", 1, 1)
    default_output_types_preference = staticmethod(upgrade_to_float)

    def numpy_fn(self, x: Any) -> Any:
        x = np.asarray(x)
        if x.dtype.kind not in "fc":
            x = x.astype(np.result_type(x.dtype, np.float16))
        return np.reciprocal(x)

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x,), (gz,) = inputs, cotangents
        (out,) = outputs
        return [_g(x, lambda: neg(mul(gz, out, out)))]


class _Extremum(BinaryScalarOp):
    """Shared gradient of maximum/minimum: gz flows to the input that was chosen
    (at a tie, to the first input only, as PyTensor does)."""

    commutative = True
    associative = True

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x, y), (gz,) = inputs, cotangents
        (out,) = outputs
        zero = const_like(0, gz)
        return [
            _g(x, lambda: switch(eq(out, x), gz, zero)),
            _g(y, lambda: switch(and_(eq(out, y), neq(out, x)), gz, zero)),
        ]


class Maximum(_Extremum):
    """Larger of two values; NaN propagates (np.maximum)."""

    nfunc_spec = ("maximum", 2, 1)
    identity = -np.inf


class Minimum(_Extremum):
    """Smaller of two values; NaN propagates (np.minimum)."""

    nfunc_spec = ("minimum", 2, 1)
    identity = np.inf


class Clip(ScalarOp):
    """clip(x, lo, hi) = minimum(maximum(x, lo), hi), like np.clip (real numbers only:
    complex numbers have no order)."""

    nin = 3
    nfunc_spec = ("clip", 3, 1)
    default_output_types_preference = staticmethod(upcast_out_no_complex)

    def numpy_fn(self, x: Any, lo: Any, hi: Any) -> Any:
        x, lo, hi = np.asarray(x), np.asarray(lo), np.asarray(hi)
        out = np.minimum(np.maximum(x, lo), hi)
        dtype = np.result_type(x.dtype, lo.dtype, hi.dtype)
        return out if out.dtype == dtype else out.astype(dtype)

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x, lo, hi), (gz,) = inputs, cotangents
        zero = const_like(0, gz)
        return [
            _g(x, lambda: switch(and_(ge(x, lo), le(x, hi)), gz, zero)),
            _g(lo, lambda: switch(lt(x, lo), gz, zero)),
            _g(hi, lambda: switch(gt(x, hi), gz, zero)),
        ]


add = Add(name="add")
mul = Mul(name="mul")
sub = Sub(name="sub")
true_div = TrueDiv(name="true_div")
int_div = IntDiv(name="int_div")
mod = Mod(name="mod")
pow = Pow(name="pow")
neg = Neg(name="neg")
abs = Abs(name="abs")
sign = Sign(name="sign")
sqr = Sqr(name="sqr")
reciprocal = Reciprocal(name="reciprocal")
#: PyTensor's other names of the classes
ScalarMaximum = Maximum
ScalarMinimum = Minimum

maximum = Maximum(name="maximum")
minimum = Minimum(name="minimum")
clip = Clip(name="clip")
"""``clip(x, lo, hi)``: ``x`` limited to ``[lo, hi]`` (np.clip)."""

_attach_docs(globals())

# Lower scalar modules (type, gradhelpers) call these ops by name.
SCALAR_FUNCTIONS.register(_sys.modules[__name__])
