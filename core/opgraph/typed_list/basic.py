"""The list Type and the Ops that build and read lists (values are Python lists)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.op import Op
from opgraph.graph.type import Type
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "Append",
    "Count",
    "Extend",
    "GetItem",
    "Index",
    "Insert",
    "Length",
    "MakeList",
    "Remove",
    "Reverse",
    "TypedListConstant",
    "TypedListType",
    "TypedListVariable",
    "append",
    "count",
    "extend",
    "getitem",
    "index_",
    "insert",
    "length",
    "make_list",
    "remove",
    "reverse",
]


class TypedListVariable(Variable):
    """A symbolic list; ``len``-like and index access go through Ops."""

    def __getitem__(self, index: Any) -> Variable:
        return getitem(self, index)

    def append(self, item: Any) -> Variable:
        return append(self, item)

    def extend(self, other: Any) -> Variable:
        return extend(self, other)

    def insert(self, index: Any, item: Any) -> Variable:
        return insert(self, index, item)

    def remove(self, item: Any) -> Variable:
        return remove(self, item)

    def reverse(self) -> Variable:
        return reverse(self)

    def count(self, item: Any) -> Variable:
        return count(self, item)

    def ind(self, item: Any) -> Variable:
        """``list.index`` (named ``ind``: ``index`` is the Variable's output index)."""
        return index_(self, item)


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


class TypedListConstant(TypedListVariable, Constant):
    """A constant list (``TypedListType(t).make_constant([...])``), with the list methods."""


TypedListType.constant_type = TypedListConstant


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


def _item_of(lst: Variable, item: Any, who: str) -> Variable:
    item = _as_element(item)
    if item.type != lst.type.ttype:
        raise TypeError(f"{who}: item has type {item.type}, the list holds {lst.type.ttype}")
    return item


def _where(ttype: Type, lst: list, item: Any) -> list[int]:
    """The positions of the elements equal to ``item`` (the element Type's ``values_eq``)."""
    return [i for i, x in enumerate(lst) if ttype.values_eq(x, item)]


class Extend(Op):
    """A new list: ``lst`` followed by the elements of ``other`` (a list of the same Type)."""

    __props__ = ()

    def make_node(self, lst: Any, other: Any) -> Apply:
        _check_list(lst, "extend")
        _check_list(other, "extend")
        if other.type != lst.type:
            raise TypeError(f"extend: other has type {other.type}, expected {lst.type}")
        return Apply(self, [lst, other], [lst.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = [*inputs[0], *inputs[1]]


class Insert(Op):
    """A new list with ``item`` inserted before position ``index`` (as ``list.insert``)."""

    __props__ = ()

    def make_node(self, lst: Any, index: Any, item: Any) -> Apply:
        _check_list(lst, "insert")
        index = as_tensor_variable(index)
        if index.type.ndim != 0 or not index.type.dtype.startswith(("int", "uint")):
            raise TypeError(f"insert: index must be an integer scalar, got {index.type}")
        return Apply(self, [lst, index, _item_of(lst, item, "insert")], [lst.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        lst, index, item = inputs
        out = list(lst)
        out.insert(int(index), item)
        output_storage[0][0] = out


class Remove(Op):
    """A new list without the first element equal to ``item`` (ValueError if none is)."""

    __props__ = ()

    def make_node(self, lst: Any, item: Any) -> Apply:
        _check_list(lst, "remove")
        return Apply(self, [lst, _item_of(lst, item, "remove")], [lst.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        lst, item = inputs
        found = _where(node.inputs[0].type.ttype, lst, item)
        if not found:
            raise ValueError("remove: the item is not in the list")
        output_storage[0][0] = lst[: found[0]] + lst[found[0] + 1 :]


class Reverse(Op):
    """A new list with the elements in reverse order."""

    __props__ = ()

    def make_node(self, lst: Any) -> Apply:
        _check_list(lst, "reverse")
        return Apply(self, [lst], [lst.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = list(reversed(inputs[0]))


class Index(Op):
    """The position of the first element equal to ``item`` (int64; ValueError if none)."""

    __props__ = ()

    def make_node(self, lst: Any, item: Any) -> Apply:
        _check_list(lst, "index")
        return Apply(self, [lst, _item_of(lst, item, "index")], [TensorType("int64", ())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        found = _where(node.inputs[0].type.ttype, *inputs)
        if not found:
            raise ValueError("index: the item is not in the list")
        output_storage[0][0] = np.asarray(found[0], dtype="int64")


class Count(Op):
    """How many elements equal ``item`` (int64)."""

    __props__ = ()

    def make_node(self, lst: Any, item: Any) -> Apply:
        _check_list(lst, "count")
        return Apply(self, [lst, _item_of(lst, item, "count")], [TensorType("int64", ())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        found = _where(node.inputs[0].type.ttype, *inputs)
        output_storage[0][0] = np.asarray(len(found), dtype="int64")


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


def extend(lst: Any, other: Any) -> TypedListVariable:
    """``lst`` followed by the elements of ``other``."""
    return Extend()(lst, other)


def insert(lst: Any, index: Any, item: Any) -> TypedListVariable:
    """``lst`` with ``item`` inserted before ``index``."""
    return Insert()(lst, index, item)


def remove(lst: Any, item: Any) -> TypedListVariable:
    """``lst`` without its first element equal to ``item``."""
    return Remove()(lst, item)


def reverse(lst: Any) -> TypedListVariable:
    """``lst`` in reverse order."""
    return Reverse()(lst)


def index_(lst: Any, item: Any) -> Variable:
    """The position of the first element of ``lst`` equal to ``item``."""
    return Index()(lst, item)


def count(lst: Any, item: Any) -> Variable:
    """How many elements of ``lst`` equal ``item``."""
    return Count()(lst, item)
