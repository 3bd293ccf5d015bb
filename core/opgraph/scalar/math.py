"""Transcendental and rounding scalar ops: exp/log families, trigonometry, sigmoid, rounding.

Unary float functions declare their derivative once (``derivative(x, out)``);
the shared pullback multiplies it by the cotangent.
"""

from __future__ import annotations

import sys as _sys
from typing import Any

import numpy as np

from opgraph import faces as _faces
from opgraph.graph.basic import Variable
from opgraph.scalar.arith import _g, add, mul, neg, sqr, sub, true_div
from opgraph.scalar.basic import (
    BinaryScalarOp,
    UnaryScalarOp,
    same_out,
    same_out_nocomplex,
    upgrade_to_float_no_complex,
)
from opgraph.scalar.docs import attach_docs as _attach_docs
from opgraph.scalar.function_table import SCALAR_FUNCTIONS
from opgraph.scalar.gradhelpers import const_like, grad_zeros
from opgraph.utils import lazy_scipy_module

__all__ = [
    "ArcCos",
    "ArcCosh",
    "ArcSin",
    "ArcSinh",
    "ArcTan",
    "ArcTan2",
    "ArcTanh",
    "Ceil",
    "Cos",
    "Cosh",
    "Deg2Rad",
    "Exp",
    "Exp2",
    "Expm1",
    "Floor",
    "Log",
    "Log1mexp",
    "Log1p",
    "Log2",
    "Log10",
    "Rad2Deg",
    "RoundHalfAwayFromZero",
    "RoundHalfToEven",
    "Sigmoid",
    "Sin",
    "Sinh",
    "Softplus",
    "Sqrt",
    "Tan",
    "Tanh",
    "Trunc",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "ceil",
    "cos",
    "cosh",
    "deg2rad",
    "exp",
    "exp2",
    "expm1",
    "floor",
    "log",
    "log1mexp",
    "log1p",
    "log2",
    "log10",
    "rad2deg",
    "round_half_away_from_zero",
    "round_half_away_from_zero_vec",
    "round_half_to_even",
    "sigmoid",
    "sin",
    "sinh",
    "softplus",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
]


def _one(x: Variable) -> Variable:
    return const_like(1, x)


class FloatUnaryOp(UnaryScalarOp):
    """A differentiable function of one float; subclasses give ``derivative``."""

    def derivative(self, x: Variable, out: Variable) -> Variable:
        raise NotImplementedError

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (x,), (out,), (gz,) = inputs, outputs, cotangents
        return [_g(x, lambda: mul(gz, self.derivative(x, out)))]


