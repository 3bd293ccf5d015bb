"""The value key of an inner graph: equal bodies compare and hash equal, so equal Ops merge."""

from __future__ import annotations

from collections.abc import Sequence

from opgraph.graph.basic import Variable, equal_computations
from opgraph.graph.signature import structure_signature

__all__ = ["InnerGraphKey"]


class InnerGraphKey:
    """An inner graph compared by value (equal_computations), hashed alike, so equal Ops merge."""

    __slots__ = ("_hash", "inputs", "outputs")

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self._hash: int | None = None

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(structure_signature(self.inputs, self.outputs))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, InnerGraphKey) or len(self.outputs) != len(other.outputs):
            return False
        if hash(self) != hash(other):
            return False
        if [v.type for v in self.inputs] != [v.type for v in other.inputs]:
            return False
        return equal_computations(self.outputs, other.outputs, self.inputs, other.inputs)
