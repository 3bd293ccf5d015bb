"""Tiny Ops over a float64 array Type, so the linker tests do not depend on the
tensor library: they count perform calls and can work in place or as views."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.graph.type import Type


@attrs.frozen
class ArrayType(Type):
    """Any float64 ndarray of rank ``ndim``."""

    ndim: int = 1

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if strict and not (isinstance(data, np.ndarray) and data.dtype == np.float64):
            raise TypeError(f"{self} (strict) expected a float64 ndarray, got {type(data)}")
        try:
            arr = np.asarray(data, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{self} cannot convert {data!r:.40}: {exc}") from None
        if arr.ndim != self.ndim:
            raise TypeError(f"{self}: expected rank {self.ndim}, got rank {arr.ndim}")
        return arr

    def __str__(self) -> str:
        return f"ArrayType({self.ndim})"


vec = ArrayType(1)

CALLS: dict[str, int] = {}


def count(name: str) -> None:
    CALLS[name] = CALLS.get(name, 0) + 1


class Binary(Op):
    """Elementwise ``fn`` of two arrays, counted under ``name``."""

    __props__ = ("name",)
    FNS: ClassVar[dict[str, Any]] = {"add": np.add, "mul": np.multiply, "sub": np.subtract}

    def __init__(self, name: str) -> None:
        self.name = name

    def make_node(self, a: Variable, b: Variable) -> Apply:
        return Apply(self, [a, b], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        count(self.name)
        out[0][0] = self.FNS[self.name](inputs[0], inputs[1])


class Unary(Op):
    """``fn(x)`` with an optional tag to tell instances apart in counts."""

    __props__ = ("name", "tag")
    FNS: ClassVar[dict[str, Any]] = {"neg": np.negative, "exp": np.exp, "double": lambda x: 2 * x}

    def __init__(self, name: str, tag: str = "") -> None:
        self.name = name
        self.tag = tag

    def make_node(self, a: Variable) -> Apply:
        return Apply(self, [a], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        count(self.name + self.tag)
        out[0][0] = self.FNS[self.name](inputs[0])


class ReuseOutput(Op):
    """Writes ``x + 1`` into its output storage when an array is already there
    (what a recycling-aware Op does); exposes missing no_recycling."""

    __props__ = ()

    def make_node(self, a: Variable) -> Apply:
        return Apply(self, [a], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        x = inputs[0]
        z = out[0][0]
        if z is not None and z.shape == x.shape:
            np.add(x, 1, out=z)
        else:
            out[0][0] = x + 1


class AddInplace(Op):
    """``x += y`` in place (destroy_map {0: [0]})."""

    __props__ = ()
    destroy_map: ClassVar[dict[int, list[int]]] = {0: [0]}

    def make_node(self, a: Variable, b: Variable) -> Apply:
        return Apply(self, [a, b], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        x, y = inputs
        x += y
        out[0][0] = x


class Reverse(Op):
    """``x[::-1]`` as a view (view_map {0: [0]})."""

    __props__ = ()
    view_map: ClassVar[dict[int, list[int]]] = {0: [0]}

    def make_node(self, a: Variable) -> Apply:
        return Apply(self, [a], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = inputs[0][::-1]


class Fail(Op):
    """Raises ValueError when run."""

    __props__ = ()

    def make_node(self, a: Variable) -> Apply:
        return Apply(self, [a], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        raise ValueError("Fail op ran")


class LazyChoose(Op):
    """``then if cond.sum() > 0 else other`` computing only the chosen branch,
    following the lazy thunk protocol (thunk.lazy = True, returns needed inputs)."""

    __props__ = ()

    def make_node(self, cond: Variable, a: Variable, b: Variable) -> Apply:
        return Apply(self, [cond, a, b], [a.type()])

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        ins = [storage_map[v] for v in node.inputs]
        done_in = [compute_map[v] for v in node.inputs]
        out = storage_map[node.outputs[0]]
        done_out = compute_map[node.outputs[0]]

        def thunk() -> list[int]:
            if not done_in[0][0]:
                return [0]
            branch = 1 if ins[0][0].sum() > 0 else 2
            if not done_in[branch][0]:
                return [branch]
            count("choose")
            out[0] = ins[branch][0].copy()
            done_out[0] = True
            return []

        thunk.lazy = True
        return thunk

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = (inputs[1] if inputs[0].sum() > 0 else inputs[2]).copy()


add = Binary("add")
mul = Binary("mul")
sub = Binary("sub")


def vshared(value: Any, name: str | None = None) -> Any:
    """A shared variable of the toy type."""
    from opgraph.compile.sharedvalue import SharedVariable

    return SharedVariable(vec, np.asarray(value, dtype=np.float64), name=name)
