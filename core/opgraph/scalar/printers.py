"""How scalar ops read in ``pprint``: infix operators with Python's precedence, else ``f(x)``.

Registered in the graph layer's pprint table (graph/printer.py) when the
scalar library is imported; the tensor library adds its own on top
(tensor/printers.py).
"""

from __future__ import annotations

from opgraph.graph.basic import Variable
from opgraph.graph.printer import (
    FunctionPrinter,
    IgnorePrinter,
    OperatorPrinter,
    PPrinter,
    PrinterState,
    register_pprint_extension,
)
from opgraph.scalar.arith import Add, IntDiv, Mod, Mul, Neg, Pow, Sub, TrueDiv
from opgraph.scalar.basic import ScalarOp
from opgraph.scalar.logic import AND, EQ, GE, GT, LE, LT, NEQ, OR, XOR, Invert
from opgraph.scalar.structural import Identity

__all__ = ["register_scalar_printers"]

# Precedence and associativity of the infix ops; the symbol is the op class's own
# ``symbol`` (arith.py, logic.py), the one place it is written (Composite names use it too).
_OPERATORS = [
    (OR, -10, "either"), (XOR, -9, "either"), (AND, -8, "either"),
    (EQ, -5, "left"), (NEQ, -5, "left"), (LT, -5, "left"),
    (LE, -5, "left"), (GT, -5, "left"), (GE, -5, "left"),
    (Add, -2, "either"), (Sub, -2, "left"),
    (Mul, -1, "either"), (TrueDiv, -1, "left"),
    (IntDiv, -1, "left"), (Mod, -1, "left"),
    (Neg, 0, "either"), (Invert, 0, "either"),
    (Pow, 1, "right"),
]


class _ScalarFunctionPrinter:
    """Scalar functions print by their public name: ``exp(x)``, ``convert_to_int8(x)``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        op = output.owner.op
        name = str(getattr(op, "scalar_op", None) or op)
        return FunctionPrinter(name).process(output, pstate)


def register_scalar_printers(pprinter: PPrinter) -> None:
    """Add the scalar ops' printers to ``pprinter``."""
    for klass, precedence, assoc in _OPERATORS:
        pprinter.assign(klass, OperatorPrinter(klass.symbol, precedence, assoc))
    pprinter.assign(Identity, IgnorePrinter())
    pprinter.assign(ScalarOp, _ScalarFunctionPrinter())


register_pprint_extension(register_scalar_printers)
