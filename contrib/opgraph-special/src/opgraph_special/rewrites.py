"""A stabilising rewrite: log(erfc(x)) without underflow for large x.

erfc(x) underflows to 0 for x > ~26.5, so log(erfc(x)) becomes -inf although
its value is about -x^2 - log(x sqrt(pi)).  Because erfc(x) = erfcx(x) exp(-x^2),

    log(erfc(x)) = log(erfcx(x)) - x^2               (used for x > 0)
    log(erfc(x)) = log(2) + log1p(-erfc(-x) / 2)     (used for x <= 0)

The second form avoids erfcx(x) overflowing for very negative x (where it grows
like 2 exp(x^2)) and does not contain log(erfc(.)), so the rewrite cannot
match its own output.  Each branch sees its argument clipped to its side of 0,
so neither computes an overflowing or infinite intermediate.
"""

from __future__ import annotations

import math
from typing import Any

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.elemwise import Elemwise
from opgraph_special import scalar as special_scalar
from opgraph_special import tensor as special

__all__ = ["local_log_erfc", "register_rewrites", "stable_log_erfc"]


def stable_log_erfc(x: Any) -> Any:
    """log(erfc(x)) as a graph that is finite for every finite x."""
    zero = pt.constant(0.0, dtype=x.type.dtype)
    pos = pt.maximum(x, zero)
    neg = pt.minimum(x, zero)
    right = pt.log(special.erfcx(pos)) - pos * pos
    left = pt.constant(math.log(2.0), dtype=x.type.dtype) + pt.log1p(
        pt.constant(-0.5, dtype=x.type.dtype) * special.erfc(-neg)
    )
    return pt.switch(pt.gt(x, zero), right, left)


def _is_elemwise_of(var: Any, scalar_op: Any) -> bool:
    owner = var.owner
    return owner is not None and isinstance(owner.op, Elemwise) and (
        owner.op.scalar_op == scalar_op and not owner.op.inplace_pattern
    )


@node_rewriter([Elemwise])
def local_log_erfc(fgraph: Any, node: Any) -> Any:
    """log(erfc(x)) -> switch(x > 0, log(erfcx(x)) - x**2, log(2) + log1p(-erfc(-x)/2))."""
    if node.op.scalar_op != ps.log or node.op.inplace_pattern:
        return False
    (arg,) = node.inputs
    if not _is_elemwise_of(arg, special_scalar.erfc):
        return False
    (x,) = arg.owner.inputs
    if x.type.dtype not in ("float32", "float64"):
        return False
    new = stable_log_erfc(x)
    old = node.outputs[0]
    if new.type != old.type:
        new = old.type.filter_variable(new)
    return [new]


def register_rewrites(db: Any) -> None:
    """Register in the ``stabilize`` phase (run by FAST_RUN and ``including("stabilize")``)."""
    target = db["stabilize"] if _has_phase(db, "stabilize") else db
    target.register("special_log_erfc", local_log_erfc, "fast_run", "stabilize", "special")


def _has_phase(db: Any, name: str) -> bool:
    try:
        db[name]
    except (KeyError, TypeError, IndexError):
        return False
    return True
