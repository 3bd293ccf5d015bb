"""The operations the fuzzer draws from: each name maps to the opgraph builder and
the NumPy function that is its reference.

Only tensor-typed operands are used (no Python scalars), so the NumPy reference
promotes dtypes exactly as NumPy does for arrays, which is what opgraph follows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import opgraph.tensor as pt

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64")
FLOATS = ("float32", "float64")

UNARY: dict[str, tuple[Callable[[Any], Any], Callable[[np.ndarray], Any]]] = {
    "neg": (pt.neg, np.negative),
    "abs": (pt.abs, np.abs),
    "exp": (pt.exp, np.exp),
    "log": (pt.log, np.log),
    "sqrt": (pt.sqrt, np.sqrt),
    "tanh": (pt.tanh, np.tanh),
    "sin": (pt.sin, np.sin),
    "cos": (pt.cos, np.cos),
    "expm1": (pt.expm1, np.expm1),
    "log1p": (pt.log1p, np.log1p),
    "sqr": (pt.sqr, np.square),
    "sign": (pt.sign, np.sign),
    "floor": (pt.floor, np.floor),
    "ceil": (pt.ceil, np.ceil),
    "round": (pt.round, np.round),
    "invert": (pt.invert, np.invert),
    "exp2": (pt.exp2, np.exp2),
    "log2": (pt.log2, np.log2),
    "arctan": (pt.arctan, np.arctan),
    "isnan": (pt.isnan, np.isnan),
}

BINARY: dict[str, tuple[Callable[[Any, Any], Any], Callable[[np.ndarray, np.ndarray], Any]]] = {
    "add": (pt.add, np.add),
    "sub": (pt.sub, np.subtract),
    "mul": (pt.mul, np.multiply),
    "true_div": (pt.true_div, np.true_divide),
    "int_div": (pt.int_div, np.floor_divide),
    "mod": (pt.mod, np.mod),
    "maximum": (pt.maximum, np.maximum),
    "minimum": (pt.minimum, np.minimum),
    "pow": (pt.pow, np.power),
    "eq": (pt.eq, np.equal),
    "neq": (pt.neq, np.not_equal),
    "lt": (pt.lt, np.less),
    "ge": (pt.ge, np.greater_equal),
    "and": (pt.and_, np.bitwise_and),
    "or": (pt.or_, np.bitwise_or),
    "xor": (pt.xor, np.bitwise_xor),
}

REDUCE: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "sum": (pt.sum, np.sum),
    "prod": (pt.prod, np.prod),
    "max": (pt.max, np.max),
    "min": (pt.min, np.min),
    "all": (pt.all, np.all),
    "any": (pt.any, np.any),
    "mean": (pt.mean, np.mean),
}

#: Ops whose gradient is defined and smooth enough for finite differences on [-1, 1]
#: (log/sqrt get a positive argument from the generator).
SMOOTH_UNARY = ("neg", "exp", "tanh", "sin", "cos", "sqr", "arctan", "expm1")
SMOOTH_BINARY = ("add", "sub", "mul")


def result_dtype(fn: Callable[..., Any], *dtypes: str) -> str | None:
    """The dtype NumPy gives ``fn`` on arrays of ``dtypes``, or None when NumPy refuses."""
    try:
        with np.errstate(all="ignore"):
            out = fn(*(np.ones(2, dtype=d) for d in dtypes))
    except (TypeError, ValueError):
        return None
    return str(np.asarray(out).dtype)
