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
from typing import Any, Literal, TextIO

import attrs

from opgraph.graph.basic import DEBUGPRINT, Apply, NominalVariable, Variable
from opgraph.graph.printer import (
    _PPRINT_EXTENSIONS,  # noqa: F401  (re-exported: the extension list tests inspect)
    SCALAR_OP_WRAPPERS,  # noqa: F401
    DefaultPrinter,
    FunctionPrinter,
    IgnorePrinter,
    OperatorPrinter,
    PPrinter,
    PrinterState,
    _leaf_text,  # noqa: F401
    _roots,
    _value_text,  # noqa: F401
    default_printer,
    pp,
    pprint,
    register_pprint_extension,
)
from opgraph.graph.table import NameTable
from opgraph.printing_describe import hex_digest, position_independent_str, var_descriptor
from opgraph.printing_dot import _require_pydot, pydotprint
from opgraph.printing_op import Print
from opgraph.printing_rich import build_rich_tree
from opgraph.printing_util import (
    VALID_ASSOC,
    ConstantPrinter,
    LeafPrinter,
    PatternPrinter,
    Printer,
    char_from_number,
    constant_printer,
    greek,
    leaf_printer,
    min_informative_str,
    set_precedence,
)

__all__ = [
    "VALID_ASSOC",
    "ConstantPrinter",
    "DefaultPrinter",
    "FunctionPrinter",
    "IgnorePrinter",
    "LeafPrinter",
    "OperatorPrinter",
    "PPrinter",
    "PatternPrinter",
    "Print",
    "Printer",
    "PrinterState",
    "char_from_number",
    "constant_printer",
    "debugprint",
    "default_printer",
    "dprint",
    "get_node_by_id",
    "greek",
    "hex_digest",
    "leaf_printer",
    "min_informative_str",
    "position_independent_str",
    "pp",
    "pprint",
    "pydotprint",
    "register_pprint_extension",
    "set_precedence",
    "var_descriptor",
]

_MID, _LAST, _PIPE, _SPACE = " ├─ ", " └─ ", " │ ", "   "
_SEEN_MARK = " ···"
_MAX_INDENT = 3 * 64


# ------------------------------------------------------------------------------ debugprint


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
    print_shape: bool
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
        shape = getattr(var.type, "shape", None)
        if self.print_shape and isinstance(shape, tuple):
            extra += " shape=(" + ", ".join("?" if s is None else str(s) for s in shape)
            extra += ",)" if len(shape) == 1 else ")"
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
    print_shape: bool = False,
) -> Any:
    """Print a graph as an indented tree; ``file="str"`` returns the text instead.

    ``file="rich"`` returns the tree as a ``rich.tree.Tree`` (needs ``rich``).

    Each line shows an op (or input) with an id like ``[id A]`` and the
    variable's name in quotes; a node printed before shows ``···`` instead of
    its inputs again.  Inner graphs (Composite, OpFromGraph...) follow under
    "Inner graphs:".  For a FunctionGraph or compiled function, each node
    line ends with its position in the topological order.
    ``print_assumptions=True`` ends each line with the facts known about the
    variable (``a={diag, !sym}``, see ``opgraph.assumptions``);
    ``print_shape=True`` adds each variable's static shape (``shape=(?, 3)``).
    """
    if not isinstance(depth, int) or isinstance(depth, bool):
        raise TypeError(f"debugprint: depth must be an int (-1: no limit), got {depth!r}")
    roots, fgraph = _roots(obj)
    printer = _DebugPrinter(
        ids=ids if id_type is None else id_type,  # id_type: PyTensor 3's name for ids
        depth=depth,
        print_type=print_type,
        stop_on_name=stop_on_name,
        print_shape=print_shape,
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
DEBUGPRINT_ANNOTATIONS: NameTable[Callable[[list[Variable], Any], Callable[[Variable], str]]] = (
    NameTable("debugprint_annotations", "debugprint's print_<name>=True annotations"))


dprint = debugprint
DEBUGPRINT[:] = [debugprint]  # what Variable.dprint / FunctionGraph.dprint call


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


#: ``debugprint``'s ``id_type`` values
IDTypesType = Literal["id", "int", "CHAR", "auto", ""]
