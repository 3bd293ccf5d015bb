"""Rewrites written as data: an input pattern, an output pattern, optional constraints.

Pattern language (PyTensor's):

- ``(op, p1, p2, ...)``: a node whose Op equals ``op`` (an Op instance) or is an
  instance of ``op`` (an Op class), with inputs matching ``p1, p2, ...``;
- ``"x"``: any variable, bound to the name ``x`` (a name used twice must bind
  the same variable, or equal constants);
- a number or array: a constant with that value;
- ``{"pattern": p, "constraint": fn}``: ``p``, where ``fn(variable)`` is true;
- a Constant: an equal constant;
- ``(OpPattern(cls, param=value, ...), p1, ...)``: an Op of class ``cls`` with
  those parameters; a string parameter value binds the Op's parameter.

An output pattern uses the same forms; names refer to bound values and a
callable computes a replacement directly: ``fn(fgraph, node, bindings)``
(PyTensor's form) or ``fn(bindings)``; returning False/None skips the rewrite.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.op import Op
from opgraph.graph.rewriting.basic import NodeRewriter, is_output_client
from opgraph.graph.rewriting.unify import OpPattern
from opgraph.graph.utils import type_name

if TYPE_CHECKING:
    from opgraph.graph.fg import FunctionGraph

__all__ = [
    "PatternNodeRewriter",
    "RemovalNodeRewriter",
    "SubstitutionNodeRewriter",
    "match_pattern",
]

Bindings = dict[str, Any]


def _default_constant_value(var: Variable) -> Any:
    if isinstance(var, Constant):
        return var.data
    return None


def _values_match(value: Any, pattern: Any) -> bool:
    try:
        arr = np.asarray(value)
        if arr.dtype.kind not in "biufc":
            return False
        return bool(np.all(arr == pattern))
    except Exception:
        return False


def _op_matches(head: Any, op: Any) -> bool:
    if isinstance(head, type):
        return isinstance(op, head)
    if callable(head) and not isinstance(head, Op):
        return bool(head(op))
    return op == head


def match_pattern(
    fgraph: Any,
    var: Variable,
    pattern: Any,
    bindings: Bindings,
    allow_multiple_clients: bool = True,
    get_constant: Callable[[Variable], Any] = _default_constant_value,
    is_root: bool = True,
) -> bool:
    """Match ``pattern`` against ``var``, extending ``bindings``; True on success."""
    if isinstance(pattern, Mapping):
        inner = pattern.get("pattern")
        constraint = pattern.get("constraint", lambda v: True)
        if not match_pattern(fgraph, var, inner, bindings, allow_multiple_clients,
                             get_constant, is_root):
            return False
        return bool(constraint(var))
    if isinstance(pattern, str):
        bound = bindings.get(pattern)
        if bound is None:
            bindings[pattern] = var
            return True
        if bound is var:
            return True
        return (isinstance(bound, Constant) and isinstance(var, Constant)
                and bound.equals(var))
    if isinstance(pattern, Constant):
        return pattern is var or (isinstance(var, Constant) and pattern.equals(var))
    if isinstance(pattern, tuple | list):
        if not pattern:
            raise ValueError("empty pattern tuple: expected (op, sub-patterns...)")
        node = var.owner
        if node is None:
            return False
        head = pattern[0]
        if isinstance(head, OpPattern):
            extended = head.match(node.op, bindings)
            if extended is None:
                return False
            bindings.update(extended)
        elif not _op_matches(head, node.op):
            return False
        if len(node.inputs) != len(pattern) - 1:
            return False
        if not is_root and not allow_multiple_clients and fgraph is not None:
            clients = fgraph.clients.get(var, ())
            if len(clients) > 1 or any(is_output_client(c[0]) for c in clients):
                return False
        return all(
            match_pattern(fgraph, inp, sub, bindings, allow_multiple_clients, get_constant, False)
            for inp, sub in zip(node.inputs, pattern[1:])
        )
    if isinstance(pattern, int | float | complex | np.number | np.ndarray | bool):
        value = get_constant(var)
        return value is not None and _values_match(value, pattern)
    raise TypeError(f"unsupported pattern element {pattern!r} ({type_name(pattern)})")


def _build(pattern: Any, bindings: Bindings, fgraph: Any = None, node: Any = None) -> Any:
    if isinstance(pattern, str):
        return bindings[pattern]
    if isinstance(pattern, Mapping):
        return _build(pattern["pattern"], bindings, fgraph, node)
    if isinstance(pattern, tuple | list):
        head = pattern[0]
        args = [_build(p, bindings, fgraph, node) for p in pattern[1:]]
        return head(*args)
    if callable(pattern) and not isinstance(pattern, Variable | Op):
        if _takes_three(pattern):
            return pattern(fgraph, node, bindings)
        return pattern(bindings)
    return pattern


def _takes_three(fn: Callable) -> bool:
    """True for PyTensor's ``fn(fgraph, node, bindings)`` output callables."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3 or any(p.kind is p.VAR_POSITIONAL for p in params)


