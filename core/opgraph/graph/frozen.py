"""FrozenFunctionGraph: an immutable, hashable graph of interned nodes, and ``Output``.

Two graphs that compute the same thing from inputs of the same types freeze
to equal objects (same interned nodes), so a frozen graph can key a cache
(compiled inner graphs, OpFromGraph).
"""

from __future__ import annotations

import weakref
from abc import ABC
from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import (
    DEBUGPRINT,
    Apply,
    Constant,
    FrozenApply,
    NominalVariable,
    Variable,
    _postorder_nodes,
)
from opgraph.graph.op import Op

__all__ = ["MUTABLE_GRAPH", "FrozenFunctionGraph", "Output"]

#: The mutable graph class ``unfreeze`` builds (``opgraph.graph.fg`` puts FunctionGraph here).
MUTABLE_GRAPH: list[Any] = []


def _debugprint(obj: Any, **kwargs: Any) -> Any:
    if not DEBUGPRINT:
        # Documented exception to the layer rule (tools/layers.py), as in Variable.dprint.
        import opgraph.printing  # noqa: F401
    return DEBUGPRINT[0](obj, **kwargs)


class Output(Op):
    """Stands for "graph output ``idx``" as a client of a frozen graph's outputs."""

    __props__ = ("idx",)

    def __init__(self, idx: int) -> None:
        self.idx = idx

    def make_node(self, inp: Variable) -> Apply:
        return Apply(self, [inp], [])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        raise RuntimeError("Output is a marker of graph outputs and is never computed")

    def __str__(self) -> str:
        return f"output[{self.idx}]"


_FROZEN_CONSTANTS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _intern_constant(c: Constant) -> Constant:
    """The first-seen constant equal to ``c`` (so frozen graphs share their constants)."""
    key = (type(c), c.signature())
    found = _FROZEN_CONSTANTS.get(key)
    if found is None:
        found = _FROZEN_CONSTANTS[key] = c
    return found


class AbstractFunctionGraph(ABC):  # noqa: B024 - an interface for isinstance checks
    """What FunctionGraph and FrozenFunctionGraph share (``inputs``, ``outputs``,
    ``apply_nodes``, ``variables``, ``clients``, ``toposort()``): PyTensor's common base,
    for ``isinstance`` checks and annotations."""


@AbstractFunctionGraph.register
class FrozenFunctionGraph:
    """An immutable graph of interned nodes: hashable, and equal when structurally equal.

    Inputs become ``NominalVariable(i, type)`` (numbered 0..n-1), nodes
    become FrozenApply, equal constants are shared; two graphs computing the
    same thing from the same input types therefore hold the very same
    output objects, and compare and hash by them.
    """

    __slots__ = (
        "__weakref__",
        "_hash",
        "_order",
        "apply_nodes",
        "clients",
        "inputs",
        "outputs",
        "variables",
    )

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        inputs = list(inputs)
        outputs = list(outputs)
        memo: dict[Variable, Variable] = {}
        new_inputs = []
        for i, x in enumerate(inputs):
            memo[x] = nominal = NominalVariable(i, x.type)
            new_inputs.append(nominal)
        order = []
        for node in _postorder_nodes(set(inputs), outputs):
            ins = []
            for x in node.inputs:
                nx = memo.get(x)
                if nx is None:
                    if not isinstance(x, Constant):
                        raise ValueError(
                            f"Orphan variable {x} (of type {x.type}) is used by {node} but is "
                            "neither an input of the graph nor a constant"
                        )
                    nx = memo[x] = _intern_constant(x)
                ins.append(nx)
            frozen = FrozenApply(node.op, ins, [o.type for o in node.outputs])
            order.append(frozen)
            for o, fo in zip(node.outputs, frozen.outputs):
                memo[o] = fo
        new_outputs = []
        for k, o in enumerate(outputs):
            fo = memo.get(o)
            if fo is None and isinstance(o, Constant):
                fo = _intern_constant(o)
            if fo is None and o.owner is not None:
                fo = memo.get(o.owner.outputs[o.index])
            if fo is None:
                raise ValueError(
                    f"Output {k} ({o}) could not be mapped to the frozen graph: it is not "
                    "computed from the inputs"
                )
            new_outputs.append(fo)
        self.inputs = tuple(new_inputs)
        self.outputs = tuple(new_outputs)
        self._order = tuple(dict.fromkeys(order))
        self.apply_nodes = frozenset(self._order)
        variables = set(self.inputs) | set(self.outputs)
        clients: dict[Variable, list] = {v: [] for v in self.inputs}
        for node in self._order:
            variables.update(node.inputs)
            variables.update(node.outputs)
            for o in node.outputs:
                clients.setdefault(o, [])
            for i, x in enumerate(node.inputs):
                clients.setdefault(x, []).append((node, i))
        for i, o in enumerate(self.outputs):
            clients.setdefault(o, []).append((Output(i).make_node(o), 0))
        self.variables = frozenset(variables)
        self.clients = clients
        self._hash = hash((self.inputs, self.outputs))

    def toposort(self) -> tuple[Apply, ...]:
        return self._order

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, FrozenFunctionGraph):
            return NotImplemented
        return (
            self._hash == other._hash
            and self.inputs == other.inputs
            and len(self.outputs) == len(other.outputs)
            and all(a is b for a, b in zip(self.outputs, other.outputs))
        )

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple:
        return (FrozenFunctionGraph, (self.inputs, self.outputs))

    def __copy__(self) -> FrozenFunctionGraph:
        return self

    def __deepcopy__(self, memo: dict) -> FrozenFunctionGraph:
        return self

    def __repr__(self) -> str:
        return f"FrozenFunctionGraph({', '.join(map(str, self.outputs))})"

    def bind(self, inputs: Sequence[Variable]) -> list[Variable]:
        """The outputs rebuilt on ``inputs`` (mutable nodes, the frozen output types)."""
        inputs = list(inputs)
        if len(inputs) != len(self.inputs):
            raise ValueError(
                f"bind: this graph has {len(self.inputs)} inputs, got {len(inputs)}"
            )
        memo: dict[Variable, Variable] = dict(zip(self.inputs, inputs))
        for node in self._order:
            ins = [memo.get(x, x) for x in node.inputs]
            if all(a.type == b.type for a, b in zip(ins, node.inputs)):
                new = Apply(node.op, ins, [o.type.make_variable() for o in node.outputs])
            else:
                new = node.op.make_node(*ins)
            memo.update(zip(node.outputs, new.outputs))
        return [memo.get(o, o) for o in self.outputs]

    def unfreeze(self) -> Any:
        """A mutable FunctionGraph over copies of these nodes (inputs stay nominal)."""
        return MUTABLE_GRAPH[0](list(self.inputs), list(self.outputs), clone=True)

    def dprint(self, **kwargs: Any) -> Any:
        return _debugprint(self, **kwargs)
