"""The list Type and the Ops that build and read lists (values are Python lists)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.graph.type import Type
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "Append",
    "GetItem",
    "Length",
    "MakeList",
    "TypedListType",
    "TypedListVariable",
    "append",
    "getitem",
    "length",
    "make_list",
]


class TypedListVariable(Variable):
    """A symbolic list; ``len``-like and index access go through Ops."""

    def __getitem__(self, index: Any) -> Variable:
        return getitem(self, index)

    def append(self, item: Any) -> Variable:
        return append(self, item)


class TypedListType(Type):
    """Lists whose elements all have the Type ``ttype``."""

    variable_type = TypedListVariable

    def __init__(self, ttype: Type) -> None:
        if not isinstance(ttype, Type):
            raise TypeError(f"TypedListType: ttype must be a Type, got {ttype!r}")
        self.ttype = ttype

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if not isinstance(data, list | tuple):
            raise TypeError(f"{self}: expected a list, got {type(data).__name__}")
        return [self.ttype.filter(x, strict=strict, allow_downcast=allow_downcast) for x in data]

    def values_eq(self, a: Any, b: Any) -> bool:
        return len(a) == len(b) and all(self.ttype.values_eq(x, y) for x, y in zip(a, b))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.ttype == self.ttype

    def __hash__(self) -> int:
        return hash((type(self), self.ttype))

    def __call__(self, name: str | None = None) -> TypedListVariable:
        return TypedListVariable(self, None, name=name)

    def __str__(self) -> str:
        return f"TypedList({self.ttype})"

    __repr__ = __str__


def _as_element(x: Any) -> Variable:
    return x if isinstance(x, Variable) else as_tensor_variable(x)


class MakeList(Op):
    """A list of its inputs (all of one Type)."""

    __props__ = ()

    def make_node(self, *items: Any) -> Apply:
        items = [_as_element(x) for x in items]
        if not items:
            raise TypeError("make_list: give at least one element (the list Type comes from it)")
        ttype = items[0].type
        for i, x in enumerate(items):
            if x.type != ttype:
                raise TypeError(
                    f"make_list: element {i} has type {x.type}, but element 0 has {ttype}"
                )
        return Apply(self, items, [TypedListType(ttype)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = list(inputs)


class Length(Op):
    """The number of elements of a list, as an int64 scalar."""

    __props__ = ()

    def make_node(self, lst: Any) -> Apply:
        _check_list(lst, "length")
        return Apply(self, [lst], [TensorType("int64", shape=())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(len(inputs[0]), dtype="int64")


class GetItem(Op):
    """``lst[index]`` for an integer index."""

    __props__ = ()

    def make_node(self, lst: Any, index: Any) -> Apply:
        _check_list(lst, "getitem")
        index = as_tensor_variable(index)
        if index.type.ndim != 0 or not index.type.dtype.startswith(("int", "uint")):
            raise TypeError(f"getitem: index must be an integer scalar, got {index.type}")
        return Apply(self, [lst, index], [lst.type.ttype()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        lst, index = inputs
        output_storage[0][0] = lst[int(index)]


class Append(Op):
    """A new list: ``lst`` followed by ``item``."""

    __props__ = ()

    def make_node(self, lst: Any, item: Any) -> Apply:
        _check_list(lst, "append")
        item = _as_element(item)
        if item.type != lst.type.ttype:
            raise TypeError(f"append: item has type {item.type}, the list holds {lst.type.ttype}")
        return Apply(self, [lst, item], [lst.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        lst, item = inputs
        output_storage[0][0] = [*lst, item]


def _check_list(lst: Any, who: str) -> None:
    if not isinstance(getattr(lst, "type", None), TypedListType):
        raise TypeError(f"{who}: expected a typed list variable, got {lst!r}")


def make_list(items: Sequence[Any]) -> TypedListVariable:
    """A typed list variable holding ``items`` (variables of one Type)."""
    return MakeList()(*items)


def length(lst: Any) -> Variable:
    """The number of elements of ``lst``."""
    return Length()(lst)


def getitem(lst: Any, index: Any) -> Variable:
    """Element ``index`` of ``lst``."""
    return GetItem()(lst, index)


def append(lst: Any, item: Any) -> TypedListVariable:
    """``lst`` with ``item`` added at the end."""
    return Append()(lst, item)
