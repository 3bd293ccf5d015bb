"""Small pieces shared by the scan modules: ``until`` and the inner-graph value key."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Constant, Variable, equal_computations, io_toposort
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


def _constant_key(c: Constant) -> Any:
    try:
        sig = c.signature()
        hash(sig)
    except TypeError:
        return ("c", id(c))
    return ("c", c.type, sig)


def _structure(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> tuple:
    """A hashable description of the computation (equal for equal_computations graphs)."""
    ids: dict[Variable, Any] = {v: ("in", k) for k, v in enumerate(inputs)}
    rows: list[tuple] = []
    for node in io_toposort(list(inputs), list(outputs)):
        args = []
        for x in node.inputs:
            key = ids.get(x)
            if key is None:
                key = _constant_key(x) if isinstance(x, Constant) else ("free", id(x))
                ids[x] = key
            args.append(key)
        try:
            op_key = hash(node.op)
        except TypeError:
            op_key = id(node.op)
        n = len(rows)
        rows.append((op_key, tuple(args)))
        for j, o in enumerate(node.outputs):
            ids[o] = ("n", n, j)
    outs = tuple(ids.get(o, ("free", id(o))) if not isinstance(o, Constant)
                 else _constant_key(o) for o in outputs)
    return (tuple(v.type for v in inputs), tuple(rows), outs)


class InnerGraphKey:
    """An inner graph compared by value (equal_computations), hashed alike, so equal Ops merge."""

    __slots__ = ("_hash", "inputs", "outputs")

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self._hash: int | None = None

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(_structure(self.inputs, self.outputs))
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
