"""Toy Types and Ops for the graph-layer tests: no tensor library needed."""

from __future__ import annotations

from typing import Any

import attrs

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.graph.type import Type


@attrs.frozen
class ToyType(Type):
    """Holds a Python float; ``kind`` tags variants, ``exact`` narrows ``ToyType(kind)``."""

    kind: str = "float"
    exact: bool = False

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if strict and not isinstance(data, float):
            raise TypeError(f"{self} expected a float, got {type(data).__name__} {data!r}")
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise TypeError(f"{self} expected a number, got {type(data).__name__} {data!r}")
        return float(data)

    def is_super(self, otype: Type) -> bool:
        # a loose ToyType accepts the exact variant of the same kind
        return isinstance(otype, ToyType) and otype.kind == self.kind and (
            otype.exact or not self.exact
        )

    def __str__(self) -> str:
        return f"Toy({self.kind}{', exact' if self.exact else ''})"


tfloat = ToyType()
tother = ToyType("other")


def var(name: str | None = None, type_: ToyType = tfloat) -> Variable:
    return type_(name)


@attrs.frozen
class Elemwise2(Op):
    """A cheap binary op (attrs style); ``fn`` picks the arithmetic."""

    fn: str = "add"

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != 2:
            raise TypeError(f"{self} takes 2 inputs, got {len(inputs)}")
        ins = [tfloat.filter_variable(x) for x in inputs]
        return Apply(self, ins, [tfloat()])

    def perform(self, node: Apply, inputs: Any, output_storage: Any) -> None:
        a, b = inputs
        output_storage[0][0] = {"add": a + b, "mul": a * b, "sub": a - b}[self.fn]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        return [cotangents[0], cotangents[0]]

    def __str__(self) -> str:
        return self.fn


class Unary(Op):
    """A cheap unary op written the PyTensor way (``__props__``)."""

    __props__ = ("fn",)

    def __init__(self, fn: str = "neg") -> None:
        self.fn = fn

    def make_node(self, x: Any) -> Apply:
        x = tfloat.filter_variable(x)
        return Apply(self, [x], [tfloat()])

    def perform(self, node: Apply, inputs: Any, output_storage: Any) -> None:
        output_storage[0][0] = -inputs[0] if self.fn == "neg" else inputs[0] * 2

    def __str__(self) -> str:
        return self.fn


class TwoOut(Op):
    """Two outputs, the second the default one."""

    __props__ = ()
    default_output = 1

    def make_node(self, x: Any) -> Apply:
        return Apply(self, [x], [tfloat(), tfloat()])

    def perform(self, node: Apply, inputs: Any, output_storage: Any) -> None:
        output_storage[0][0] = inputs[0] + 1
        output_storage[1][0] = inputs[0] - 1


class ViewOp(Op):
    """Output 0 is a view of input 0."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Any, output_storage: Any) -> None:
        output_storage[0][0] = inputs[0]

    def __str__(self) -> str:
        return "view"


class InplaceAdd(Op):
    """Adds input 1 into input 0 in place (``destroy_map = {0: [0]}``)."""

    __props__ = ()
    destroy_map = {0: [0]}

    def make_node(self, x: Any, y: Any) -> Apply:
        return Apply(self, [x, y], [x.type()])

    def perform(self, node: Apply, inputs: Any, output_storage: Any) -> None:
        output_storage[0][0] = inputs[0] + inputs[1]

    def __str__(self) -> str:
        return "add_inplace"


class ToleratingInplaceAdd(InplaceAdd):
    """Like InplaceAdd but works when both inputs are the same variable."""

    destroyhandler_tolerate_same = [(0, 1)]


add = Elemwise2("add")
mul = Elemwise2("mul")
neg = Unary("neg")
dbl = Unary("dbl")
two_out = TwoOut()
view = ViewOp()
add_inplace = InplaceAdd()
