"""What PyTensor code imports from ``pytensor.tensor.rewriting.basic``, and the rewrites
of that module opgraph did not have: useless switches, scalar/tensor round trips,
nested allocs, allocs of new length-1 dimensions, always-true assertions.

The plugin serves ``opgraph.tensor.rewriting`` with this package, so
``from opgraph.tensor.rewriting.basic import local_useless_alloc`` gives a
rewriter equal to the one the standard database runs under that name.
Every rewrite here keeps the replaced variable's type (``keep_type``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.compile.ops import ViewOp
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph.graph.rewriting.walking import in2out
from opgraph.raise_op import CheckAndRaise, assert_op
from opgraph.scalar.structural import Identity, Switch
from opgraph.scalar.type import upcast
from opgraph.tensor.basic import ScalarFromTensor, TensorFromScalar
from opgraph.tensor.creation import Alloc, alloc
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.math import eq, switch
from opgraph_rewrites.basic_join_diag import extract_diag_of_transpose, local_join_to_repeat
from opgraph_rewrites.basic_more import (
    local_alloc_unary,
    local_cast_cast,
    local_join_1,
    local_join_empty,
    local_useless_split,
)
from opgraph_rewrites.basic_vectors import local_join_make_vector, local_sum_make_vector
from opgraph_rewrites.canonicalize import local_useless_cast
from opgraph_rewrites.constant_folding import constant_folding
from opgraph_rewrites.fill import local_fill_sink
from opgraph_rewrites.pytensor_names import (
    local_second_sink,
    local_second_to_alloc,
    local_useless_fill,
)
from opgraph_rewrites.registering import (
    register_canonicalize,
    register_specialize,
    register_stabilize,
    register_uncanonicalize,
    register_useless,
)
from opgraph_rewrites.uncanonicalize import local_dimshuffle_alloc
from opgraph_rewrites.useless import is_dim_of
from opgraph_rewrites.useless import local_useless_alloc as _useless_alloc
from opgraph_rewrites.utils import const_value, keep_type, order_with_new_axes, tensor_constant

__all__ = [
    "assert_op",
    "basic_rewriters",
    "broadcasted_by",
    "constant_folding",
    "extract_diag_of_transpose",
    "get_simplified_shape",
    "is_an_upcast",
    "local_alloc_sink_dimshuffle",
    "local_alloc_unary",
    "local_cast_cast",
    "local_dimshuffle_alloc",
    "local_join_1",
    "local_join_empty",
    "local_join_make_vector",
    "local_join_to_repeat",
    "local_merge_alloc",
    "local_merge_switch_same_cond",
    "local_remove_all_assert",
    "local_remove_useless_assert",
    "local_scalar_tensor_scalar",
    "local_second_sink",
    "local_second_to_alloc",
    "local_sum_make_vector",
    "local_tensor_scalar_tensor",
    "local_useless_alloc",
    "local_useless_elemwise",
    "local_useless_fill",
    "local_useless_split",
    "local_useless_switch",
    "local_view_op",
    "register_canonicalize",
    "register_specialize",
    "register_stabilize",
    "register_uncanonicalize",
    "register_useless",
    "remove_tensor_copy",
    "topo_constant_folding",
    "topo_unconditional_constant_folding",
    "topological_second_sink",
    "unconditional_constant_folding",
]


def _constant_truth(var: Variable) -> bool | None:
    """True/False when every element of ``var`` is a known constant true/false
    (seen through broadcasts), else None."""
    if isinstance(var, Constant):
        data = np.asarray(var.data)
        if data.size == 0:
            return None
        if np.all(data):
            return True
        return False if not np.any(data) else None
    value = const_value(var)
    return None if value is None else bool(value)


def _broadcasts_onto(var: Variable, kept: Variable) -> bool:
    """Whether ``var`` broadcasts with ``kept`` whatever their run-time shapes (each of
    its dimensions is statically 1 or statically equal to ``kept``'s)."""
    vs, ks = var.type.shape, kept.type.shape
    if len(vs) > len(ks):
        return False
    return all(v == 1 or (v is not None and v == k) for v, k in zip(vs, ks[len(ks) - len(vs):]))


@node_rewriter([Elemwise], name="local_useless_switch")
def local_useless_switch(fgraph: Any, node: Apply) -> Any:
    """switch(c, a, b) -> a (c constant true) or b (c constant false); switch(c, a, a) -> a.

    The kept branch is broadcast against the other inputs and cast, so the
    result has the switch's exact type (and a condition that would change the
    shape keeps its effect).  Only when the dropped operands' static shapes show
    they broadcast with the kept one: otherwise the switch's shape error stays.
    """
    if not isinstance(node.op.scalar_op, Switch):
        return False
    cond, left, right = node.inputs
    out = node.outputs[0]
    truth = _constant_truth(cond)
    if truth is None and left is not right:
        return False
    kept = left if (truth is None or truth) else right
    other = [v for v in node.inputs if v is not kept]
    if truth is None and not all(_broadcasts_onto(dropped, kept) for dropped in other):
        # a condition array of unknown shape: it may broadcast the branch to a larger
        # shape or not broadcast at all; the switch keeps both effects
        return False
    conds = [c for dropped in other for c in _same_lengths(dropped, kept)]
    if None in conds:
        return False
    # the dropped branch's lengths, unknown until run time, must equal the kept one's
    # (the switch raises otherwise): asserted, without the selection
    checked = _check_switch_shapes(kept, *conds) if conds else kept
    new = keep_type(out, checked, refs=other)
    return [new] if new is not None else False


_check_switch_shapes = CheckAndRaise(
    ValueError, "switch: the branches' shapes do not broadcast together")


def _same_lengths(dropped: Variable, kept: Variable) -> list[Any]:
    """Run-time conditions under which ``dropped`` broadcasts onto ``kept`` (empty when
    the static shapes show it; ``[None]`` when a length-1 ``kept`` axis could grow)."""
    if _broadcasts_onto(dropped, kept):
        return []
    ds, ks = dropped.type.shape, kept.type.shape
    if len(ds) > len(ks):
        return [None]
    conds: list[Any] = []
    for i, d in enumerate(ds):
        j = len(ks) - len(ds) + i
        if d == 1 or (d is not None and d == ks[j]):
            continue
        if ks[j] == 1 or (d is not None and ks[j] is not None):
            return [None]  # kept would broadcast to the dropped length, or they differ
        conds.append(eq(dropped.shape[i], kept.shape[j]))
    return conds


def _switch_parts(var: Variable) -> tuple[Variable, Variable, Variable] | None:
    node = var.owner
    if node is None or not isinstance(node.op, Elemwise) or not isinstance(
            node.op.scalar_op, Switch):
        return None
    return tuple(node.inputs)  # type: ignore[return-value]


@node_rewriter([Elemwise], name="local_merge_switch_same_cond")
def local_merge_switch_same_cond(fgraph: Any, node: Apply) -> Any:
    """op(switch(c, a, b), switch(c, x, y)) -> switch(c, op(a, x), op(b, y)).

    Elementwise, so each element computes the same operation on the same
    values; both branches are still computed in full, so shape errors stay.
    """
    if isinstance(node.op.scalar_op, Switch) or len(node.inputs) < 2 or len(node.outputs) != 1:
        return False
    parts = [_switch_parts(i) for i in node.inputs]
    if any(p is None for p in parts):
        return False
    cond = parts[0][0]
    if any(p[0] is not cond for p in parts):
        return False
    op = Elemwise(node.op.scalar_op)
    new = switch(cond, op(*[p[1] for p in parts]), op(*[p[2] for p in parts]))
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else False


@node_rewriter([TensorFromScalar], name="local_tensor_scalar_tensor")
def local_tensor_scalar_tensor(fgraph: Any, node: Apply) -> Any:
    """tensor_from_scalar(scalar_from_tensor(t)) -> t."""
    s = node.inputs[0]
    if s.owner is None or not isinstance(s.owner.op, ScalarFromTensor):
        return False
    t = s.owner.inputs[0]
    return [t] if t.type == node.outputs[0].type else False


@node_rewriter([ScalarFromTensor], name="local_scalar_tensor_scalar")
def local_scalar_tensor_scalar(fgraph: Any, node: Apply) -> Any:
    """scalar_from_tensor(tensor_from_scalar(s)) -> s."""
    t = node.inputs[0]
    if t.owner is None or not isinstance(t.owner.op, TensorFromScalar):
        return False
    s = t.owner.inputs[0]
    return [s] if s.type == node.outputs[0].type else False


def _is_one(var: Variable) -> bool:
    value = const_value(var)
    return value is not None and value == 1


@node_rewriter([Alloc], name="local_merge_alloc")
def local_merge_alloc(fgraph: Any, node: Apply) -> Any:
    """alloc(alloc(m, *s1), *s2) -> alloc(m, *s2).

    Where the inner alloc gave a dimension a length other than 1, the outer
    length must equal it: the new alloc asserts that at run time.
    """
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Alloc):
        return False
    m, *inner_dims = inner.inputs
    outer_dims = list(node.inputs[1:])
    offset = len(outer_dims) - len(inner_dims)
    dims = list(outer_dims)
    for k, d_in in enumerate(inner_dims):
        d_out = outer_dims[offset + k]
        if d_in is d_out or _is_one(d_in):
            continue
        dims[offset + k] = assert_op(d_out, eq(d_out, d_in))
    new = keep_type(node.outputs[0], alloc(m, *dims))
    return [new] if new is not None else False


