"""``exp(x) / (1 + exp(x)) -> sigmoid(x)`` and ``c / (1 + exp(x)) -> c * sigmoid(-x)``.

PyTensor's ``local_exp_over_1_plus_exp`` (``tensor.rewriting.math``).  Written
out, the logistic function overflows to nan for large ``x`` (inf / inf);
sigmoid does not.  PyMC runs it in its logprob rewrites to introduce sigmoids
before canonicalization.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scalar.arith import Mul, Neg
from opgraph.scalar.math import Exp
from opgraph.tensor.math import mul, neg, sigmoid, true_div
from opgraph_rewrites.mul_tree import is_1pexp
from opgraph_rewrites.utils import is_elemwise, keep_type

__all__ = ["local_exp_over_1_plus_exp"]


def _factors(var: Variable) -> tuple[bool, list[Variable]]:
    """``var`` as ``(negated, factors)`` of a product, negations folded into the flag."""
    if is_elemwise(var, Neg):
        negated, factors = _factors(var.owner.inputs[0])
        return not negated, factors
    if is_elemwise(var, Mul):
        negated, factors = False, []
        for term in var.owner.inputs:
            n, f = _factors(term)
            negated ^= n
            factors.extend(f)
        return negated, factors
    return False, [var]


def _product(factors: list[Variable]) -> Variable | None:
    if not factors:
        return None
    return factors[0] if len(factors) == 1 else mul(*factors)


@node_rewriter([true_div])
def local_exp_over_1_plus_exp(fgraph: Any, node: Any) -> list[Variable] | None:
    """Each ``1 + exp(t)`` factor of the denominator becomes a sigmoid in the numerator."""
    num_neg, num = _factors(node.inputs[0])
    den_neg, den = _factors(node.inputs[1])
    exps = {f.owner.inputs[0]: f for f in num if is_elemwise(f, Exp)}
    sigmoids, rest_den = [], []
    for factor in den:
        found = is_1pexp(factor)
        if found is None:
            rest_den.append(factor)
            continue
        t = found[1]
        if t in exps:  # exp(t) / (1 + exp(t))
            num.remove(exps.pop(t))
            sigmoids.append(sigmoid(t))
        else:  # 1 / (1 + exp(t))
            sigmoids.append(sigmoid(neg(t)))
    if not sigmoids:
        return None
    new = _product(sigmoids + num)
    if num_neg ^ den_neg:
        new = neg(new)
    denominator = _product(rest_den)
    if denominator is not None:
        new = true_div(new, denominator)
    result = keep_type(node.outputs[0], new, node.inputs)
    return None if result is None else [result]
