"""PyTensor's ``pytensor.typed_list``: symbolic Python lists of one element Type.

``make_list([a, b])`` builds a list variable from variables of one Type;
``length``, ``getitem`` and ``append`` read and extend it.
"""

from opgraph.typed_list.basic import (
    Append,
    GetItem,
    Length,
    MakeList,
    TypedListType,
    TypedListVariable,
    append,
    getitem,
    length,
    make_list,
)

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
