"""Numerically stable forms: the same function, computed without cancellation or overflow.

Pattern rules are data (``_rules``); the two structural ones (log of a softmax,
log of a sum of exponentials) are node rewriters below; products of
exponentials and sigmoids (written-out sigmoids, and the gradients ``grad``
builds from them) are in ``stable_products``.  Rules tagged "finite" turn an
inf or NaN into the finite result and run in FAST_COMPILE too.
"""

from __future__ import annotations

from typing import Any

import opgraph.scalar as ps
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph.graph.rewriting.pattern import PatternNodeRewriter
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.reduction import Max, Sum
from opgraph.tensor.special import LogSoftmax, Softmax
from opgraph_rewrites.stable_products import (
    ExpSigmoidProduct,
    local_distribute_stable_product,
    local_x_minus_x_sigmoid,
)
from opgraph_rewrites.utils import const_value, elemwise_of, ew, keep_type, tensor_constant

__all__ = ["stabilize_rewriters"]


def _rules() -> list[tuple[str, Any, Any]]:
    E = ew
    return [
        # log(1 + x) = log1p(x), exact near 0
        ("log1p_from_log_add", (E(ps.log), (E(ps.add), "x", 1)), (E(ps.log1p), "x")),
        ("log1p_from_log_add_r", (E(ps.log), (E(ps.add), 1, "x")), (E(ps.log1p), "x")),
        # log(1 - x) = log1p(-x)
        ("log1p_from_log_sub", (E(ps.log), (E(ps.sub), 1, "x")), (E(ps.log1p), (E(ps.neg), "x"))),
        # exp(x) - 1 = expm1(x), exact near 0
        ("expm1_from_exp_sub", (E(ps.sub), (E(ps.exp), "x"), 1), (E(ps.expm1), "x")),
        ("expm1_from_exp_add", (E(ps.add), (E(ps.exp), "x"), -1), (E(ps.expm1), "x")),
        ("expm1_from_exp_add_r", (E(ps.add), -1, (E(ps.exp), "x")), (E(ps.expm1), "x")),
        # log(sigmoid(x)) = -softplus(-x), no log(0) for large negative x
        ("log_sigmoid", (E(ps.log), (E(ps.sigmoid), "x")),
         (E(ps.neg), (E(ps.softplus), (E(ps.neg), "x")))),
        # log(1 - sigmoid(x)) = -softplus(x)
        ("log1m_sigmoid", (E(ps.log), (E(ps.sub), 1, (E(ps.sigmoid), "x"))),
         (E(ps.neg), (E(ps.softplus), "x"))),
        # log1p(exp(x)) = softplus(x), no overflow for large x
        ("softplus_from_log1p_exp", (E(ps.log1p), (E(ps.exp), "x")), (E(ps.softplus), "x")),
        # log(1 + exp(x)) = softplus(x) (directly: FAST_COMPILE has no log1p rule)
        ("softplus_from_log_add_exp", (E(ps.log), (E(ps.add), 1, (E(ps.exp), "x"))),
         (E(ps.softplus), "x")),
        ("softplus_from_log_add_exp_r", (E(ps.log), (E(ps.add), (E(ps.exp), "x"), 1)),
         (E(ps.softplus), "x")),
        # log1p(-sigmoid(x)) = -softplus(x)
        ("log1p_neg_sigmoid", (E(ps.log1p), (E(ps.neg), (E(ps.sigmoid), "x"))),
         (E(ps.neg), (E(ps.softplus), "x"))),
        # log(1 - exp(x)) = log1mexp(x): no log(0) near 0, no 1 - 1 for x << 0
        ("log1mexp_from_log_sub", (E(ps.log), (E(ps.sub), 1, (E(ps.exp), "x"))),
         (E(ps.log1mexp), "x")),
        ("log1mexp_from_log1p", (E(ps.log1p), (E(ps.neg), (E(ps.exp), "x"))),
         (E(ps.log1mexp), "x")),
        ("log1mexp_from_expm1", (E(ps.log), (E(ps.neg), (E(ps.expm1), "x"))),
         (E(ps.log1mexp), "x")),
        # -(-x) = x: the rules above wrap their argument in a neg (canonicalize ran before)
        ("stabilize_neg_neg", (E(ps.neg), (E(ps.neg), "x")), "x"),
        # 1 - sigmoid(x) = sigmoid(-x), no cancellation for large x
        ("one_minus_sigmoid", (E(ps.sub), 1, (E(ps.sigmoid), "x")),
         (E(ps.sigmoid), (E(ps.neg), "x"))),
        ("one_plus_neg_sigmoid", (E(ps.add), 1, (E(ps.neg), (E(ps.sigmoid), "x"))),
         (E(ps.sigmoid), (E(ps.neg), "x"))),
        ("one_plus_neg_sigmoid_r", (E(ps.add), (E(ps.neg), (E(ps.sigmoid), "x")), 1),
         (E(ps.sigmoid), (E(ps.neg), "x"))),
    ]


