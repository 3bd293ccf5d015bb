"""The pprint table: printers looked up by op class or predicate, filled by the op libraries.

``pprint`` turns a graph into readable math.  What each op looks like is a
printer in the table; the module that defines the op registers it with
:func:`register_pprint_extension` (scalar/printers.py for the scalar ops,
tensor/printers.py for the tensor ops), so this graph-layer module imports
none of them.  :mod:`opgraph.printing` re-exports every public name here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.op import Op
from opgraph.graph.table import TABLES, NameTable, TypeTable
from opgraph.graph.utils import type_name

__all__ = [
    "SCALAR_OP_WRAPPERS",
    "DefaultPrinter",
    "FunctionPrinter",
    "IgnorePrinter",
    "OperatorPrinter",
    "PPrinter",
    "PrinterState",
    "default_printer",
    "pp",
    "pprint",
    "register_pprint_extension",
]


def _fgraph_of(obj: Any) -> Any:
    """The FunctionGraph of a FunctionGraph or a compiled function, else None."""
    maker = getattr(obj, "maker", None)
    if maker is not None and hasattr(maker, "fgraph"):
        return maker.fgraph
    if hasattr(obj, "apply_nodes") and hasattr(obj, "outputs") and hasattr(obj, "toposort"):
        return obj
    return None


def _roots(obj: Any) -> tuple[list[Variable], Any]:
    """The variables to print for ``obj`` and its FunctionGraph (or None)."""
    if isinstance(obj, Variable):
        return [obj], None
    if isinstance(obj, Apply):
        return list(obj.outputs), None
    fgraph = _fgraph_of(obj)
    if fgraph is not None:
        return list(fgraph.outputs), fgraph
    if isinstance(obj, list | tuple):
        roots: list[Variable] = []
        for i, item in enumerate(obj):
            try:
                sub, _ = _roots(item)
            except TypeError:
                raise TypeError(
                    f"debugprint: item {i} of the list must be a Variable, Apply, FunctionGraph "
                    f"or compiled function, got {type_name(item)}"
                ) from None
            roots.extend(sub)
        return roots, None
    raise TypeError(
        "debugprint: expected a Variable, an Apply, a FunctionGraph, a compiled function or a "
        f"list of those, got {type_name(obj)} {obj!r:.60}"
    )


@attrs.define
class PrinterState:
    """What a printer needs from its context: the printer table and the outer precedence."""

    pprinter: PPrinter
    precedence: float = -1000.0
    memo: dict = attrs.Factory(dict)
    #: The nodes being printed, outermost first (shared by clones, kept by ``process``).
    path: list = attrs.Factory(list)

    def clone(self, **changes: Any) -> PrinterState:
        return attrs.evolve(self, **changes)

    def consumer(self) -> Apply | None:
        """The node whose printer asked for the node now printed (None at the top).

        Lets a printer depend on its context: the tensor library hides a
        broadcasting DimShuffle only when an Elemwise consumes it.
        """
        return self.path[-2] if len(self.path) >= 2 else None


class OperatorPrinter:
    """Infix (``x + y``) or prefix (``-x``) operator with a precedence and associativity."""

    def __init__(self, operator: str, precedence: float, assoc: str = "left"):
        if assoc not in ("left", "right", "either"):
            raise ValueError(f"OperatorPrinter: assoc must be left, right or either, got {assoc!r}")
        self.operator = operator
        self.precedence = precedence
        self.assoc = assoc

    def process(self, output: Variable, pstate: PrinterState) -> str:
        node = output.owner
        outer = pstate.precedence
        n = len(node.inputs)
        parts = []
        for i, x in enumerate(node.inputs):
            p = self.precedence
            if n > 1 and not (
                self.assoc == "either"
                or (self.assoc == "left" and i == 0)
                or (self.assoc == "right" and i == n - 1)
            ):
                p += 1e-6  # the non-associative side needs parentheses at equal precedence
            parts.append(pstate.pprinter.process(x, pstate.clone(precedence=p)))
        if n == 1:
            text = f"{self.operator}{parts[0]}"
        else:
            text = f" {self.operator} ".join(parts)
        return f"({text})" if outer > self.precedence else text


class FunctionPrinter:
    """``name(arg, ...)``; ``names`` may give one name per output."""

    def __init__(self, *names: str):
        self.names = names

    def process(self, output: Variable, pstate: PrinterState) -> str:
        node = output.owner
        name = self.names[output.index] if self.names else str(node.op)
        inner = pstate.clone(precedence=-1000.0)
        args = ", ".join(pstate.pprinter.process(x, inner) for x in node.inputs)
        return f"{name}({args})"


class IgnorePrinter:
    """Print the (first) input as if the op were not there (shape-only ops, casts)."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        return pstate.pprinter.process(output.owner.inputs[0], pstate)