@node_rewriter([Alloc], name="local_alloc_sink_dimshuffle")
def local_alloc_sink_dimshuffle(fgraph: Any, node: Apply) -> Any:
    """alloc(x, 1, ..., *rest) -> dimshuffle(alloc(x, *rest)) for new dimensions of length 1.

    A new leading dimension of constant length 1 is a DimShuffle's ``'x'``;
    the alloc that remains disappears when it only restates ``x``'s shape.
    """
    x, *dims = node.inputs
    n_new = len(dims) - x.type.ndim
    dropped = [k for k in range(n_new) if _is_one(dims[k])]
    if not dropped:
        return False
    rest = [d for k, d in enumerate(dims) if k not in dropped]
    if len(rest) == x.type.ndim and all(is_dim_of(fgraph, d, x, k) for k, d in enumerate(rest)):
        core = x
    else:
        core = alloc(x, *rest)
    order = order_with_new_axes(len(dims), dropped)
    new = DimShuffle(input_ndim=core.type.ndim, new_order=order)(core)
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else False


@node_rewriter([CheckAndRaise], name="local_remove_useless_assert")
def local_remove_useless_assert(fgraph: Any, node: Apply) -> Any:
    """Drop conditions that are constant true; with none left, the value itself."""
    value, *conds = node.inputs
    kept = [c for c in conds if _constant_truth(c) is not True]
    if len(kept) == len(conds):
        return False
    if not kept:
        return [value]
    return [node.op(value, *kept)]


