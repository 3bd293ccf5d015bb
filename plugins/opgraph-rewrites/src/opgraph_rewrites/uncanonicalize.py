"""What PyTensor code imports from ``pytensor.tensor.rewriting.uncanonicalize``.

Rules that undo a normal form for speed: ``min(-x) -> -max(x)`` and
``-min(x) -> max(-x)`` (negation is exact, so the result is bit-identical,
NaN included), and DimShuffles that only add leading length-1 axes folded
into the Alloc or Reshape next to them.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scalar.arith import Neg
from opgraph.tensor.creation import Alloc, alloc
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.indexing import SliceSpec, split_inputs
from opgraph.tensor.math import neg
from opgraph.tensor.reduction import Max, Min
from opgraph.tensor.shape import Reshape, static_int
from opgraph.tensor.subtensor import Subtensor, get_item
from opgraph.tensor.variable import constant
from opgraph_rewrites.shape import local_useless_expand_dims_in_reshape
from opgraph_rewrites.utils import is_elemwise, keep_type, single_client

__all__ = [
    "local_alloc_dimshuffle",
    "local_dimshuffle_alloc",
    "local_dimshuffle_subtensor",
    "local_min_of_neg",
    "local_reshape_dimshuffle",
    "uncanonicalize_rewriters",
]


def _fixed(node: Apply, new: Any) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else False


@node_rewriter([Min, Elemwise], name="local_min_of_neg")
def local_min_of_neg(fgraph: Any, node: Apply) -> Any:
    """min(-x) -> -max(x); -min(x) -> max(-x) (and so -min(-x) -> max(x)).

    Floats only: integer negation wraps (-INT_MIN, unsigned), so there the
    two sides differ.
    """
    if not node.inputs[0].type.dtype.startswith("float"):
        return False
    if isinstance(node.op, Min):
        (x,) = node.inputs
        if is_elemwise(x, Neg):
            return _fixed(node, neg(Max(axis=node.op.axis)(x.owner.inputs[0])))
        return False
    if not is_elemwise(node, Neg):
        return False
    (m,) = node.inputs
    if is_elemwise(m, Neg):  # -(-max(x)), left by the rule applied to the inner min
        return _fixed(node, m.owner.inputs[0])
    if m.owner is None or not isinstance(m.owner.op, Min):
        return False
    if fgraph is not None and not single_client(fgraph, m):
        return False
    (x,) = m.owner.inputs
    inner = x.owner.inputs[0] if is_elemwise(x, Neg) else neg(x)
    return _fixed(node, Max(axis=m.owner.op.axis)(inner))


@node_rewriter([Alloc], name="local_alloc_dimshuffle")
def local_alloc_dimshuffle(fgraph: Any, node: Apply) -> Any:
    """alloc(x.dimshuffle('x', ..., 0, 1), *shape) -> alloc(x, *shape): alloc adds
    leading axes itself."""
    v = node.inputs[0]
    ds = v.owner
    if ds is None or not isinstance(ds.op, DimShuffle) or not ds.op.is_left_expand_dims:
        return False
    return _fixed(node, alloc(ds.inputs[0], *node.inputs[1:]))


@node_rewriter([DimShuffle], name="local_dimshuffle_alloc")
def local_dimshuffle_alloc(fgraph: Any, node: Apply) -> Any:
    """alloc(x, *shape).dimshuffle('x', ..., 0, 1, ...) -> alloc(x, 1, ..., *shape)."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Alloc) or not node.op.is_left_expand_dims:
        return False
    if fgraph is not None and not single_client(fgraph, node.inputs[0]):
        return False
    ones = [constant(1, dtype="int64")] * len(node.op.augment)
    return _fixed(node, alloc(inner.inputs[0], *ones, *inner.inputs[1:]))


@node_rewriter([Reshape], name="local_reshape_dimshuffle")
def local_reshape_dimshuffle(fgraph: Any, node: Apply) -> Any:
    """reshape(x.dimshuffle('x', 0, 'x', 1), shp) -> reshape(x, shp)."""
    return local_useless_expand_dims_in_reshape.transform(fgraph, node)


def _single_element(part: tuple, n: int | None) -> Any:
    """The index of the one element slice ``part`` takes from an axis of static length
    ``n`` (the output has length 1 there), or None when it is not known statically."""
    start, _, step = part
    step_value = 1 if step is None else static_int(step)
    if step_value is None or step_value == 0:
        return None
    if start is None:
        return 0 if step_value > 0 else -1
    value = static_int(start)
    if value is None or n is None or not -n <= value < n:
        return None
    return start


@node_rewriter([DimShuffle], name="local_dimshuffle_subtensor")
def local_dimshuffle_subtensor(fgraph: Any, node: Apply) -> Any:
    """x[a:b, i].dimshuffle(...) dropping length-1 axes -> x[a, i]: the Subtensor takes
    the single element of each dropped axis itself (when its position is known)."""
    op = node.op
    if op.augment or not op.drop or list(op.shuffle) != sorted(op.shuffle):
        return False
    sub = node.inputs[0].owner
    if sub is None or not isinstance(sub.op, Subtensor):
        return False
    x = sub.inputs[0]
    index: list[Any] = []
    out_axis = 0
    parts = split_inputs(sub.op.idx_spec, sub.inputs[1:])
    for in_axis, (entry, part) in enumerate(zip(sub.op.idx_spec, parts)):
        if not isinstance(entry, SliceSpec):
            index.append(part)
            continue
        if out_axis in op.drop:
            element = _single_element(part, x.type.shape[in_axis])
            if element is None:
                return False
            index.append(element)
        else:
            index.append(slice(*part))
        out_axis += 1
    for _ in range(len(sub.op.idx_spec), x.type.ndim):
        index.append(0 if out_axis in op.drop else slice(None))
        out_axis += 1
    return _fixed(node, get_item(x, tuple(index)))


def uncanonicalize_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the specialize phase."""
    return [
        ("local_min_of_neg", local_min_of_neg, ("uncanonicalize",)),
        ("local_alloc_dimshuffle", local_alloc_dimshuffle, ("uncanonicalize",)),
        ("local_dimshuffle_alloc", local_dimshuffle_alloc, ("uncanonicalize",)),
        ("local_dimshuffle_subtensor", local_dimshuffle_subtensor, ("uncanonicalize",)),
    ]