def _log_softmax_rewriter() -> NodeRewriter | None:
    @node_rewriter([ew(ps.log)], name="log_softmax")
    def log_softmax(fgraph: Any, node: Any) -> Any:
        """log(softmax(x, axis)) = log_softmax(x, axis), no log(0) on underflow."""
        (x,) = node.inputs
        sm = x.owner
        if sm is None or not isinstance(sm.op, Softmax):
            return False
        new = LogSoftmax(axis=sm.op.axis)(sm.inputs[0])
        fixed = keep_type(node.outputs[0], new)
        return [fixed] if fixed is not None else False

    return log_softmax


def _through_dimshuffles(var: Any) -> tuple[Any, list[Any]]:
    """``var`` with its DimShuffles peeled off, and those DimShuffle ops (outermost first)."""

    ops = []
    while var.owner is not None and isinstance(var.owner.op, DimShuffle):
        ops.append(var.owner.op)
        var = var.owner.inputs[0]
    return var, ops


def _is_max_shifted(arg: Any) -> bool:
    """``arg`` is ``a - f(max(a))``: already the stable form (stops the rewrite repeating)."""

    sub = elemwise_of(arg, ps.Sub)
    if sub is None:
        return False
    a, shift = sub.inputs
    for _ in range(6):
        shift, _ops = _through_dimshuffles(shift)
        node = shift.owner
        if node is None:
            return False
        if isinstance(node.op, Max):
            return node.inputs[0] is a
        switch = elemwise_of(shift, ps.Switch)
        if switch is None:
            return False
        shift = switch.inputs[2]
    return False


def _logsumexp_rewriter() -> NodeRewriter:
    @node_rewriter([ew(ps.log)], name="local_logsumexp")
    def logsumexp(fgraph: Any, node: Any) -> Any:
        """log(sum(exp(x), axes)) = m + log(sum(exp(x - m), axes)), m = max(x, axes)
        (0 where m is +-inf); keepdims DimShuffles between log and sum are kept."""
        out = node.outputs[0]
        if not out.type.dtype.startswith("float"):
            return False
        total, shuffles = _through_dimshuffles(node.inputs[0])
        red = total.owner
        if red is None or not isinstance(red.op, Sum):
            return False
        exp_node = elemwise_of(red.inputs[0], ps.Exp)
        if exp_node is None:
            return False
        x = exp_node.inputs[0]
        if not x.type.dtype.startswith("float") or _is_max_shifted(x):
            return False
        ndim = x.type.ndim
        axes = red.op.axis if red.op.axis is not None else tuple(range(ndim))
        top = Max(axis=axes)(x)
        zero = tensor_constant(0, top.type.dtype, 0)
        safe = ew(ps.switch)(ew(ps.isinf)(top), zero, top)
        kept = iter(range(top.type.ndim))
        keep_order = tuple("x" if i in axes else next(kept) for i in range(ndim))
        safe_keep = DimShuffle(input_ndim=top.type.ndim, new_order=keep_order)(safe)
        shifted = red.op(ew(ps.exp)(ew(ps.sub)(x, safe_keep)))
        new = ew(ps.add)(ew(ps.log)(shifted), safe)
        for op in reversed(shuffles):
            new = op(new)
        fixed = keep_type(out, new, refs=node.inputs)
        return [fixed] if fixed is not None else False

    return logsumexp


#: Rules that turn an inf/NaN into a finite value (the others only gain precision):
#: tagged "finite", FAST_COMPILE runs them too.
_PRECISION_ONLY = ("log1p_from", "expm1_from", "stabilize_neg_neg")  # canonicalize has --x


def stabilize_rewriters() -> list[tuple[str, NodeRewriter, tuple[str, ...]]]:
    """(name, rewriter, extra tags); the tag "finite" marks the rules FAST_COMPILE runs too."""
    out: list[tuple[str, NodeRewriter, tuple[str, ...]]] = []
    for name, i, o in _rules():
        rw = PatternNodeRewriter(i, o, allow_multiple_clients=True, name=name,
                                 get_constant=const_value, fix_type=keep_type)
        out.append((name, rw, () if name.startswith(_PRECISION_ONLY) else ("finite",)))
    lsm = _log_softmax_rewriter()
    if lsm is not None:
        out.append(("log_softmax", lsm, ("finite",)))
    out.append(("local_logsumexp", _logsumexp_rewriter(), ("finite",)))
    out.append(("local_exp_sigmoid_product", ExpSigmoidProduct(), ("finite",)))
    out.append(("local_x_minus_x_sigmoid", local_x_minus_x_sigmoid, ("finite",)))
    out.append(("local_distribute_stable_product", local_distribute_stable_product,
                ("finite",)))
    return out