@node_rewriter([CheckAndRaise], name="local_remove_all_assert")
def local_remove_all_assert(fgraph: Any, node: Apply) -> Any:
    """Remove every assertion (unsafe: only when asked for by name or the 'unsafe' tag)."""
    return [node.inputs[0]]


@node_rewriter(None, name="unconditional_constant_folding")
def unconditional_constant_folding(fgraph: Any, node: Apply) -> Any:
    """Fold constant nodes even where the Op prefers not to (e.g. an Alloc output)."""
    if not node.inputs or not all(isinstance(i, Constant) for i in node.inputs):
        return False
    cells: list[list[Any]] = [[None] for _ in node.outputs]
    try:
        node.op.perform(node, [i.data for i in node.inputs], list(cells))
        return [var.type.make_constant(value) for var, (value,) in zip(node.outputs, cells)]
    except Exception:  # no usable perform, or a run-time error: leave it to run time
        return False


local_useless_alloc = _useless_alloc()
local_useless_elemwise = local_useless_cast()
topo_constant_folding = in2out(constant_folding, name="topo_constant_folding")
topo_unconditional_constant_folding = in2out(
    unconditional_constant_folding, name="topo_unconditional_constant_folding")
topological_second_sink = in2out(local_fill_sink(), name="topological_second_sink")


