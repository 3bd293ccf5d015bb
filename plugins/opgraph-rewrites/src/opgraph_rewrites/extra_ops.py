"""What PyTensor code imports from ``pytensor.tensor.rewriting.extra_ops``: ``unique``
of a value that was only broadcast or repeated is ``unique`` of the value itself.

Each lift applies to the flattened form (``axis=None``) with no index, inverse or
counts output (those refer to the positions of the broadcast value), and only when
the broadcast or repeat provably leaves at least one copy of every element: a length
0 (or a repeat count 0) would make the result empty where ``unique(x)`` is not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scalar.structural import Second
from opgraph.tensor.creation import Alloc
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.extra_ops import Repeat, Unique
from opgraph.tensor.shape import static_int
from opgraph_rewrites.utils import elemwise_of, keep_type

__all__ = [
    "extra_ops_rewriters",
    "local_Unique_Alloc_lift",
    "local_Unique_Repeat_lift",
    "local_Unique_scalar",
    "local_Unique_second",
    "local_Unique_second_lift",
]


def _plain_unique(node: Apply) -> bool:
    """``unique(x)`` of the flattened values with the sorted values as its only output."""
    op = node.op
    return (op.axis is None and not op.return_index and not op.return_inverse
            and not op.return_counts)


def _unique_of(node: Apply, x: Variable) -> list[Variable] | None:
    new = keep_type(node.outputs[0], Unique(axis=None)(x))
    return [new] if new is not None else None


@node_rewriter([Unique], name="local_Unique_scalar")
def local_Unique_scalar(fgraph: Any, node: Apply) -> Any:
    """unique(s) -> s[None] for a scalar ``s`` (one element is its own sorted set)."""
    (x,) = node.inputs
    if x.type.ndim != 0 or not _plain_unique(node):
        return None
    new = DimShuffle(input_ndim=0, new_order=("x",))(x)
    # the (1,)-shaped vector is a more precise type than unique's (None,): it may replace it
    return [new] if node.outputs[0].type.is_super(new.type) else None


@node_rewriter([Unique], name="local_Unique_Alloc_lift")
def local_Unique_Alloc_lift(fgraph: Any, node: Apply) -> Any:
    """unique(alloc(x, *shape)) -> unique(x) when every length of ``shape`` is known > 0."""
    src = node.inputs[0].owner
    if src is None or not isinstance(src.op, Alloc) or not _plain_unique(node):
        return None
    x, *dims = src.inputs
    if not all((static_int(d) or 0) > 0 for d in dims):
        return None
    return _unique_of(node, x)


@node_rewriter([Unique], name="local_Unique_Repeat_lift")
def local_Unique_Repeat_lift(fgraph: Any, node: Apply) -> Any:
    """unique(repeat(x, r, axis)) -> unique(x) when every repeat count is a constant > 0."""
    src = node.inputs[0].owner
    if src is None or not isinstance(src.op, Repeat) or not _plain_unique(node):
        return None
    x, repeats = src.inputs
    if not isinstance(repeats, Constant):
        return None
    counts = np.asarray(repeats.data)
    if counts.size == 0 or not np.all(counts > 0):
        return None
    return _unique_of(node, x)


@node_rewriter([Unique], name="local_Unique_second_lift")
def local_Unique_second_lift(fgraph: Any, node: Apply) -> Any:
    """unique(second(a, x)) -> unique(x) when ``a``'s static shape is known and non-empty
    (the broadcast then holds every element of ``x``, possibly repeated)."""
    src = elemwise_of(node.inputs[0], Second)
    if src is None or not _plain_unique(node):
        return None
    a, x = src.inputs
    if not all(n is not None and n > 0 for n in a.type.shape):
        return None
    return _unique_of(node, x)


def extra_ops_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase."""
    return [
        ("local_Unique_scalar", local_Unique_scalar, ()),
        ("local_Unique_Alloc_lift", local_Unique_Alloc_lift, ()),
        ("local_Unique_Repeat_lift", local_Unique_Repeat_lift, ()),
        ("local_Unique_second_lift", local_Unique_second_lift, ()),
    ]

#: PyTensor's name for the same rewrite.
local_Unique_second = local_Unique_second_lift
