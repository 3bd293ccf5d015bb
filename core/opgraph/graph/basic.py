"""Graph nodes and the functions over whole graphs: cloning, comparing, printing.

The node classes live in ``opgraph.graph.nodes`` and the traversals in
``opgraph.graph.traversal``; both are re-exported here, PyTensor's path for
them. Every function uses an explicit stack, so a chain of 100k nodes never
meets the recursion limit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

from opgraph.graph.nodes import (
    DEBUGPRINT,
    Apply,
    AtomicVariable,
    Constant,
    FrozenApply,
    Node,
    NominalVariable,
    Variable,
)
from opgraph.graph.nodes import _freeze as _freeze  # re-exported: imported from here elsewhere
from opgraph.graph.replace import clone_replace
from opgraph.graph.traversal import (
    _postorder_nodes,
    ancestors,
    applys_between,
    general_toposort,
    get_var_by_name,
    graph_inputs,
    io_toposort,
    is_in_ancestors,
    orphans_between,
    variable_depends_on,
    vars_between,
    walk,
)
from opgraph.graph.utils import type_name

__all__ = [
    "DEBUGPRINT",
    "Apply",
    "AtomicVariable",
    "Constant",
    "FrozenApply",
    "Node",
    "NominalVariable",
    "Variable",
    "ancestors",
    "applys_between",
    "as_string",
    "as_variables",
    "clone",
    "clone_get_equiv",
    "clone_replace",
    "default_node_formatter",
    "equal_computations",
    "general_toposort",
    "get_var_by_name",
    "graph_inputs",
    "io_connection_pattern",
    "io_toposort",
    "is_in_ancestors",
    "orphans_between",
    "variable_depends_on",
    "vars_between",
    "walk",
]


def default_node_formatter(node: Apply, argstrings: Sequence[str]) -> str:
    """``op(arg, ...)``: how ``as_string`` writes a node."""
    return f"{node.op}({', '.join(argstrings)})"


def as_string(
    inputs: Sequence[Variable],
    outputs: Sequence[Variable],
    leaf_formatter: Callable[[Variable], str] = str,
    node_formatter: Callable[[Apply, Sequence[str]], str] = default_node_formatter,
) -> list[str]:
    """One expression string per output, written down to ``inputs`` (and orphans).

    A computed value used more than once is written ``*k -> expr`` the first
    time and ``*k`` afterwards.
    """
    inputs = list(inputs)
    outputs = list(outputs)
    in_set = set(inputs)
    uses: dict[Variable, int] = {}
    for node in io_toposort(inputs, outputs):
        for x in node.inputs:
            uses[x] = uses.get(x, 0) + 1
    for o in outputs:
        uses[o] = uses.get(o, 0) + 1
    labels: dict[Variable, str] = {}

    def describe(v: Variable) -> str:
        owner = v.owner
        if owner is None or v in in_set:
            return leaf_formatter(v)
        if v in labels:
            return labels[v]
        text = node_formatter(owner, [describe(x) for x in owner.inputs])
        if len(owner.outputs) > 1:
            text += f".{v.index}"
        if uses.get(v, 0) > 1:
            labels[v] = f"*{len(labels) + 1}"
            return f"{labels[v]} -> {text}"
        return text

    return [describe(o) for o in outputs]


def as_variables(values: Iterable[Any]) -> list[Variable]:
    """Check that every value is a Variable, naming the first one that is not."""
    out = list(values)
    for i, v in enumerate(out):
        if not isinstance(v, Variable):
            raise TypeError(f"item {i}: expected a Variable, got {type_name(v)} {v!r:.80}")
    return out


# --------------------------------------------------------------------------- cloning


def _plain_clone(cls: type) -> bool:
    """True when ``cls.clone`` is ``Variable.clone`` (so cloning may skip the call)."""
    plain = _PLAIN_CLONE.get(cls)
    if plain is None:
        plain = _PLAIN_CLONE[cls] = cls.clone is Variable.clone
    return plain


_PLAIN_CLONE: dict[type, bool] = {}


def _clone_node_fast(node: Apply, new_inputs: list[Variable]) -> Apply:
    """``node.clone_with_new_inputs`` when the input types are unchanged, minus the checks.

    Outputs whose class keeps ``Variable.clone`` are filled in directly (the same
    fields ``Variable.clone`` sets, with owner and index already right): cloning
    is the inner loop of ``FunctionGraph.clone``.
    """
    new = _new_object(Apply)
    new.op = node.op
    new.inputs = new_inputs
    tag = node._tag
    new._tag = tag.copy() if tag is not None else None
    outs = []
    i = 0
    for o in node.outputs:
        cls = type(o)
        if _PLAIN_CLONE.get(cls) or _plain_clone(cls):
            c = _new_object(cls)
            c.type = o.type
            c.owner = new
            c.index = i
            c.name = o.name
            otag = o._tag
            c._tag = otag.copy() if otag is not None else None
            c._uid = next(Variable.__count__)
        else:
            c = o.clone()
            c.owner = new
            c.index = i
        outs.append(c)
        i += 1
    new.outputs = outs
    return new


_new_object = object.__new__
_new_apply = _new_object  # the former name, kept for callers


def clone_get_equiv(
    inputs: Iterable[Variable],
    outputs: Iterable[Variable],
    copy_inputs: bool = True,
    copy_orphans: bool = True,
    memo: dict | None = None,
    clone_inner_graphs: bool = False,
    **kwargs: Any,
) -> dict:
    """Clone the graph between inputs and outputs; return the old -> new map.

    The map holds Variables and Apply nodes. Nodes whose inputs keep their
    types are copied directly; the others are remade through ``make_node``.
    """
    if memo is None:
        memo = {}
    inputs = list(inputs)
    outputs = list(outputs)
    for x in inputs:
        if x not in memo:
            memo[x] = x.clone() if copy_inputs else x
    get = memo.get
    fast = not clone_inner_graphs
    stop = set(inputs)
    if len(memo) > len(inputs):  # variables the caller already mapped: not recloned
        stop.update(k for k in memo if isinstance(k, Variable))
    for node in _postorder_nodes(stop, outputs):
        new_inputs = []
        same = True
        for x in node.inputs:
            nx = get(x)
            if nx is None:
                nx = memo[x] = x.clone() if copy_orphans else x
            elif nx.type is not x.type and nx.type != x.type:
                same = False
            new_inputs.append(nx)
        if same and fast and type(node) is Apply:
            new_node = _clone_node_fast(node, new_inputs)
        else:
            new_node = node.clone_with_new_inputs(
                new_inputs, strict=False, clone_inner_graph=clone_inner_graphs
            )
        memo[node] = new_node
        olds = node.outputs
        if len(olds) == 1:
            old = olds[0]
            if old not in memo:
                memo[old] = new_node.outputs[0]
        else:
            for old, new in zip(olds, new_node.outputs):
                if old not in memo:
                    memo[old] = new
    for o in outputs:
        if o not in memo:
            memo[o] = o.clone() if copy_orphans else o
    return memo


def clone(
    inputs: Sequence[Variable],
    outputs: Sequence[Variable],
    copy_inputs: bool = True,
    copy_orphans: bool | None = None,
    clone_inner_graphs: bool = False,
) -> tuple[list[Variable], list[Variable]]:
    """Copies of ``inputs`` and ``outputs`` and of everything between them."""
    if copy_orphans is None:
        copy_orphans = copy_inputs
    equiv = clone_get_equiv(inputs, outputs, copy_inputs, copy_orphans, None, clone_inner_graphs)
    return [equiv[i] for i in inputs], [equiv[o] for o in outputs]


def equal_computations(
    xs: Sequence[Variable],
    ys: Sequence[Variable],
    in_xs: Sequence[Variable] | None = None,
    in_ys: Sequence[Variable] | None = None,
    strict_dtype: bool = True,
) -> bool:
    """True if ``xs`` and ``ys`` compute the same thing from corresponding inputs."""
    xs, ys = list(xs), list(ys)
    if len(xs) != len(ys):
        raise ValueError(
            f"equal_computations: xs and ys must have the same length, got {len(xs)} and "
            f"{len(ys)}"
        )
    values = [_value_of(v) for pair in zip(xs, ys) for v in pair if not isinstance(v, Variable)]
    if values:
        return _compare_with_values(xs, ys)
    in_xs = list(in_xs or [])
    in_ys = list(in_ys or [])
    if len(in_xs) != len(in_ys):
        return False
    equiv: dict = {}
    partners: set = set()
    for a, b in zip(in_xs, in_ys):
        if a.type != b.type:
            return False
        equiv[a] = b
        partners.add(b)
    stack = list(zip(xs, ys))
    seen: set = set()
    while stack:
        x, y = stack.pop()
        key = (id(x), id(y))
        if key in seen:
            continue
        if x in equiv:
            if equiv[x] is not y:
                return False
            continue
        if y in partners:  # y is a declared input but x is not its partner
            return False
        if x.type != y.type:
            return False
        if isinstance(x, Constant) or isinstance(y, Constant):
            if not (isinstance(x, Constant) and isinstance(y, Constant)):
                return False
            if x.signature() != y.signature():
                return False
            continue
        xo, yo = x.owner, y.owner
        if xo is None or yo is None:
            if x is not y:
                return False
            continue
        if x.index != y.index or xo.op != yo.op or len(xo.inputs) != len(yo.inputs):
            return False
        seen.add(key)
        stack.extend(zip(xo.inputs, yo.inputs))
    return True


def _value_of(v: Any) -> Any:
    return v.data if isinstance(v, Constant) else v


def _compare_with_values(xs: list, ys: list) -> bool:
    """``equal_computations`` where some items are plain values: compared as arrays."""
    for x, y in zip(xs, ys):
        x_var, y_var = isinstance(x, Variable), isinstance(y, Variable)
        if x_var and y_var:
            if not equal_computations([x], [y]):
                return False
        elif (x_var and not isinstance(x, Constant)) or (y_var and not isinstance(y, Constant)):
            return False
        elif not np.array_equal(_value_of(x), _value_of(y), equal_nan=True):
            return False
    return True


def io_connection_pattern(
    inputs: Sequence[Variable], outputs: Sequence[Variable]
) -> list[list[bool]]:
    """``pattern[i][j]`` is True when output ``j`` depends on input ``i``.

    Dependence follows each Op's ``connection_pattern`` when it has one (a shape
    argument, for instance, is not connected to a reshape's output).
    """
    inputs = list(inputs)
    index = {v: i for i, v in enumerate(inputs)}
    reach: dict = {v: 1 << i for v, i in index.items()}
    for node in io_toposort(inputs, outputs):
        masks = [reach.get(x, 0) for x in node.inputs]
        conn = getattr(node.op, "connection_pattern", None)
        pattern = conn(node) if callable(conn) else None
        for j, o in enumerate(node.outputs):
            mask = 0
            for i, m in enumerate(masks):
                if pattern is None or pattern[i][j]:
                    mask |= m
            reach[o] = mask
    pattern = []
    for i in range(len(inputs)):
        bit = 1 << i
        pattern.append([bool(reach.get(o, 0) & bit) for o in outputs])
    return pattern


def op_as_string(i: Sequence[Variable], op: Apply,
                 leaf_formatter: Callable[[Variable], str] = str,
                 node_formatter: Callable[[Apply, Sequence[str]], str] = default_node_formatter
                 ) -> str:
    """The node ``op`` written with its inputs' subgraphs from ``i`` (``as_string``)."""
    return node_formatter(op, as_string(i, op.inputs, leaf_formatter, node_formatter))


def clone_node_and_cache(node: Apply, clone_d: dict, clone_inner_graphs: bool = False,
                         **kwargs: Any) -> Apply | None:
    """Clone ``node`` on the clones of its inputs in ``clone_d`` and record the clone (node,
    Op, outputs) there; None when every output already has one.  An Op clone already in
    ``clone_d`` is reused, so inner-graph Ops are cloned once."""
    if all(out in clone_d for out in node.outputs):
        return None
    cached_op = clone_d.get(node.op)
    new_node = node.clone_with_new_inputs(
        [clone_d[i] for i in node.inputs],
        clone_inner_graph=clone_inner_graphs if cached_op is None else False, **kwargs)
    if cached_op is not None:
        new_node.op = cached_op
    clone_d[node] = new_node
    clone_d.setdefault(node.op, new_node.op)
    for old, new in zip(node.outputs, new_node.outputs, strict=True):
        clone_d.setdefault(old, new)
    return new_node


# PyTensor's annotation aliases
OpType = TypeVar("OpType", bound="Op")  # noqa: F821
OptionalApplyType = TypeVar("OptionalApplyType", None, "Apply", covariant=True)
