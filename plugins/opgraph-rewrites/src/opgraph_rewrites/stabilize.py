"""Numerically stable forms: the same function, computed without cancellation or overflow."""

from __future__ import annotations

from typing import Any

from opgraph.graph.rewriting.basic import NodeRewriter
from opgraph.graph.rewriting.pattern import PatternNodeRewriter
from opgraph_rewrites.utils import const_value, ew, keep_type

__all__ = ["stabilize_rewriters"]


def _rules() -> list[tuple[str, Any, Any]]:
    import opgraph.scalar as ps

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
        # log1p(-sigmoid(x)) = -softplus(x)
        ("log1p_neg_sigmoid", (E(ps.log1p), (E(ps.neg), (E(ps.sigmoid), "x"))),
         (E(ps.neg), (E(ps.softplus), "x"))),
    ]


def _log_softmax_rewriter() -> NodeRewriter | None:
    try:
        import opgraph.scalar as ps
        from opgraph.tensor.special import LogSoftmax, Softmax
    except ImportError:
        return None
    from opgraph.graph.rewriting.basic import node_rewriter

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


def stabilize_rewriters() -> list[tuple[str, NodeRewriter, tuple[str, ...]]]:
    out: list[tuple[str, NodeRewriter, tuple[str, ...]]] = []
    for name, i, o in _rules():
        rw = PatternNodeRewriter(i, o, allow_multiple_clients=True, name=name,
                                 get_constant=const_value, fix_type=keep_type)
        out.append((name, rw, ()))
    lsm = _log_softmax_rewriter()
    if lsm is not None:
        out.append(("log_softmax", lsm, ()))
    return out
