"""``local_log_prod_to_sum_log`` (stabilize, specialize): log(prod(x)) -> sum(log(x)).

log(prod(exp(z))) -> sum(z) directly.
Applied when every factor is known non-negative: ``abs(z)``, ``exp(z)``,
``sqr(z)``, ``z ** 2`` or a variable tagged ``tag.positive``; also
log(abs(prod(z))) -> sum(log(abs(z))).  A stabilising rewrite (as
``log(exp(x)) -> x``): the sum of logs stays finite where the product
overflows to inf or underflows to 0; a zero factor still gives -inf and inf
times 0 still NaN.
"""

from __future__ import annotations

from typing import Any

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.exceptions import NotScalarConstantError
from opgraph.tensor.reduction import Prod

__all__ = ["local_log_prod_to_sum_log", "register_logprod_rewrites"]


def _scalar_op(var: Variable) -> Any:
    node = var.owner
    if node is None or not isinstance(node.op, Elemwise):
        return None
    return node.op.scalar_op


def _non_negative(var: Variable) -> bool:
    if getattr(var.tag, "positive", False):
        return True
    op = _scalar_op(var)
    if isinstance(op, (ps.Abs, ps.Exp, ps.Sqr)):
        return True
    if isinstance(op, ps.Pow):
        try:
            exponent = pt.get_underlying_scalar_constant_value(var.owner.inputs[1])
        except NotScalarConstantError:
            return False
        return float(exponent) == 2.0
    return False


def _prod_of(var: Variable) -> Apply | None:
    node = var.owner
    if node is None or not isinstance(node.op, Prod) or node.op.no_zeros_in_input:
        return None
    return node


@node_rewriter([Elemwise])
def local_log_prod_to_sum_log(fgraph: Any, node: Apply) -> Any:
    """log(prod(x)) -> sum(log(x)) for non-negative x; log(abs(prod(z))) likewise."""
    if not isinstance(node.op.scalar_op, ps.Log):
        return None
    (arg,) = node.inputs
    prod = _prod_of(arg)
    if prod is not None and isinstance(_scalar_op(prod.inputs[0]), ps.Exp):
        terms = prod.inputs[0].owner.inputs[0]  # log(exp(z)) is z
    elif prod is not None and _non_negative(prod.inputs[0]):
        terms = pt.log(prod.inputs[0])
    elif isinstance(_scalar_op(arg), ps.Abs) and _prod_of(arg.owner.inputs[0]) is not None:
        prod = _prod_of(arg.owner.inputs[0])
        terms = pt.log(pt.abs(prod.inputs[0]))
    else:
        return None
    new = pt.sum(terms, axis=prod.op.axis)
    old = node.outputs[0]
    if new.type.dtype != old.type.dtype:
        new = pt.cast(new, old.type.dtype)
    return [new]


def register_logprod_rewrites(db: Any) -> None:
    """In stabilize and specialize (PyTensor's phases), tags fast_run and linalg."""
    for phase in ("stabilize", "specialize"):
        db[phase].register("local_log_prod_to_sum_log", local_log_prod_to_sum_log,
                           "fast_run", "linalg")