class DefaultPrinter:
    """``op(args)`` with the op's own string; ``.i`` for one output of several."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        node = output.owner
        inner = pstate.clone(precedence=-1000.0)
        args = ", ".join(pstate.pprinter.process(x, inner) for x in node.inputs)
        text = f"{node.op}({args})"
        return text if len(node.outputs) == 1 else f"{text}.{output.index}"


SCALAR_OP_WRAPPERS: set[type] = set()
"""Op classes that print like their ``scalar_op`` (the tensor library adds Elemwise).

Reductions also carry a ``scalar_op`` but must not print as ``x + y``, so only
the classes named here (or ops with ``prints_as_scalar_op``) qualify.
"""


def _elemwise_scalar_op(op: Any) -> Any:
    """The scalar op of an op that prints like it (an Elemwise), else None."""
    scalar_op = getattr(op, "scalar_op", None)
    if scalar_op is None:
        return None
    if isinstance(op, tuple(SCALAR_OP_WRAPPERS)):
        return scalar_op
    return scalar_op if getattr(op, "prints_as_scalar_op", False) else None


_EDGE_ITEMS = {1: 3}  # per-axis items kept at each end of a long axis (2 when ndim > 1)


def _value_text(value: Any) -> str:
    """A constant's value: ``2.0``, ``[1.0, 2.0]``, long axes shortened to ``[0, 1, 2, ..., 9]``."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        return str(arr[()])
    edge = _EDGE_ITEMS.get(arr.ndim, 2)

    def nested(a: Any) -> str:
        if a.ndim == 0:
            return str(a[()])
        n = a.shape[0]
        if n > 2 * edge + 1:
            items = [nested(a[i]) for i in range(edge)] + ["..."]
            items += [nested(a[i]) for i in range(n - edge, n)]
        else:
            items = [nested(a[i]) for i in range(n)]
        return "[" + ", ".join(items) + "]"

    return nested(arr)


def _leaf_text(var: Variable) -> str:
    if isinstance(var, Constant):
        data = var.data
        if hasattr(data, "ndim") or isinstance(data, int | float | complex | bool):
            return _value_text(data)
        return str(var)
    return var.name if var.name is not None else str(var)


Condition = type | Op | Callable[[Any, Variable], bool]


def _condition_label(condition: Any) -> str:
    """How the conditions table names an op instance or a predicate."""
    if isinstance(condition, Op) or not callable(condition):
        return f"op {condition}"
    module = getattr(condition, "__module__", "?")
    return f"{module}.{getattr(condition, '__qualname__', repr(condition))}"


