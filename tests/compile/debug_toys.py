"""Deliberately broken Ops for the DebugMode tests (each breaks one contract)."""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op


class _Binary(Op):
    __props__ = ()

    def make_node(self, a: Variable, b: Variable) -> Apply:
        return Apply(self, [a, b], [a.type()])


class AddInto(_Binary):
    """Writes a + b into a's memory without declaring destroy_map."""

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        a, b = inputs
        a += b
        out[0][0] = a


class AddIntoDeclared(AddInto):
    """The same, declared: destroy_map = {0: [0]}."""

    destroy_map = {0: [0]}


class ReturnSecond(_Binary):
    """Returns input 1 itself (a view) without declaring view_map."""

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = inputs[1]


class ReturnSecondDeclared(ReturnSecond):
    view_map = {0: [1]}


class SliceOfSecond(_Binary):
    """Returns a slice of input 1 (a view) without declaring it."""

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = inputs[1][1:3]


class TwoOverlapping(Op):
    """Two outputs that share memory with each other (r[:-1] and r[1:] of a fresh r)."""

    __props__ = ()

    def make_node(self, a: Variable) -> Apply:
        return Apply(self, [a], [a.type(), a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        r = inputs[0] * 1
        out[0][0] = r[:-1]
        out[1][0] = r[1:]


class Log(Op):
    """Plain elementwise log (may produce -inf / nan)."""

    __props__ = ()

    def make_node(self, a: Variable) -> Apply:
        return Apply(self, [a], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        with np.errstate(all="ignore"):
            out[0][0] = np.log(inputs[0]) * inputs[0]


class AddHalf(_Binary):
    """a + b + 0.5: what a broken rewrite puts in place of a + b."""

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = inputs[0] + inputs[1] + 0.5


class Add(_Binary):
    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = inputs[0] + inputs[1]
