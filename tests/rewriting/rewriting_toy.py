"""Toy scalar ops for engine tests: no tensor library, just Python floats."""

from __future__ import annotations

import math
from typing import Any

import attrs

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.op import Op
from opgraph.graph.type import Type


@attrs.frozen
class Num(Type):
    """A Python float; ``kind`` lets tests make two incompatible types."""

    kind: str = "f"

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if isinstance(data, int | float):
            return float(data)
        raise TypeError(f"Num expects a number, got {type(data).__name__}")


num = Num()


def as_var(x: Any) -> Variable:
    return x if isinstance(x, Variable) else Constant(num, x)


@attrs.frozen
class Fn(Op):
    """A pure function of its inputs, named and evaluated by ``impl``."""

    name: str
    nin: int

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != self.nin:
            raise TypeError(f"{self.name} takes {self.nin} inputs, got {len(inputs)}")
        ins = [as_var(i) for i in inputs]
        return Apply(self, ins, [num()])

    def perform(self, node: Apply, inputs: list, output_storage: list) -> None:
        output_storage[0][0] = IMPLS[self.name](*inputs)


IMPLS = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b if b else math.copysign(math.inf, a) if a else math.nan,
    "neg": lambda a: -a,
    "exp": lambda a: math.exp(min(a, 700)),
    "log": lambda a: math.log(a) if a > 0 else -math.inf if a == 0 else math.nan,
    "sin": math.sin,
    "f": lambda a: a + 1,
    "g": lambda a: a + 1,
}

add, mul, div = Fn("add", 2), Fn("mul", 2), Fn("div", 2)
neg, exp, log, sin = Fn("neg", 1), Fn("exp", 1), Fn("log", 1), Fn("sin", 1)
f, g = Fn("f", 1), Fn("g", 1)


def evaluate(fgraph: Any, values: dict) -> list:
    """Outputs of ``fgraph`` computed by calling perform in topological order."""
    env = dict(zip(fgraph.inputs, values)) if isinstance(values, list | tuple) else dict(values)
    for node in fgraph.toposort():
        ins = [env[i] if not isinstance(i, Constant) else i.data for i in node.inputs]
        storage = [[None] for _ in node.outputs]
        node.op.perform(node, ins, storage)
        for o, s in zip(node.outputs, storage):
            env[o] = s[0]
    return [env[o] if not isinstance(o, Constant) else o.data for o in fgraph.outputs]


def op_names(fgraph: Any) -> list[str]:
    return sorted(str(n.op.name) for n in fgraph.apply_nodes)
