"""Comparisons, bitwise/logical ops and NaN/Inf tests: gradients are zero.

Output dtypes come from NumPy (comparisons give bool; and_/or_/xor/invert are
``np.bitwise_*`` / ``np.invert``: logical on bool, bitwise on integers).
"""

from __future__ import annotations

import sys as _sys

from opgraph.scalar.basic import BinaryScalarOp, UnaryScalarOp
from opgraph.scalar.docs import attach_docs as _attach_docs
from opgraph.scalar.function_table import SCALAR_FUNCTIONS
from opgraph.scalar.gradhelpers import grad_zeros

__all__ = [
    "AND",
    "EQ",
    "GE",
    "GT",
    "LE",
    "LT",
    "NEQ",
    "OR",
    "XOR",
    "BinaryBitOp",
    "FixedLogicalComparison",
    "Invert",
    "IsInf",
    "IsNan",
    "LogicalComparison",
    "UnaryBitOp",
    "and_",
    "eq",
    "ge",
    "gt",
    "invert",
    "isinf",
    "isnan",
    "le",
    "lt",
    "neq",
    "or_",
    "xor",
]


class _ZeroGrad:
    """Mixin: the output is piecewise constant in every input."""

    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        return [grad_zeros(x) for x in inputs]


class LogicalComparison(_ZeroGrad, BinaryScalarOp):
    """Base of the comparisons (bool output)."""


class EQ(LogicalComparison):
    nfunc_spec = ("equal", 2, 1)
    commutative = True
    symbol = "=="


class NEQ(LogicalComparison):
    nfunc_spec = ("not_equal", 2, 1)
    commutative = True
    symbol = "!="


class LT(LogicalComparison):
    nfunc_spec = ("less", 2, 1)
    symbol = "<"


class LE(LogicalComparison):
    nfunc_spec = ("less_equal", 2, 1)
    symbol = "<="


class GT(LogicalComparison):
    nfunc_spec = ("greater", 2, 1)
    symbol = ">"


class GE(LogicalComparison):
    nfunc_spec = ("greater_equal", 2, 1)
    symbol = ">="


class FixedLogicalComparison(_ZeroGrad, UnaryScalarOp):
    """Base of the one-input tests with a bool result (``isnan``, ``isinf``)."""


class BinaryBitOp(_ZeroGrad, BinaryScalarOp):
    """Base of the bitwise ops of two integers or bools (``and_``, ``or_``, ``xor``)."""


class UnaryBitOp(_ZeroGrad, UnaryScalarOp):
    """Base of the bitwise ops of one integer or bool (``invert``)."""


class AND(BinaryBitOp):
    nfunc_spec = ("bitwise_and", 2, 1)
    commutative = True
    associative = True
    identity = True
    symbol = "&"


class OR(BinaryBitOp):
    nfunc_spec = ("bitwise_or", 2, 1)
    commutative = True
    associative = True
    identity = False
    symbol = "|"


class XOR(BinaryBitOp):
    nfunc_spec = ("bitwise_xor", 2, 1)
    commutative = True
    associative = True
    identity = False
    symbol = "^"


class Invert(UnaryBitOp):
    nfunc_spec = ("invert", 1, 1)
    symbol = "~"


class IsNan(FixedLogicalComparison):
    nfunc_spec = ("isnan", 1, 1)


class IsInf(FixedLogicalComparison):
    nfunc_spec = ("isinf", 1, 1)


eq = EQ(name="eq")
neq = NEQ(name="neq")
lt = LT(name="lt")
le = LE(name="le")
gt = GT(name="gt")
ge = GE(name="ge")
and_ = AND(name="and_")
or_ = OR(name="or_")
xor = XOR(name="xor")
invert = Invert(name="invert")
isnan = IsNan(name="isnan")
isinf = IsInf(name="isinf")

_attach_docs(globals())
# Lower scalar modules (type, gradhelpers) call these ops by name.
SCALAR_FUNCTIONS.register(_sys.modules[__name__])