class PatternNodeRewriter(NodeRewriter):
    """Replaces what matches ``in_pattern`` by ``out_pattern``.

    ``fix_type(old, new)`` may adapt a replacement whose type differs (cast,
    broadcast); without it the type must be compatible or the rewrite is
    skipped. ``get_constant(var)`` extracts constant values for numeric
    pattern elements (default: Constant data only).
    """

    def __init__(
        self,
        in_pattern: Any,
        out_pattern: Any,
        allow_multiple_clients: bool = False,
        name: str | None = None,
        tracks: Any = None,
        get_constant: Callable[[Variable], Any] | None = None,
        fix_type: Callable[[Variable, Variable], Variable | None] | None = None,
        doc: str | None = None,
        get_nodes: Callable[[Any, Apply], list[Apply]] | None = None,
        values_eq_approx: Callable[..., bool] | None = None,
    ) -> None:
        head = in_pattern.get("pattern") if isinstance(in_pattern, Mapping) else in_pattern
        if not isinstance(head, tuple | list) or not head:
            raise TypeError(
                f"PatternNodeRewriter: in_pattern must be (op, sub-patterns...) or a "
                f"constraint dict around one, got {in_pattern!r}"
            )
        self.in_pattern = in_pattern
        self.out_pattern = out_pattern
        self.allow_multiple_clients = allow_multiple_clients
        self.get_constant = get_constant or _default_constant_value
        self.fix_type = fix_type
        self.doc = doc
        self.get_nodes = get_nodes
        self.values_eq_approx = values_eq_approx
        root = head[0]
        self._tracks = list(tracks) if tracks else (
            [root] if isinstance(root, type | Op | OpPattern) else None
        )
        self.name = name or f"{_pattern_str(in_pattern)} -> {_pattern_str(out_pattern)}"

    def tracks(self) -> list[Any] | None:
        return self._tracks

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Any:
        if self.get_nodes is not None:
            for other in self.get_nodes(fgraph, node) or ():
                if other is node:
                    continue
                found = self._rewrite_one(fgraph, other)
                if found:
                    return {other.outputs[0]: found[0]}
        return self._rewrite_one(fgraph, node)

    def _rewrite_one(self, fgraph: FunctionGraph, node: Apply) -> Any:
        if len(node.outputs) != 1:
            return False
        out = node.outputs[0]
        bindings: Bindings = {}
        if not match_pattern(fgraph, out, self.in_pattern, bindings,
                             self.allow_multiple_clients, self.get_constant):
            return False
        new = _build(self.out_pattern, bindings, fgraph, node)
        if new is None or new is False:
            return False
        if not isinstance(new, Variable):
            return False  # a plain value is not a replacement (its type is unknown)
        if new is out:
            return False
        if new.type != out.type:
            if self.fix_type is not None:
                new = self.fix_type(out, new)
                if new is None:
                    return False
            else:
                try:
                    new = out.type.filter_variable(new, allow_convert=True)
                except TypeError:
                    return False
        if self.values_eq_approx is not None:
            new.tag.values_eq_approx = self.values_eq_approx
        return [new]

    def __str__(self) -> str:
        return self.name


def _pattern_str(p: Any) -> str:
    if isinstance(p, tuple | list):
        return "(" + ", ".join(_pattern_str(x) for x in p) + ")"
    if isinstance(p, Mapping):
        return _pattern_str(p.get("pattern"))
    if isinstance(p, str):
        return p
    if isinstance(p, type):
        return p.__name__
    if isinstance(p, OpPattern):
        return repr(p)
    if callable(p) and not isinstance(p, Op):
        return getattr(p, "__name__", "fn")
    return str(p)


class SubstitutionNodeRewriter(NodeRewriter):
    """Replaces every node of ``op1`` by a node of ``op2`` on the same inputs."""

    def __init__(self, op1: Op, op2: Op, transfer_tags: bool = True,
                 name: str | None = None) -> None:
        self.op1 = op1
        self.op2 = op2
        self.transfer_tags = transfer_tags
        self.name = name or f"{op1} -> {op2}"

    def tracks(self) -> list[Any]:
        return [self.op1]

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Any:
        if node.op != self.op1:
            return False
        repl = self.op2.make_node(*node.inputs)
        if self.transfer_tags and node._tag is not None:
            for o, n in zip(node.outputs, repl.outputs):
                if o._tag is not None:
                    n.tag.update(o.tag)
        return repl.outputs


class RemovalNodeRewriter(NodeRewriter):
    """Removes nodes of ``op`` by passing their first input through."""

    def __init__(self, op: Op, name: str | None = None) -> None:
        self.op = op
        self.name = name or f"remove {op}"

    def tracks(self) -> list[Any]:
        return [self.op]

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Any:
        if node.op != self.op or len(node.outputs) != 1 or not node.inputs:
            return False
        return [node.inputs[0]]