class Exp(FloatUnaryOp):
    nfunc_spec = ("exp", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return out


class Exp2(FloatUnaryOp):
    nfunc_spec = ("exp2", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return mul(out, const_like(np.log(2.0), x))


class Expm1(FloatUnaryOp):
    nfunc_spec = ("expm1", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        # exp(x), not out + 1: that rounds to 0 for x < ~-37
        return exp(x)


class Log(FloatUnaryOp):
    nfunc_spec = ("log", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return true_div(_one(x), x)


class Log2(FloatUnaryOp):
    nfunc_spec = ("log2", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return true_div(_one(x), mul(x, const_like(np.log(2.0), x)))


class Log10(FloatUnaryOp):
    nfunc_spec = ("log10", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return true_div(_one(x), mul(x, const_like(np.log(10.0), x)))


class Log1p(FloatUnaryOp):
    nfunc_spec = ("log1p", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return true_div(_one(x), add(x, _one(x)))


class Sqrt(FloatUnaryOp):
    nfunc_spec = ("sqrt", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return true_div(const_like(0.5, x), out)


class Sin(FloatUnaryOp):
    nfunc_spec = ("sin", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return cos(x)


class Cos(FloatUnaryOp):
    nfunc_spec = ("cos", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return neg(sin(x))


class Tan(FloatUnaryOp):
    nfunc_spec = ("tan", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return add(_one(x), sqr(out))


class ArcSin(FloatUnaryOp):
    nfunc_spec = ("arcsin", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return true_div(_one(x), sqrt(sub(_one(x), sqr(x))))


class ArcCos(FloatUnaryOp):
    nfunc_spec = ("arccos", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return neg(true_div(_one(x), sqrt(sub(_one(x), sqr(x)))))


class ArcTan(FloatUnaryOp):
    nfunc_spec = ("arctan", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return true_div(_one(x), add(_one(x), sqr(x)))


class Deg2Rad(FloatUnaryOp):
    """Degrees to radians (np.deg2rad)."""

    nfunc_spec = ("deg2rad", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return const_like(np.pi / 180.0, out)


class Rad2Deg(FloatUnaryOp):
    """Radians to degrees (np.rad2deg)."""

    nfunc_spec = ("rad2deg", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return const_like(180.0 / np.pi, out)


class Sinh(FloatUnaryOp):
    nfunc_spec = ("sinh", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return cosh(x)


class Cosh(FloatUnaryOp):
    nfunc_spec = ("cosh", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return sinh(x)


class Tanh(FloatUnaryOp):
    nfunc_spec = ("tanh", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return sub(_one(x), sqr(out))


class ArcSinh(FloatUnaryOp):
    nfunc_spec = ("arcsinh", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return true_div(_one(x), sqrt(add(sqr(x), _one(x))))


class ArcCosh(FloatUnaryOp):
    nfunc_spec = ("arccosh", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return true_div(_one(x), sqrt(sub(sqr(x), _one(x))))


class ArcTanh(FloatUnaryOp):
    nfunc_spec = ("arctanh", 1, 1)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return true_div(_one(x), sub(_one(x), sqr(x)))


def _as_float(x: Any) -> np.ndarray:
    """Integers become the float dtype np.exp would use (see basic.upgrade_to_float)."""
    x = np.asarray(x)
    if x.dtype.kind not in "fc":
        x = x.astype(np.result_type(x.dtype, np.float16))
    return x


class Sigmoid(FloatUnaryOp):
    """1 / (1 + exp(-x)), computed without overflow for large |x|."""

    default_output_types_preference = staticmethod(upgrade_to_float_no_complex)

    def numpy_fn(self, x: Any) -> Any:
        x = _as_float(x)
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e))

    def derivative(self, x: Variable, out: Variable) -> Variable:
        # sigmoid(x) * sigmoid(-x): 1 - out would round to 0 for x > ~37
        return mul(out, sigmoid(neg(x)))


class Softplus(FloatUnaryOp):
    """log(1 + exp(x)), computed as logaddexp(0, x) so it never overflows."""

    default_output_types_preference = staticmethod(upgrade_to_float_no_complex)

    def numpy_fn(self, x: Any) -> Any:
        return np.logaddexp(0, _as_float(x))

    def derivative(self, x: Variable, out: Variable) -> Variable:
        return sigmoid(x)


class Log1mexp(FloatUnaryOp):
    """log(1 - exp(x)) for x <= 0, accurate at both ends (Maechler's switch at -log 2)."""

    default_output_types_preference = staticmethod(upgrade_to_float_no_complex)

    def numpy_fn(self, x: Any) -> Any:
        x = _as_float(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            near = np.log(-np.expm1(x))
            far = np.log1p(-np.exp(x))
        return np.where(x < -np.log(2.0), far, near)

    def derivative(self, x: Variable, out: Variable) -> Variable:
        # -exp(x) / (1 - exp(x)) = -1 / expm1(-x): finite down to x = -inf
        return neg(true_div(_one(x), expm1(neg(x))))


class ArcTan2(BinaryScalarOp):
    """arctan2(y, x): the angle of the point (x, y)."""

    nfunc_spec = ("arctan2", 2, 1)

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        (y, x), (gz,) = inputs, cotangents

        def r2() -> Variable:
            return add(sqr(x), sqr(y))

        return [
            _g(y, lambda: true_div(mul(gz, x), r2())),
            _g(x, lambda: neg(true_div(mul(gz, y), r2()))),
        ]


class _Rounding(UnaryScalarOp):
    """Piecewise constant: zero gradient."""

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        return [grad_zeros(inputs[0])]


class Floor(_Rounding):
    nfunc_spec = ("floor", 1, 1)


class Ceil(_Rounding):
    nfunc_spec = ("ceil", 1, 1)


class Trunc(_Rounding):
    nfunc_spec = ("trunc", 1, 1)


class RoundHalfToEven(_Rounding):
    """Round to the nearest integer, ties to even (np.round); integers unchanged."""

    nfunc_spec = ("round", 1, 1)
    default_output_types_preference = staticmethod(same_out)

    def numpy_fn(self, x: Any) -> Any:
        x = np.asarray(x)
        return np.rint(x) if x.dtype.kind in "fc" else x.copy()


class RoundHalfAwayFromZero(_Rounding):
    """Round to the nearest integer, ties away from zero (C's round)."""

    default_output_types_preference = staticmethod(same_out_nocomplex)

    def numpy_fn(self, x: Any) -> Any:
        x = np.asarray(x)
        if x.dtype.kind != "f":
            return x.copy()
        return np.copysign(np.floor(np.abs(x) + x.dtype.type(0.5)), x)


exp = Exp(name="exp")
exp2 = Exp2(name="exp2")
expm1 = Expm1(name="expm1")
log = Log(name="log")
log2 = Log2(name="log2")
log10 = Log10(name="log10")
log1p = Log1p(name="log1p")
sqrt = Sqrt(name="sqrt")
sin = Sin(name="sin")
cos = Cos(name="cos")
tan = Tan(name="tan")
arcsin = ArcSin(name="arcsin")
arccos = ArcCos(name="arccos")
arctan = ArcTan(name="arctan")
arctan2 = ArcTan2(name="arctan2")
deg2rad = Deg2Rad(name="deg2rad")
"""Degrees to radians, ``x * pi / 180`` (NumPy's ``deg2rad``)."""
rad2deg = Rad2Deg(name="rad2deg")
"""Radians to degrees, ``x * 180 / pi`` (NumPy's ``rad2deg``)."""
sinh = Sinh(name="sinh")
cosh = Cosh(name="cosh")
tanh = Tanh(name="tanh")
arcsinh = ArcSinh(name="arcsinh")
arccosh = ArcCosh(name="arccosh")
arctanh = ArcTanh(name="arctanh")
sigmoid = Sigmoid(name="sigmoid")
softplus = Softplus(name="softplus")
log1mexp = Log1mexp(name="log1mexp")
floor = Floor(name="floor")
ceil = Ceil(name="ceil")
trunc = Trunc(name="trunc")
round_half_to_even = RoundHalfToEven(name="round_half_to_even")
round_half_away_from_zero = RoundHalfAwayFromZero(name="round_half_away_from_zero")
_attach_docs(globals())

#: The NumPy function behind ``round_half_away_from_zero`` (PyTensor's reference for it).
round_half_away_from_zero_vec = round_half_away_from_zero.numpy_fn

#: ``scipy.special``, loaded on first use (PyTensor's ``scalar.math.special``)
special = lazy_scipy_module("special")

# Lower scalar modules (type, gradhelpers) call these ops by name.
SCALAR_FUNCTIONS.register(_sys.modules[__name__])


def __getattr__(name: str) -> Any:
    """Special-function ops a plugin provides under PyTensor's names (``Erf``, ``gammaln``
    from opgraph-special), as ``pytensor.scalar.math`` has them."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = _faces.provided_name(__name__, name)
    if not isinstance(value, _faces.MissingPluginName):
        globals()[name] = value
    return value