@node_rewriter([ViewOp], name="local_view_op")
def local_view_op(fgraph: Any, node: Apply) -> Any:
    """ViewOp(x) -> x (a view is the value itself)."""
    return [node.inputs[0]] if node.inputs[0].type == node.outputs[0].type else False


@node_rewriter([Elemwise], name="remove_tensor_copy")
def remove_tensor_copy(fgraph: Any, node: Apply) -> Any:
    """tensor_copy(x) -> x: an identity Elemwise copies nothing a graph needs."""
    if not isinstance(node.op.scalar_op, Identity):
        return False
    fixed = keep_type(node.outputs[0], node.inputs[0])
    return [fixed] if fixed is not None else False


def basic_rewriters() -> dict[str, list[tuple[str, NodeRewriter, tuple[str, ...]]]]:
    """(name, rewriter, extra tags) per phase, for :mod:`opgraph_rewrites.standard`."""
    both = [
        ("local_useless_switch", local_useless_switch, ("fast_compile", "shape_unsafe")),
        ("local_tensor_scalar_tensor", local_tensor_scalar_tensor, ("fast_compile",)),
        ("local_scalar_tensor_scalar", local_scalar_tensor_scalar, ("fast_compile",)),
        ("local_remove_useless_assert", local_remove_useless_assert, ("fast_compile",)),
    ]
    return {
        "canonicalize": [*both,
                         ("local_merge_alloc", local_merge_alloc, ()),
                         ("local_merge_switch_same_cond", local_merge_switch_same_cond, ()),
                         ("local_alloc_sink_dimshuffle", local_alloc_sink_dimshuffle, ()),
                         ("local_view_op", local_view_op, ("fast_compile",)),
                         ("remove_tensor_copy", remove_tensor_copy, ("fast_compile",))],
        "specialize": both,
    }


def broadcasted_by(x: Variable, y: Variable) -> bool:
    """``x`` would be broadcast against ``y`` in an Elemwise: it has fewer axes, or a
    static length 1 where ``y``'s length is not known to be 1."""
    bx, by = x.type.broadcastable, y.type.broadcastable
    if len(bx) < len(by):
        return True
    tail = bx[len(bx) - len(by):]
    return any(a and not b for a, b in zip(tail, by, strict=True))


def is_an_upcast(type1: str, type2: str) -> bool:
    """Casting dtype ``type1`` to ``type2`` loses nothing and changes the dtype (``int32``
    to ``float64`` is one, ``int64`` to ``float32`` is not)."""
    return type1 != type2 and upcast(type1, type2) == type2


def get_simplified_shape(x: Variable, *, fgraph: Any) -> tuple[Variable, ...]:
    """``x``'s lengths, simplest source first: the graph's ShapeFeature, then the
    static lengths of its type (int64 constants), then ``x.shape[i]``."""
    feature = getattr(fgraph, "shape_feature", None)
    if feature is not None:
        try:
            return tuple(feature.shape_of[x])
        except KeyError:
            pass
    return tuple(tensor_constant(n, "int64") if n is not None else x.shape[i]
                 for i, n in enumerate(x.type.shape))
