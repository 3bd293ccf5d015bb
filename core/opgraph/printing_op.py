"""``Print``: an identity op that prints its value when the graph runs (debugging aid).

Kept apart from the graph printers: it is an Op inside graphs, not a view of them.
``opgraph.printing`` re-exports it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.graph.utils import type_name

__all__ = ["Print"]


class Print(Op):
    """Identity op that prints ``message`` and the value (or some of its attributes) when run."""

    __props__ = ("message", "attrs")
    view_map = {0: [0]}

    def __init__(
        self, message: str = "", attrs: Iterable[str] = ("__str__",), global_fn: Any = None
    ):
        self.message = message
        self.attrs = tuple(attrs)
        self.global_fn = global_fn or _print_fn

    def make_node(self, x: Any) -> Apply:
        if not isinstance(x, Variable):
            raise TypeError(f"Print: expected a Variable, got {type_name(x)}")
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Any, output_storage: Any) -> None:
        (x,) = inputs
        self.global_fn(self, x)
        output_storage[0][0] = x

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        return list(cotangents)

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> list:
        return list(tangents)

    def do_constant_folding(self, fgraph: Any, node: Apply) -> bool:
        return False


def _print_fn(op: Print, x: Any) -> None:
    for attr in op.attrs:
        value = getattr(x, attr)
        if callable(value):
            value = value()
        print(op.message, attr, "=", value)
