"""Small pieces shared by the scan modules: ``until`` and the inner-graph value key."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Variable, equal_computations
from opgraph.graph.signature import structure_signature
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["InnerGraphKey", "until"]


class until:
    """Stop a scan after the step where ``condition`` is true (a while loop).

    The step function returns it beside its outputs:
    ``return new_x, until(new_x > 10)``.  The condition must be a boolean
    (or integer) scalar; anything else is refused here, when the graph is built.
    """

    def __init__(self, condition: Any) -> None:
        try:
            cond = as_tensor_variable(condition)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"until: condition must be a boolean scalar; got {condition!r:.60}"
                            f" ({exc})") from None
        if cond.type.ndim != 0:
            raise TypeError(f"until: condition must be a boolean scalar; got a "
                            f"{cond.type.ndim}-d tensor {cond.type}")
        if not (cond.type.dtype == "bool" or cond.type.dtype.startswith(("int", "uint"))):
            raise TypeError(f"until: condition must be a boolean scalar; got dtype "
                            f"{cond.type.dtype} ({cond.type})")
        self.condition = cond


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
