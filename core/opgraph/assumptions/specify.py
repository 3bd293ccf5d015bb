"""``assume(x, diagonal=True, ...)``: state facts about a matrix in the graph.

The facts live on a ``SpecifyAssumptions`` node, an identity (the output is a
view of ``x``) whose parameters are the asserted facts; the assumption system
reads them and carries them downstream. Compiled graphs may drop the node
once the rewrites that use the facts have run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opgraph.assumptions.core import (
    ASSUMPTION_INFER_REGISTRY,
    BUILTIN_KEYS,
    ConflictingAssumptionsError,
    FactState,
    register_assumption,
)
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.tensor.basic import as_tensor_variable

__all__ = [
    "SpecifyAssumptions",
    "assume",
    "specify_assumption_rule",
]


class SpecifyAssumptions(Op):
    """Identity on ``x`` that asserts ``facts`` (``{key name: FactState}``) about it."""

    __props__ = ("facts",)
    view_map = {0: [0]}

    def __init__(self, facts: Mapping[str, FactState] | Sequence[tuple[str, FactState]]) -> None:
        items = dict(facts.items() if isinstance(facts, Mapping) else facts)
        for name, state in items.items():
            if not isinstance(name, str):
                raise TypeError(f"SpecifyAssumptions: fact names must be strings, got {name!r}")
            if state not in (FactState.TRUE, FactState.FALSE):
                raise TypeError(
                    f"SpecifyAssumptions: fact '{name}' must be FactState.TRUE or "
                    f"FactState.FALSE, got {state!r}"
                )
        self.facts = tuple(sorted(items.items()))

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = inputs[0]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [shapes[0]]

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return [cotangents[0]]

    def pushforward(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                    tangents: Sequence[Any]) -> list[Any]:
        return [tangents[0]]

    def state_of(self, name: str) -> FactState:
        for n, st in self.facts:
            if n == name:
                return st
        return FactState.UNKNOWN

    def __str__(self) -> str:
        text = ", ".join(n if st is FactState.TRUE else f"!{n}" for n, st in self.facts)
        return f"{type(self).__name__}{{{text}}}"


def assume(x: Any, **facts: bool | None) -> Variable:
    """``x`` with the given facts asserted (``True``/``False``; ``None`` says nothing).

    ``assume(x)`` with no fact returns ``x`` itself.
    """
    given = {}
    known = {k.name for k in BUILTIN_KEYS} | {k.name for k, _ in ASSUMPTION_INFER_REGISTRY}
    for name, value in facts.items():
        if name not in known:
            raise TypeError(f"assume: unknown fact '{name}'; known facts: {sorted(known)}")
        if value is None:
            continue
        if not isinstance(value, bool):
            raise TypeError(
                f"assume: fact '{name}' must be True, False or None, got {type(value).__name__}"
            )
        given[name] = FactState.TRUE if value else FactState.FALSE
    if not given:
        return x
    x = as_tensor_variable(x)
    if x.type.ndim < 2:
        raise ValueError(f"assume: the facts are about matrices, got {x} of type {x.type}")
    return SpecifyAssumptions(given)(x)


def _asserted(key: Any, op: SpecifyAssumptions, feature: Any, fgraph: Any, node: Apply,
              input_states: Sequence[FactState]) -> list[FactState]:
    """Asserted facts win over UNKNOWN; an assertion against an inferred fact conflicts."""
    mine = op.state_of(key.name)
    state = FactState.join(input_states[0], mine)
    if state is FactState.CONFLICT:
        raise ConflictingAssumptionsError(
            f"{node.inputs[0]} is inferred to be {input_states[0].value} for '{key.name}', "
            f"but assume() says {mine.value}"
        )
    return [state]


specify_assumption_rule = _asserted  # PyTensor's name of the rule

for _key in BUILTIN_KEYS:
    register_assumption(_key, SpecifyAssumptions)(_asserted)
