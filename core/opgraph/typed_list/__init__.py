"""PyTensor's ``pytensor.typed_list``: symbolic Python lists of one element Type.

``make_list([a, b])`` builds a list variable from variables of one Type;
``length``, ``getitem``, ``append``, ``extend``, ``insert``, ``remove``,
``reverse``, ``index_`` and ``count`` read it or build new lists from it.
"""

# what PyTensor's typed_list package re-exports from the rest of the library: the same objects
from opgraph.graph.basic import Apply, Constant, Variable  # noqa: F401
from opgraph.graph.op import Op  # noqa: F401
from opgraph.link.c.op import COp  # noqa: F401
from opgraph.tensor import lscalar  # noqa: F401
from opgraph.tensor.type_other import SliceType  # noqa: F401
from opgraph.tensor.variable import TensorVariable  # noqa: F401
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
    TypedListConstant,
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
