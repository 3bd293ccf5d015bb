"""A stabilising rewrite: log(erfc(x)) without underflow for large x.

erfc(x) underflows to 0 for x > ~26.5, so log(erfc(x)) becomes -inf although
its value is about -x^2 - log(x sqrt(pi)).  Because erfc(x) = erfcx(x) exp(-x^2),

    log(erfc(x)) = log(erfcx(x)) - x^2               (used for x > 0)
    log(erfc(x)) = log(2) + log1p(-erfc(-x) / 2)     (used for x <= 0)

The second form avoids erfcx(x) overflowing for very negative x (where it grows
like 2 exp(x^2)) and does not contain log(erfc(.)), so the rewrite cannot
match its own output.  Each branch sees its argument clipped to its side of 0,
so neither computes an overflowing or infinite intermediate.

The gradient of log(erfc(x)) is ``-2/sqrt(pi) * exp(-x^2) / erfc(x)``: ``0/0``
once erfc underflows.  ``local_grad_log_erfc`` rewrites every product holding
``exp(-x^2) / erfc(x)`` to ``1 / erfcx(x)`` (finite: erfcx only overflows for
x << 0, where the ratio goes to 0 and so does ``1/inf``).
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

__all__ = ["local_grad_log_erfc", "local_log_erfc", "register_rewrites", "stable_log_erfc"]

#: Factors read from one product at most.
_MAX_FACTORS = 32


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


def _scalar_op(var: Any) -> Any:
    owner = var.owner
    if owner is None or not isinstance(owner.op, Elemwise) or owner.op.inplace_pattern:
        return None
    return owner.op.scalar_op


def _factors(out: Any) -> tuple[list[tuple[Any, int]], int] | None:
    """The product tree under ``out`` as (factor, +-1) pairs and a sign (-1 per neg)."""
    found: list[tuple[Any, int]] = []
    sign = 1
    stack = [(out, 1)]
    while stack:
        v, e = stack.pop()
        sop = _scalar_op(v)
        if len(found) + len(stack) > _MAX_FACTORS:
            return None
        if v.type.dtype != out.type.dtype or not isinstance(
            sop, ps.Mul | ps.TrueDiv | ps.Neg
        ):
            found.append((v, e))
        elif isinstance(sop, ps.Mul):
            stack.extend((i, e) for i in v.owner.inputs)
        elif isinstance(sop, ps.TrueDiv):
            stack.extend([(v.owner.inputs[0], e), (v.owner.inputs[1], -e)])
        else:
            sign = -sign
            stack.append((v.owner.inputs[0], e))
    return found, sign


def _exp_minus_square_of(var: Any) -> Any:
    """``x`` when ``var`` is ``exp(-x^2)`` (written neg(sqr(x)) or neg(x * x))."""
    if _scalar_op(var) != ps.exp:
        return None
    arg = var.owner.inputs[0]
    if _scalar_op(arg) != ps.neg:
        return None
    sq = arg.owner.inputs[0]
    sop = _scalar_op(sq)
    if sop == ps.sqr:
        return sq.owner.inputs[0]
    if sop == ps.mul and len(sq.owner.inputs) == 2 and sq.owner.inputs[0] is sq.owner.inputs[1]:
        return sq.owner.inputs[0]
    return None


def _absorbed(fgraph: Any, out: Any) -> bool:
    """The only client is a product of the same dtype: it reads these factors itself."""
    clients = fgraph.clients.get(out, ())
    if len(clients) != 1 or isinstance(clients[0][0], str):
        return False
    parent = clients[0][0]
    return (isinstance(parent.op, Elemwise) and parent.op.scalar_op in (ps.mul, ps.true_div)
            and parent.outputs[0].type.dtype == out.type.dtype)


@node_rewriter([Elemwise])
def local_grad_log_erfc(fgraph: Any, node: Any) -> Any:
    """exp(-x^2) / erfc(x) -> 1 / erfcx(x) inside a product (the gradient of log(erfc))."""
    if node.op.scalar_op not in (ps.mul, ps.true_div) or node.op.inplace_pattern:
        return False
    out = node.outputs[0]
    if out.type.dtype not in ("float32", "float64") or _absorbed(fgraph, out):
        return False
    read = _factors(out)
    if read is None:
        return False
    factors, sign = read
    for j, (d, f) in enumerate(factors):
        if f != -1 or not _is_elemwise_of(d, special_scalar.erfc):
            continue
        x = d.owner.inputs[0]
        for i, (v, g) in enumerate(factors):
            if g == 1 and _exp_minus_square_of(v) is x:
                factors[i] = (special.erfcx(x), -1)
                del factors[j]
                break
        else:
            continue
        num = [v for v, e in factors if e > 0]
        den = [v for v, e in factors if e < 0]
        one = pt.constant(1.0, dtype=out.type.dtype)
        top = pt.mul(*num) if len(num) > 1 else num[0] if num else one
        new = pt.true_div(top, pt.mul(*den) if len(den) > 1 else den[0])
        if sign < 0:
            new = pt.neg(new)
        if new.type != out.type:  # the same factors, only the static shape may differ
            try:
                new = out.type.filter_variable(new)
            except TypeError:
                return False
        return [new]
    return False


def register_rewrites(db: Any) -> None:
    """Register in the ``stabilize`` phase (run by FAST_RUN and ``including("stabilize")``);
    the gradient rewrite also in ``canonicalize`` for FAST_COMPILE (a NaN gradient is a
    wrong result in every mode)."""
    target = db["stabilize"] if _has_phase(db, "stabilize") else db
    target.register("special_log_erfc", local_log_erfc, "fast_run", "stabilize", "special")
    target.register("special_grad_log_erfc", local_grad_log_erfc, "fast_run", "stabilize",
                    "special")
    if _has_phase(db, "canonicalize"):
        db["canonicalize"].register("special_grad_log_erfc", local_grad_log_erfc,
                                    "fast_compile", "stabilize", "special")
        db["canonicalize"].register("special_log_erfc", local_log_erfc,
                                    "fast_compile", "stabilize", "special")


def _has_phase(db: Any, name: str) -> bool:
    try:
        db[name]
    except (KeyError, TypeError, IndexError):
        return False
    return True
