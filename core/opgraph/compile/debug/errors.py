"""The errors DebugMode raises; each names the node and shows both values."""

from __future__ import annotations

from typing import Any

from opgraph.graph.features import BadOptimization

__all__ = [
    "BadDestroyMap",
    "BadOptimization",
    "BadThunkOutput",
    "BadViewMap",
    "DebugModeError",
    "InvalidValueError",
    "StochasticOrder",
]


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class DebugModeError(Exception):
    """Base class of every error DebugMode finds."""


class BadThunkOutput(DebugModeError):
    """Two implementations of one node (Python ``perform`` and C) disagree.

    ``r`` is the output variable, ``thunk1``/``thunk2`` the implementations,
    ``val1``/``val2`` their values, ``inputs_val`` the inputs both got.
    """

    def __init__(self, r: Any, thunk1: str, val1: Any, thunk2: str, val2: Any,
                 inputs_val: Any = ()) -> None:
        super().__init__(r, thunk1, val1, thunk2, val2)
        self.r, self.thunk1, self.val1 = r, thunk1, val1
        self.thunk2, self.val2, self.inputs_val = thunk2, val2, inputs_val

    def __str__(self) -> str:
        node = self.r.owner
        where = f"output {self.r.index} of {node.op}" if node is not None else str(self.r)
        return (f"BadThunkOutput: {where} differs between implementations for the same inputs\n"
                f"  node: {node}\n  {self.thunk1}: {_short(self.val1)}\n"
                f"  {self.thunk2}: {_short(self.val2)}\n"
                f"  inputs: {_short(list(self.inputs_val))}")


class BadDestroyMap(DebugModeError):
    """A node overwrote input ``idx`` without declaring it in its ``destroy_map``."""

    def __init__(self, node: Any, idx: int, old_val: Any, new_val: Any, perform: str) -> None:
        super().__init__(node, idx, old_val, new_val, perform)
        self.node, self.idx, self.old_val, self.new_val = node, idx, old_val, new_val
        self.perform = perform

    def __str__(self) -> str:
        return (f"BadDestroyMap: {self.node.op} ({self.perform}) modified its input {self.idx} "
                f"({self.node.inputs[self.idx]}) but its destroy_map "
                f"{getattr(self.node.op, 'destroy_map', {})} does not say so\n"
                f"  node: {self.node}\n  before: {_short(self.old_val)}\n"
                f"  after: {_short(self.new_val)}")


class BadViewMap(DebugModeError):
    """An output shares memory with an input (or another output) undeclared in ``view_map``."""

    def __init__(self, node: Any, output_idx: int, out_storage: Any,
                 in_alias_idx: int | None = None, out_alias_idx: int | None = None) -> None:
        super().__init__(node, output_idx, in_alias_idx, out_alias_idx)
        self.node, self.output_idx, self.out_storage = node, output_idx, out_storage
        self.in_alias_idx, self.out_alias_idx = in_alias_idx, out_alias_idx

    def __str__(self) -> str:
        op = self.node.op
        if self.in_alias_idx is not None:
            other = f"its input {self.in_alias_idx} ({self.node.inputs[self.in_alias_idx]})"
        else:
            other = f"its output {self.out_alias_idx}, and both are used by later nodes"
        return (f"BadViewMap: output {self.output_idx} of {op} shares memory with {other}, "
                f"which its view_map {getattr(op, 'view_map', {})} / destroy_map "
                f"{getattr(op, 'destroy_map', {})} does not declare\n  node: {self.node}")


class StochasticOrder(DebugModeError):
    """Rewriting the same graph twice gave different graphs (a non-deterministic rewrite)."""


class InvalidValueError(DebugModeError):
    """A node produced a value its output type does not accept (or NaN/Inf when checked)."""

    def __init__(self, r: Any, v: Any, client_node: Any = None, hint: str = "none",
                 specific_hint: str = "none") -> None:
        super().__init__(r, v, client_node, hint, specific_hint)
        self.r, self.v, self.client_node = r, v, client_node
        self.hint, self.specific_hint = hint, specific_hint

    def __str__(self) -> str:
        owner = self.r.owner
        made_by = f"output {self.r.index} of {owner.op}" if owner is not None else "an input"
        return (f"InvalidValueError: {made_by} ({self.r}, type {self.r.type}) holds an invalid "
                f"value: {self.hint}; {self.specific_hint}\n  value: {_short(self.v)}")
