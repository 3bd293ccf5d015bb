"""Small exact rewrites PyTensor runs under these names (``tensor.rewriting.basic`` and
``.math``): joins of empty pieces, one-piece splits, cast chains, unary Elemwise of
an Alloc, reductions over no axis or over every axis, ``x * x``.

Each keeps values, dtypes and the errors of the graph it replaces (a one-piece
split still checks its size).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.raise_op import CheckAndRaise
from opgraph.scalar.structural import Cast
from opgraph.tensor.creation import Alloc, alloc
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.join import Join, Split, join
from opgraph.tensor.math import eq
from opgraph.tensor.reduction import CAReduce, Prod, Sum
from opgraph.tensor.shape import static_int
from opgraph_rewrites.utils import ew, is_elemwise, keep_type

__all__ = [
    "basic_more_rewriters",
    "local_alloc_unary",
    "local_cast_cast",
    "local_join_1",
    "local_join_empty",
    "local_mul_to_sqr",
    "local_sum_prod_all_to_none",
    "local_useless_reduce",
    "local_useless_split",
]

_check_split = CheckAndRaise(ValueError, "split: the sizes do not add up to the axis length")


def _fixed(node: Apply, new: Any) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else None


@node_rewriter([Join], name="local_join_1")
def local_join_1(fgraph: Any, node: Apply) -> Any:
    """join(axis, x) -> x."""
    if len(node.inputs) != 2:
        return None
    return _fixed(node, node.inputs[1])


@node_rewriter([Join], name="local_join_empty")
def local_join_empty(fgraph: Any, node: Apply) -> Any:
    """join(axis, x, empty, y) -> join(axis, x, y) for pieces of static length 0 there."""
    axis = static_int(node.inputs[0])
    if axis is None:
        return None
    tensors = node.inputs[1:]
    ndim = node.outputs[0].type.ndim
    axis = axis + ndim if axis < 0 else axis
    kept = [t for t in tensors if t.type.shape[axis] != 0]
    if len(kept) == len(tensors) or not kept:
        return None
    new = kept[0] if len(kept) == 1 else join(node.inputs[0], *kept)
    return _fixed(node, new)


@node_rewriter([Split], name="local_useless_split")
def local_useless_split(fgraph: Any, node: Apply) -> Any:
    """split(x, [n], 1, axis) -> x, still checking that n is x's length on the axis."""
    if node.op.len_splits != 1:
        return None
    x, axis, splits = node.inputs
    ax = static_int(axis)
    if ax is None:
        return None
    size = splits[0]
    if x.type.shape[ax] is not None and static_int(size) == x.type.shape[ax]:
        return _fixed(node, x)
    return _fixed(node, _check_split(x, eq(size, x.shape[ax])))


def _cast_of(var: Any) -> Any:
    node = var.owner
    if node is None or not is_elemwise(node, Cast):
        return None
    return node


def _value_preserving(d0: np.dtype, d1: np.dtype) -> bool:
    """Every value of dtype ``d0`` is exactly a value of ``d1``."""
    if d0.kind == "b":
        return True
    if not np.can_cast(d0, d1, "safe"):
        return False
    if d0.kind == d1.kind or (d0.kind == "f" and d1.kind == "c"):
        return True
    if d0.kind in "iu" and d1.kind in "fc":  # the integer fits the mantissa
        mantissa = np.finfo(d1).nmant + 1
        return d0.itemsize * 8 - (d0.kind == "i") <= mantissa
    return d0.kind == "u" and d1.kind == "i"


@node_rewriter([Elemwise], name="local_cast_cast")
def local_cast_cast(fgraph: Any, node: Apply) -> Any:
    """cast(cast(x, d1), d2) -> cast(x, d2) when the first cast keeps every value of
    ``x`` exactly (an upcast within a kind, float -> complex, small integers -> float)
    and the second rounds by value (all one kind, or into a float or complex)."""
    if not is_elemwise(node, Cast):
        return None
    inner = _cast_of(node.inputs[0])
    if inner is None:
        return None
    x = inner.inputs[0]
    d0, d1 = np.dtype(x.type.dtype), np.dtype(inner.outputs[0].type.dtype)
    d2 = np.dtype(node.outputs[0].type.dtype)
    # into an integer or bool, an out-of-range float converts differently from an
    # integer (wrap-around): only casts into floats and complexes may change kind
    same_kind = d0.kind == d1.kind == d2.kind
    if not _value_preserving(d0, d1) or not (same_kind or d2.kind in "fc"):
        return None
    if d0 == d2:
        return _fixed(node, x)
    return _fixed(node, node.op(x))


@node_rewriter([Elemwise], name="local_alloc_unary")
def local_alloc_unary(fgraph: Any, node: Apply) -> Any:
    """unary(alloc(v, *shape)) -> alloc(unary(v), *shape): computed once per value."""
    if len(node.inputs) != 1 or len(node.outputs) != 1:
        return None
    a = node.inputs[0].owner
    if a is None or not isinstance(a.op, Alloc):
        return None
    v, *shape = a.inputs
    return _fixed(node, alloc(node.op(v), *shape))


@node_rewriter([CAReduce], name="local_useless_reduce")
def local_useless_reduce(fgraph: Any, node: Apply) -> Any:
    """A reduction over no axis is its input (cast to the output dtype)."""
    if node.op.axis != ():
        return None
    return _fixed(node, node.inputs[0])


@node_rewriter([Sum, Prod], name="local_sum_prod_all_to_none")
def local_sum_prod_all_to_none(fgraph: Any, node: Apply) -> Any:
    """Sum{axes=0..n-1} -> Sum{axes=None} (and Prod): the same reduction, one form."""
    axis = node.op.axis
    ndim = node.inputs[0].type.ndim
    if axis is None or ndim == 0 or sorted(axis) != list(range(ndim)):
        return None
    op = node.op
    if type(op) is Sum:
        new = Sum(None, op.dtype, op.acc_dtype)
    elif type(op) is Prod:
        new = Prod(None, op.dtype, op.acc_dtype, op.no_zeros_in_input)
    else:
        return None
    return _fixed(node, new(node.inputs[0]))


@node_rewriter([Elemwise], name="local_mul_to_sqr")
def local_mul_to_sqr(fgraph: Any, node: Apply) -> Any:
    """x * x -> sqr(x) (one multiplication, exact)."""
    if not is_elemwise(node, ps.Mul) or len(node.inputs) != 2:
        return None
    a, b = node.inputs
    if a is not b:
        return None
    return _fixed(node, ew(ps.sqr)(a))


def basic_more_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """(name, rewriter, extra tags) per phase, PyTensor's placement."""
    both = [("local_join_1", local_join_1, ()), ("local_join_empty", local_join_empty, ()),
            ("local_useless_split", local_useless_split, ()),
            ("local_cast_cast", local_cast_cast, ())]
    return {
        "canonicalize": [(n, r, ("fast_compile", *t)) for n, r, t in both] + [
            ("local_useless_reduce", local_useless_reduce,
             ("fast_compile", "local_cut_useless_reduce")),
            ("local_sum_prod_all_to_none", local_sum_prod_all_to_none, ("fast_compile",)),
        ],
        "specialize": [*both, ("local_alloc_unary", local_alloc_unary, ()),
                       ("local_mul_to_sqr", local_mul_to_sqr, ())],
    }