class PPrinter:
    """Readable math from a graph, via printers looked up by op class or predicate.

    Its printers live in two tables of the table idiom: ``by_class`` (a
    TypeTable: Op class -> printer, found along the op's MRO) and ``conditions``
    (a NameTable of ``(condition, printer)``: an op instance or a predicate
    ``f(pstate, var)``, newest first).  The global :data:`pprint` lists them as
    ``pprint`` and ``pprint_conditions`` in ``opgraph plugins --tables``, each
    entry with the module that assigned it; other printers keep them unlisted.
    """

    def __init__(self, *, listed_as: str | None = None) -> None:
        listed = listed_as is not None
        name = listed_as or "pprint"
        if listed:  # the global printer is being (re)built: it owns these names
            TABLES.pop(name, None)
            TABLES.pop(f"{name}_conditions", None)
        self.by_class: TypeTable[Any] = TypeTable(
            name, "pretty-printer by Op class (pprint)", listed=listed)
        self.conditions: NameTable[tuple[Condition, Any]] = NameTable(
            f"{name}_conditions", "pretty-printer by op instance or predicate, newest "
            "first (pprint)", listed=listed)

    @property
    def printers(self) -> list[tuple[Condition, Any]]:
        """The ``(condition, printer)`` pairs of ops and predicates, newest first."""
        return [self.conditions[k] for k in reversed(list(self.conditions))]

    def assign(self, condition: Condition, printer: Any) -> None:
        """Use ``printer`` for ops matching ``condition`` (a class, an op, or f(pstate, var))."""
        if not hasattr(printer, "process"):
            raise TypeError(f"pprint.assign: printer needs a process() method, got {printer!r}")
        if isinstance(condition, type):
            self.by_class.register(condition, printer, stacklevel=2)
            return
        label = _condition_label(condition)
        taken = self.conditions.lookup(label)
        if taken is not None and taken[0] is not condition and taken[0] != condition:
            label = f"{label} #{len(self.conditions)}"
        self.conditions.register(label, (condition, printer), stacklevel=2)

    def _find(self, op: Any, var: Variable, pstate: PrinterState) -> Any:
        # As in PyTensor, a printer assigned to this very op wins over predicates.
        printers = self.printers
        for cond, printer in printers:
            if (isinstance(cond, Op) or not callable(cond)) and cond == op:
                return printer
        for cond, printer in printers:
            if callable(cond) and not isinstance(cond, Op) and cond(pstate, var):
                return printer
        return self.by_class.lookup(op)

    def process(self, var: Variable, pstate: PrinterState | None = None) -> str:
        if pstate is None:
            pstate = PrinterState(self)
        node = var.owner
        if node is None:
            text = _leaf_text(var)
            # A negative constant under unary minus, ``**`` or a postfix (``.T``, ``[i]``).
            return f"({text})" if text.startswith("-") and pstate.precedence >= 0 else text
        printer = self._find(node.op, var, pstate)
        if printer is None:
            scalar_op = _elemwise_scalar_op(node.op)
            if scalar_op is not None:
                printer = self._find(scalar_op, var, pstate)
        pstate.path.append(node)
        try:
            return (printer or DefaultPrinter()).process(var, pstate)
        finally:
            pstate.path.pop()

    def __call__(self, *args: Any) -> str:
        outs: list[Variable] = []
        for a in args:
            if isinstance(a, Variable):
                outs.append(a)
            elif isinstance(a, Apply):
                outs.extend(a.outputs)
            elif _fgraph_of(a) is not None:
                outs.extend(_fgraph_of(a).outputs)
            elif isinstance(a, list | tuple):
                outs.extend(a)
            else:
                raise TypeError(f"pprint: expected Variables, got {type_name(a)} {a!r:.60}")
        return "\n".join(self.process(o) for o in outs)

    def clone(self) -> PPrinter:
        new = PPrinter()
        new.by_class = self.by_class.copy()  # type: ignore[assignment]
        new.conditions = self.conditions.copy()  # type: ignore[assignment]
        return new


_PPRINT_EXTENSIONS: list[Callable[[PPrinter], None]] = []


def register_pprint_extension(
    extend: Callable[[PPrinter], None],
) -> Callable[[PPrinter], None]:
    """Have ``extend(pprinter)`` add printers to the global ``pprint`` table.

    Libraries (the tensor library's ``printers`` module) call this at import
    time; the table is built on first use, so registering costs nothing and
    this module never imports them.  If the table already exists, ``extend``
    runs on it now.
    """
    if not callable(extend):
        raise TypeError(
            f"register_pprint_extension: expected a function of the PPrinter, got {extend!r}"
        )
    if extend not in _PPRINT_EXTENSIONS:
        _PPRINT_EXTENSIONS.append(extend)
        if _LazyPPrinter._instance is not None:
            extend(_LazyPPrinter._instance)
    return extend


class _LazyPPrinter:
    """The global ``pprint``: builds its table on first use from the registered extensions."""

    _instance: PPrinter | None = None

    def _get(self) -> PPrinter:
        if self._instance is None:
            table = PPrinter(listed_as="pprint")
            for extend in _PPRINT_EXTENSIONS:
                extend(table)
            type(self)._instance = table
        return self._instance  # type: ignore[return-value]

    def __call__(self, *args: Any) -> str:
        return self._get()(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)


pprint: PPrinter = _LazyPPrinter()  # type: ignore[assignment]
"""The default pretty printer: ``pprint(var)`` is the expression computing ``var`` as text."""
pp = pprint
"""Short name of :data:`pprint`."""

default_printer = DefaultPrinter()
"""PyTensor's name for the printer that writes ``op(args)``."""
