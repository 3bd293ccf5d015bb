"""PyTensor's ``pytensor.typed_list``: symbolic Python lists of one element Type.

``make_list([a, b])`` builds a list variable from variables of one Type;
``length``, ``getitem``, ``append``, ``extend``, ``insert``, ``remove``,
``reverse``, ``index_`` and ``count`` read it or build new lists from it.
"""

from opgraph.typed_list.basic import (
    Append,
    Count,
    Extend,
    GetItem,
    Index,
    Insert,
    Length,
    MakeList,
    Remove,
    Reverse,
    TypedListType,
    TypedListVariable,
    append,
    count,
    extend,
    getitem,
    index_,
    insert,
    length,
    make_list,
    remove,
    reverse,
)

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
