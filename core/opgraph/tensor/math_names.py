"""PyTensor's other names in ``tensor.math``: NumPy spellings and compositions.

``greater``/``less``/... are NumPy's names for the comparison ops;
``isfinite``, ``deg2rad``, ``logaddexp``, ``vecdot``, ``cov``... are short
compositions of existing elementwise ops and reductions, written so that
their values and gradients stay finite where the mathematical ones are.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Variable
from opgraph.tensor import ufuncs as ptm
from opgraph.tensor.join import concatenate
from opgraph.tensor.products import dot, matmul
from opgraph.tensor.reduction import mean
from opgraph.tensor.reduction import sum as pt_sum
from opgraph.tensor.shape import shape_i
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = [
    "ceil_intdiv",
    "conjugate",
    "cov",
    "deg2rad",
    "dense_dot",
    "divmod",
    "equal",
    "expit",
    "greater",
    "greater_equal",
    "iround",
    "isfinite",
    "isneginf",
    "isposinf",
    "largest",
    "less",
    "less_equal",
    "log1pexp",
    "logaddexp",
    "matvec",
    "not_equal",
    "rad2deg",
    "sgn",
    "smallest",
    "variadic_add",
    "variadic_mul",
    "vecdot",
    "vecmat",
]

conjugate = ptm.conj
equal = ptm.eq
not_equal = ptm.neq
greater = ptm.gt
greater_equal = ptm.ge
less = ptm.lt
less_equal = ptm.le
sgn = ptm.sign
expit = ptm.sigmoid
log1pexp = ptm.softplus
dense_dot = dot


def isfinite(x: Any) -> Variable:
    """True where ``x`` is neither infinite nor nan, as ``np.isfinite``."""
    x = as_tensor_variable(x)
    return ptm.invert(ptm.or_(ptm.isinf(x), ptm.isnan(x)))


def isposinf(x: Any) -> Variable:
    """True where ``x`` is +inf, as ``np.isposinf``."""
    return ptm.eq(as_tensor_variable(x), np.inf)


def isneginf(x: Any) -> Variable:
    """True where ``x`` is -inf, as ``np.isneginf``."""
    return ptm.eq(as_tensor_variable(x), -np.inf)


def deg2rad(x: Any) -> Variable:
    """Degrees to radians, as ``np.deg2rad``."""
    return as_tensor_variable(x) * (np.pi / 180.0)


def rad2deg(x: Any) -> Variable:
    """Radians to degrees, as ``np.rad2deg``."""
    return as_tensor_variable(x) * (180.0 / np.pi)


def iround(x: Any, mode: str = "half_away_from_zero") -> Variable:
    """Rounded to the nearest integer, as int64."""
    return ptm.cast(ptm.round(x, mode), "int64")


def ceil_intdiv(a: Any, b: Any) -> Variable:
    """``ceil(a / b)`` for integers, without going through floats."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    return ptm.int_div(a, b) + ptm.cast(ptm.neq(ptm.mod(a, b), 0), ptm.int_div(a, b).type.dtype)


def divmod(x: Any, y: Any) -> tuple[Variable, Variable]:
    """``(x // y, x % y)``, as Python's and NumPy's ``divmod``."""
    return ptm.floor_div(x, y), ptm.mod(x, y)


def largest(*args: Any) -> Variable:
    """The elementwise maximum of all the arguments."""
    if not args:
        raise ValueError("largest: needs at least one argument")
    out = as_tensor_variable(args[0])
    for a in args[1:]:
        out = ptm.maximum(out, a)
    return out


def smallest(*args: Any) -> Variable:
    """The elementwise minimum of all the arguments."""
    if not args:
        raise ValueError("smallest: needs at least one argument")
    out = as_tensor_variable(args[0])
    for a in args[1:]:
        out = ptm.minimum(out, a)
    return out


def logaddexp(*xs: Any) -> Variable:
    """``log(exp(x1) + exp(x2) + ...)`` computed without overflow, as ``np.logaddexp``."""
    if len(xs) < 2:
        raise ValueError("logaddexp: needs at least two arguments")
    out = as_tensor_variable(xs[0])
    for x in xs[1:]:
        out = _logaddexp2(out, as_tensor_variable(x))
    return out


def _logaddexp2(a: Variable, b: Variable) -> Variable:
    # a + softplus(b - a) is exact, stable, and its gradient (sigmoid(a - b), sigmoid(b - a))
    # is symmetric at ties; infinities take max(a, b) on inputs kept finite elsewhere.
    infinite = ptm.or_(ptm.isinf(a), ptm.isinf(b))
    a0, b0 = ptm.switch(infinite, 0.0, a), ptm.switch(infinite, 0.0, b)
    return ptm.switch(infinite, ptm.maximum(a, b), a0 + ptm.softplus(b0 - a0))


def vecdot(x1: Any, x2: Any, dtype: Any = None) -> Variable:
    """Dot products of vectors along the last axis, broadcasting the rest (``np.vecdot``)."""
    out = pt_sum(as_tensor_variable(x1) * as_tensor_variable(x2), axis=-1)
    return ptm.cast(out, dtype) if dtype is not None else out


def matvec(x1: Any, x2: Any, dtype: Any = None) -> Variable:
    """Matrix-vector products over broadcast batch axes (``np.matvec``)."""
    x1, x2 = as_tensor_variable(x1), as_tensor_variable(x2)
    out = matmul(x1, x2.dimshuffle(*range(x2.type.ndim), "x"))
    out = out.dimshuffle(*range(out.type.ndim - 1))
    return ptm.cast(out, dtype) if dtype is not None else out


def vecmat(x1: Any, x2: Any, dtype: Any = None) -> Variable:
    """Vector-matrix products over broadcast batch axes (``np.vecmat``)."""
    x1, x2 = as_tensor_variable(x1), as_tensor_variable(x2)
    nd = x1.type.ndim
    out = matmul(x1.dimshuffle(*range(nd - 1), "x", nd - 1), x2)
    out = out.dimshuffle(*range(out.type.ndim - 2), out.type.ndim - 1)
    return ptm.cast(out, dtype) if dtype is not None else out


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False,
        ddof: int | None = None, fweights: Any = None, aweights: Any = None) -> Variable:
    """The covariance matrix of the variables in ``m`` (and ``y``), as ``np.cov``.

    Frequency and analytic weights are not supported.
    """
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov: fweights and aweights are not supported")
    m = as_tensor_variable(m)
    if m.type.ndim == 1:
        m = m.dimshuffle("x", 0)
    if not rowvar:
        m = m.T
    if y is not None:
        y = as_tensor_variable(y)
        y = y.dimshuffle("x", 0) if y.type.ndim == 1 else y
        m = concatenate([m, y if rowvar else y.T], axis=0)
    n = shape_i(m, 1)
    if ddof is None:
        ddof = 0 if bias else 1
    centered = m - mean(m, axis=1, keepdims=True)
    dtype = m.type.dtype if m.type.dtype.startswith("float") else "float64"
    return dot(centered, centered.T) / ptm.cast(n - ddof, dtype)



def variadic_add(*args: Any) -> Any:
    """The sum of any number of terms: none is the constant 0, one is that term unchanged.

    ``pt.add`` builds an Elemwise node, which needs inputs; model code summing
    a list that may be empty or hold one term (PyMC's joint logp) uses this.
    """
    if not args:
        return constant(0)
    return args[0] if len(args) == 1 else ptm.add(*args)


def variadic_mul(*args: Any) -> Any:
    """The product of any number of factors: none is the constant 1, one is that factor."""
    if not args:
        return constant(1)
    return args[0] if len(args) == 1 else ptm.mul(*args)
