"""PyTensor's rewrites of small vectors and shape assertions (``tensor.rewriting.basic``
and ``.shape``): sums and joins of ``MakeVector``, consecutive ``specify_shape``,
unary Elemwise under a reshape.

Exact: a sum of at most eight elements adds them left to right (what NumPy's
reduction does below its pairwise block), and merged shape assertions keep
every check (a dimension both assert becomes an equality check).
"""

from __future__ import annotations

from typing import Any

import opgraph.scalar as ps
from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.raise_op import CheckAndRaise
from opgraph.tensor.basic import cast, constant
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.join import Join, join
from opgraph.tensor.math import eq
from opgraph.tensor.reduction import Sum
from opgraph.tensor.shape import MakeVector, Reshape, SpecifyShape, specify_shape, static_int
from opgraph_rewrites.utils import ew, keep_type

__all__ = [
    "basic_vector_rewriters",
    "local_join_make_vector",
    "local_merge_consecutive_specify_shape",
    "local_reshape_lift",
    "local_sum_make_vector",
    "local_useless_dimshuffle_makevector",
]

_check_dims = CheckAndRaise(AssertionError, "specify_shape: two assertions of one dimension differ")
#: NumPy adds up to this many elements one after the other (then pairwise).
_SEQUENTIAL_SUM = 8


def _fixed(node: Apply, new: Any) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else None


def _given_dims(node: Apply) -> list[Any]:
    """The dimensions a SpecifyShape node asserts, None where it asserts nothing."""
    dims = iter(node.inputs[1:])
    return [next(dims) if has else None for has in node.op.given]


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    va, vb = static_int(a), static_int(b)
    return va is not None and va == vb


@node_rewriter([SpecifyShape], name="local_merge_consecutive_specify_shape")
def local_merge_consecutive_specify_shape(fgraph: Any, node: Apply) -> Any:
    """specify_shape(specify_shape(x, s1), s2) -> specify_shape(x, s), each dimension
    asserted by either; one asserted differently by both is checked to agree."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, SpecifyShape):
        return None
    merged = []
    for a, b in zip(_given_dims(inner), _given_dims(node)):
        if a is None or b is None or _same(a, b):
            merged.append(b if b is not None else a)
        else:
            merged.append(_check_dims(b, eq(a, b)))
    return _fixed(node, specify_shape(inner.inputs[0], merged))


@node_rewriter([Reshape], name="local_reshape_lift")
def local_reshape_lift(fgraph: Any, node: Apply) -> Any:
    """reshape(unary(x), s) -> unary(reshape(x, s)) (elementwise: order is irrelevant)."""
    inner = node.inputs[0].owner
    if (inner is None or not isinstance(inner.op, Elemwise) or len(inner.inputs) != 1
            or len(inner.outputs) != 1):
        return None
    reshaped = node.op(inner.inputs[0], node.inputs[1])
    return _fixed(node, inner.op(reshaped))


@node_rewriter([Sum], name="local_sum_make_vector")
def local_sum_make_vector(fgraph: Any, node: Apply) -> Any:
    """sum(make_vector(a, b, c)) -> a + b + c when the sum accumulates in its output
    dtype (a float32 sum accumulating in float64 is left alone)."""
    mv = node.inputs[0].owner
    if mv is None or not isinstance(mv.op, MakeVector) or node.op.axis not in (None, (0,)):
        return None
    elems = mv.inputs
    if len(elems) > _SEQUENTIAL_SUM:
        return None
    out_dtype = node.outputs[0].type.dtype
    if not elems:
        return _fixed(node, constant(0, dtype=out_dtype))
    if len(elems) == 1:  # one element is its own sum, whatever the accumulator
        return _fixed(node, cast(elems[0], out_dtype))
    acc = node.op.accumulate_dtype(mv.outputs[0].type.dtype)
    if acc != out_dtype:
        return None  # a wider accumulator rounds once at the end: not the same additions
    total = ew(ps.add)(*[cast(e, acc) for e in elems])
    return _fixed(node, cast(total, out_dtype))


@node_rewriter([Join], name="local_join_make_vector")
def local_join_make_vector(fgraph: Any, node: Apply) -> Any:
    """join(0, make_vector(a), make_vector(b, c), v) -> join(0, make_vector(a, b, c), v)."""
    tensors = node.inputs[1:]
    if node.outputs[0].type.ndim != 1:
        return None

    def mv_of(t: Any) -> Any:
        o = t.owner
        return o if o is not None and isinstance(o.op, MakeVector) and \
            o.op.dtype == node.outputs[0].type.dtype else None

    new: list[Any] = []
    changed = False
    for t in tensors:
        cur = mv_of(t)
        prev = mv_of(new[-1]) if new else None
        if cur is not None and prev is not None:
            new[-1] = MakeVector(cur.op.dtype)(*prev.inputs, *cur.inputs)
            changed = True
        else:
            new.append(t)
    if not changed:
        return None
    return _fixed(node, new[0] if len(new) == 1 else join(node.inputs[0], *new))


@node_rewriter([DimShuffle], name="local_useless_dimshuffle_makevector")
def local_useless_dimshuffle_makevector(fgraph: Any, node: Apply) -> Any:
    """make_vector(a).dimshuffle(()) -> a (the one element, as a 0-d tensor)."""
    mv = node.inputs[0].owner
    if mv is None or not isinstance(mv.op, MakeVector) or len(mv.inputs) != 1:
        return None
    if node.outputs[0].type.ndim != 0:
        return None
    return _fixed(node, mv.inputs[0])


def basic_vector_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """(name, rewriter, extra tags) per phase, PyTensor's placement."""
    both = [("local_reshape_lift", local_reshape_lift, ()),
            ("local_sum_make_vector", local_sum_make_vector, ()),
            ("local_join_make_vector", local_join_make_vector, ()),
            ("local_useless_dimshuffle_makevector", local_useless_dimshuffle_makevector, ())]
    return {
        "canonicalize": [(n, r, ("fast_compile",)) for n, r, _ in both] + [
            ("local_merge_consecutive_specify_shape", local_merge_consecutive_specify_shape,
             ("fast_compile",))],
        "specialize": both,
    }
