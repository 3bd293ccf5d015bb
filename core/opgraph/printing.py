"""Looking at graphs: ``debugprint``/``dprint`` (tree text), ``pprint`` (math), ``pydotprint``.

``pydotprint`` (printing_dot.py) and the ``Print`` op (printing_op.py) live in
their own modules and are re-exported here.

``dprint`` walks with an explicit stack, so a 100k-node chain prints without
touching the recursion limit.  ``pprint`` looks printers up in a table keyed
by op class (or predicate); the tensor library adds its entries through
``register_pprint_extension`` (opgraph/tensor/printers.py) without this module
importing it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

import attrs

from opgraph.graph.basic import DEBUGPRINT, Apply, Constant, NominalVariable, Variable
from opgraph.graph.op import Op
from opgraph.graph.utils import type_name
from opgraph.printing_dot import _require_pydot, pydotprint
from opgraph.printing_op import Print
from opgraph.printing_rich import build_rich_tree
from opgraph.printing_util import PatternPrinter, min_informative_str

__all__ = [
    "DefaultPrinter",
    "FunctionPrinter",
    "IgnorePrinter",
    "OperatorPrinter",
    "PPrinter",
    "PatternPrinter",
    "Print",
    "PrinterState",
    "char_from_number",
    "debugprint",
    "default_printer",
    "dprint",
    "get_node_by_id",
    "min_informative_str",
    "pp",
    "pprint",
    "pydotprint",
    "register_pprint_extension",
]

_MID, _LAST, _PIPE, _SPACE = " ├─ ", " └─ ", " │ ", "   "
_SEEN_MARK = " ···"
_MAX_INDENT = 3 * 64


def char_from_number(number: int) -> str:
    """0 -> 'A', 25 -> 'Z', 26 -> 'BA' (base 26 with letters as digits, like PyTensor)."""
    base = 26
    digits = []
    while True:
        number, rem = divmod(number, base)
        digits.append(chr(ord("A") + rem))
        if number == 0:
            break
    return "".join(reversed(digits))


# ------------------------------------------------------------------------------ debugprint


def _fgraph_of(obj: Any) -> Any:
    """The FunctionGraph of a FunctionGraph or a compiled function, else None."""
    maker = getattr(obj, "maker", None)
    if maker is not None and hasattr(maker, "fgraph"):
        return maker.fgraph
    if hasattr(obj, "apply_nodes") and hasattr(obj, "outputs") and hasattr(obj, "toposort"):
        return obj
    return None


def _inner_graph_op(op: Any) -> Any:
    """The op holding an inner graph (the op itself or an Elemwise's scalar_op), or None."""
    for candidate in (op, getattr(op, "scalar_op", None)):
        if candidate is not None and hasattr(candidate, "inner_outputs"):
            try:
                candidate.inner_outputs  # noqa: B018 - property may raise when absent
            except (NotImplementedError, AttributeError):
                continue
            return candidate
    return None


@attrs.define
class _DebugPrinter:
    """State of one debugprint call: ids given out, nodes already expanded, output lines."""

    ids: str
    depth: int
    print_type: bool
    stop_on_name: bool
    print_op_info: bool
    print_destroy_map: bool
    print_view_map: bool
    done: dict
    used_ids: dict
    topo_index: dict = attrs.Factory(dict)
    storage: dict | None = None
    lines: list = attrs.Factory(list)
    annotate: Callable[[Variable], str] | None = None
    inner_ops: list = attrs.Factory(list)
    _inner_seen: set = attrs.Factory(set)

    def id_of(self, key: Any) -> str:
        if self.ids == "":
            return ""
        found = self.used_ids.get(key)
        if found is None:
            if self.ids == "CHAR":
                found = char_from_number(len(self.used_ids))
            elif self.ids == "int":
                found = str(len(self.used_ids))
            elif self.ids == "id":
                found = hex(id(key))
            elif self.ids == "auto":  # the variable's auto_name (a node: its first output's)
                found = (key if isinstance(key, Variable) else key.outputs[0]).auto_name
            else:
                raise ValueError(
                    f"debugprint: ids must be 'CHAR', 'int', 'id', 'auto' or '', got {self.ids!r}"
                )
            self.used_ids[key] = found
        return f" [id {found}]"

    def label(self, var: Variable) -> str:
        node = var.owner
        extra = ""
        if self.print_type:
            extra += f" <{var.type}>"
        if node is None:
            shown = f"i{var.id}" if isinstance(var, NominalVariable) and var.name is None else var
            text = f"{shown}{self.id_of(var)}{extra}"
            return text + self._annotation(var) + self._storage_of(var)
        op = node.op
        head = str(op)
        if len(node.outputs) > 1:
            head += f".{var.index}"
        text = f"{head}{self.id_of(node)}"
        if var.name is not None:
            text += f" '{var.name}'"
        text += extra
        if self.print_destroy_map and getattr(op, "destroy_map", None):
            text += f" d={dict(op.destroy_map)}"
        if self.print_view_map and getattr(op, "view_map", None):
            text += f" v={dict(op.view_map)}"
        if self.print_op_info:
            info = _op_info(op, node)
            if info:
                text += f" ({info})"
        if node in self.topo_index:
            text += f" {self.topo_index[node]}"
        return text + self._annotation(var) + self._storage_of(var)

    def _annotation(self, var: Variable) -> str:
        if self.annotate is None:
            return ""
        note = self.annotate(var)
        return f" {note}" if note else ""

    def _storage_of(self, var: Variable) -> str:
        if self.storage is None or var not in self.storage:
            return ""
        cell = self.storage[var]
        value = cell[0] if isinstance(cell, list) else cell
        return f" [{value!r}]"  # PyTensor's form: the storage cell, e.g. "[None]"

    def tree(self, root: Variable, first_prefix: str = "", child_prefix: str = "") -> None:
        """Print ``root`` and everything above it, depth first, with an explicit stack."""
        stack: list[tuple[Variable, str, str, int]] = [(root, first_prefix, child_prefix, 0)]
        while stack:
            var, prefix, cont, level = stack.pop()
            node = var.owner
            line = prefix + self.label(var)
            if node is None:
                self.lines.append(line)
                continue
            # By identity: Ops with equal parameters may hold different inner graphs.
            if self._inner_op_of(node) is not None and id(node.op) not in self._inner_seen:
                self._inner_seen.add(id(node.op))
                self.inner_ops.append(node)
            if node in self.done:
                self.lines.append(line + _SEEN_MARK)
                continue
            self.done[node] = self.used_ids.get(node, "")
            self.lines.append(line)
            if 0 <= self.depth <= level + 1:
                continue
            if self.stop_on_name and var.name is not None and level > 0:
                if node.inputs:  # inputs hidden behind the name
                    self.lines.append(cont + _LAST + _SEEN_MARK.strip())
                continue
            inputs = node.inputs
            if len(cont) > _MAX_INDENT:  # very deep graphs: fold the indentation, keep memory flat
                cont = " ⋯" + cont[-(_MAX_INDENT // 2) :]
            for i in range(len(inputs) - 1, -1, -1):
                last = i == len(inputs) - 1
                stack.append(
                    (inputs[i], cont + (_LAST if last else _MID),
                     cont + (_SPACE if last else _PIPE), level + 1)
                )

    @staticmethod
    def _inner_op_of(node: Apply) -> Any:
        return _inner_graph_op(node.op)

    def inner_graphs(self) -> None:
        """Append the "Inner graphs:" section; inner graphs found on the way are added too."""
        if not self.inner_ops:
            return
        self.lines.extend(["", "Inner graphs:"])
        k = 0
        while k < len(self.inner_ops):
            node = self.inner_ops[k]
            k += 1
            inner = _inner_graph_op(node.op)
            self.lines.append("")
            self.lines.append(f"{node.op}{self.id_of(node)}")
            for out in inner.inner_outputs:
                self.tree(out, " ← ", "   ")


def _op_info(op: Any, node: Apply) -> str:
    parts = []
    if getattr(op, "destroy_map", None):
        parts.append(f"destroy_map={dict(op.destroy_map)}")
    if getattr(op, "view_map", None):
        parts.append(f"view_map={dict(op.view_map)}")
    if hasattr(op, "inner_outputs"):
        parts.append("inner graph")
    return ", ".join(parts)


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


def _storage_map_of(obj: Any) -> dict | None:
    for holder in (obj, getattr(obj, "vm", None), getattr(obj, "fn", None)):
        sm = getattr(holder, "storage_map", None)
        if isinstance(sm, dict):
            return sm
    return None


def debugprint(
    obj: Any,
    depth: int = -1,
    print_type: bool = False,
    file: TextIO | str | None = None,
    ids: str = "CHAR",
    stop_on_name: bool = False,
    id_type: str | None = None,
    done: dict | None = None,
    print_storage: bool = False,
    used_ids: dict | None = None,
    print_op_info: bool = False,
    print_destroy_map: bool = False,
    print_view_map: bool = False,
    print_fgraph_inputs: bool = False,
    print_assumptions: bool = False,
) -> Any:
    """Print a graph as an indented tree; ``file="str"`` returns the text instead.

    ``file="rich"`` returns the tree as a ``rich.tree.Tree`` (needs ``rich``).

    Each line shows an op (or input) with an id like ``[id A]`` and the
    variable's name in quotes; a node printed before shows ``···`` instead of
    its inputs again.  Inner graphs (Composite, OpFromGraph...) follow under
    "Inner graphs:".  For a FunctionGraph or compiled function, each node
    line ends with its position in the topological order.
    ``print_assumptions=True`` ends each line with the facts known about the
    variable (``a={diag, !sym}``, see ``opgraph.assumptions``).
    """
    if not isinstance(depth, int) or isinstance(depth, bool):
        raise TypeError(f"debugprint: depth must be an int (-1: no limit), got {depth!r}")
    roots, fgraph = _roots(obj)
    printer = _DebugPrinter(
        ids=ids if id_type is None else id_type,  # id_type: PyTensor 3's name for ids
        depth=depth,
        print_type=print_type,
        stop_on_name=stop_on_name,
        print_op_info=print_op_info,
        print_destroy_map=print_destroy_map,
        print_view_map=print_view_map,
        done={} if done is None else done,
        used_ids={} if used_ids is None else used_ids,
    )
    if print_assumptions:
        factory = DEBUGPRINT_ANNOTATIONS.get("assumptions")
        # Without opgraph.assumptions loaded no graph can hold a fact: nothing to show.
        if factory is not None:
            printer.annotate = factory(roots, fgraph)
    if fgraph is not None:
        printer.topo_index = {n: i for i, n in enumerate(fgraph.toposort())}
        if print_storage:
            printer.storage = _storage_map_of(obj)
        if print_fgraph_inputs:
            for inp in fgraph.inputs:
                printer.lines.append(" → " + printer.label(inp))
    if file == "rich":
        return build_rich_tree(printer, roots, _inner_graph_op)
    for root in roots:
        printer.tree(root)
    printer.inner_graphs()
    text = "\n".join(printer.lines) + "\n"
    if file == "str":  # exactly what a file would receive
        return text
    stream = sys.stdout if file is None else file
    stream.write(text)
    return obj


#: ``{flag name: factory}``: debugprint's ``print_<flag>=True`` calls
#: ``factory(roots, fgraph)`` for a ``var -> text`` function whose text ends each line.
#: Subsystems above this module fill it (opgraph.assumptions: ``print_assumptions``).
DEBUGPRINT_ANNOTATIONS: dict[str, Callable[[list[Variable], Any], Callable[[Variable], str]]] = {}


dprint = debugprint
DEBUGPRINT[:] = [debugprint]  # what Variable.dprint / FunctionGraph.dprint call


# ------------------------------------------------------------------------------ pprint


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


def _elemwise_scalar_op(op: Any) -> Any:
    """The scalar op of an Elemwise (printed like the scalar op), else None.

    Reductions also carry a ``scalar_op`` but must not print as ``x + y``, so
    only Elemwise qualifies; it is looked up without importing the tensor library.
    """
    scalar_op = getattr(op, "scalar_op", None)
    if scalar_op is None:
        return None
    elemwise_mod = sys.modules.get("opgraph.tensor.elemwise")
    elemwise_cls = getattr(elemwise_mod, "Elemwise", None)
    if elemwise_cls is not None and isinstance(op, elemwise_cls):
        return scalar_op
    return scalar_op if getattr(op, "prints_as_scalar_op", False) else None


_EDGE_ITEMS = {1: 3}  # per-axis items kept at each end of a long axis (2 when ndim > 1)


def _value_text(value: Any) -> str:
    """A constant's value: ``2.0``, ``[1.0, 2.0]``, long axes shortened to ``[0, 1, 2, ..., 9]``."""
    import numpy as np

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


class PPrinter:
    """Readable math from a graph, via printers looked up by op class or predicate."""

    def __init__(self) -> None:
        self.printers: list[tuple[Condition, Any]] = []
        self._by_class: dict[type, Any] = {}

    def assign(self, condition: Condition, printer: Any) -> None:
        """Use ``printer`` for ops matching ``condition`` (a class, an op, or f(pstate, var))."""
        if not hasattr(printer, "process"):
            raise TypeError(f"pprint.assign: printer needs a process() method, got {printer!r}")
        if isinstance(condition, type):
            self._by_class[condition] = printer
        else:
            self.printers.insert(0, (condition, printer))

    def _find(self, op: Any, var: Variable, pstate: PrinterState) -> Any:
        # As in PyTensor, a printer assigned to this very op wins over predicates.
        for cond, printer in self.printers:
            if (isinstance(cond, Op) or not callable(cond)) and cond == op:
                return printer
        for cond, printer in self.printers:
            if callable(cond) and not isinstance(cond, Op) and cond(pstate, var):
                return printer
        for klass in type(op).__mro__:
            if klass in self._by_class:
                return self._by_class[klass]
        return None

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
        new.printers = list(self.printers)
        new._by_class = dict(self._by_class)
        return new


def _default_pprinter() -> PPrinter:
    """The scalar ops' printers (the tensor library adds its own with ``pprint.assign``)."""
    import opgraph.scalar as ps

    pp_ = PPrinter()
    table = [
        (ps.OR, "|", -10, "either"), (ps.XOR, "^", -9, "either"), (ps.AND, "&", -8, "either"),
        (ps.EQ, "==", -5, "left"), (ps.NEQ, "!=", -5, "left"), (ps.LT, "<", -5, "left"),
        (ps.LE, "<=", -5, "left"), (ps.GT, ">", -5, "left"), (ps.GE, ">=", -5, "left"),
        (ps.Add, "+", -2, "either"), (ps.Sub, "-", -2, "left"),
        (ps.Mul, "*", -1, "either"), (ps.TrueDiv, "/", -1, "left"),
        (ps.IntDiv, "//", -1, "left"), (ps.Mod, "%", -1, "left"),
        (ps.Neg, "-", 0, "either"), (ps.Invert, "~", 0, "either"),
        (ps.Pow, "**", 1, "right"),
    ]
    for klass, symbol, precedence, assoc in table:
        pp_.assign(klass, OperatorPrinter(symbol, precedence, assoc))
    pp_.assign(ps.Identity, IgnorePrinter())
    pp_.assign(ps.ScalarOp, _ScalarFunctionPrinter())
    return pp_


class _ScalarFunctionPrinter:
    """Scalar functions print by their public name: ``exp(x)``, ``convert_to_int8(x)``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        op = output.owner.op
        name = str(getattr(op, "scalar_op", None) or op)
        return FunctionPrinter(name).process(output, pstate)


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
    """The global ``pprint``: builds its table on first use (scalar ops load late)."""

    _instance: PPrinter | None = None

    def _get(self) -> PPrinter:
        if self._instance is None:
            table = _default_pprinter()
            for extend in _PPRINT_EXTENSIONS:
                extend(table)
            type(self)._instance = table
        return self._instance  # type: ignore[return-value]

    def __call__(self, *args: Any) -> str:
        return self._get()(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)


pprint: PPrinter = _LazyPPrinter()  # type: ignore[assignment]
pp = pprint

default_printer = DefaultPrinter()
"""PyTensor's name for the printer that writes ``op(args)``."""

_try_pydot_import = _require_pydot
"""PyTensor's name: import pydot (and check Graphviz), or raise ImportError naming what lacks."""


def get_node_by_id(graphs: Any, target_var_id: str, id_types: str = "CHAR") -> Any:
    """The Apply node or input variable that debugprint labels ``[id target_var_id]``.

    Searches the graphs and their inner graphs; None when no object has that id.
    """
    used: dict = {}
    debugprint(graphs, file="str", ids=id_types, used_ids=used)
    for obj, found in used.items():
        if found == target_var_id:
            return obj
    return None
