"""Products as trees, for rules that pair factors across a product: PyTensor's
``parse_mul_tree`` / ``compute_mul`` / ``simplify_mul`` / ``perform_sigm_times_exp``
/ ``is_1pexp`` (``pytensor.tensor.rewriting.math``).

A tree is ``[negated, leaf]`` or ``[negated, [subtree, ...]]``: ``-(x * y)`` is
``[True, [[False, x], [False, y]]]``.  A leaf of ``None`` is the factor 1 (a
factor a rule consumed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Variable
from opgraph.scalar.arith import Add, Mul, Neg
from opgraph.scalar.math import Exp, Sigmoid
from opgraph.tensor.math import mul, neg, sigmoid
from opgraph_rewrites.utils import const_value, is_elemwise

__all__ = ["compute_mul", "is_1pexp", "parse_mul_tree", "perform_sigm_times_exp",
           "simplify_mul"]


def parse_mul_tree(root: Variable) -> list[Any]:
    """The tree of the product ``root`` (negations folded into the flags)."""
    if is_elemwise(root, Neg):
        negated, inner = parse_mul_tree(root.owner.inputs[0])
        return [not negated, inner]
    if is_elemwise(root, Mul):
        return [False, [parse_mul_tree(i) for i in root.owner.inputs]]
    return [False, root]


def compute_mul(tree: list[Any]) -> Variable:
    """The expression of a tree (its inverse: ``parse_mul_tree(compute_mul(t)) == t``)."""
    negated, inputs = tree
    if inputs is None:
        raise ValueError("compute_mul: a tree of the factor 1 has no expression; "
                         "call simplify_mul first")
    out = mul(*[compute_mul(t) for t in inputs]) if isinstance(inputs, list) else inputs
    return neg(out) if negated else out


def simplify_mul(tree: list[Any]) -> list[Any]:
    """The tree without factors 1 (``None`` leaves); one-factor products collapse."""
    negated, inputs = tree
    if not isinstance(inputs, list):
        return [negated, inputs]
    kept = [s for s in (simplify_mul(t) for t in inputs) if s[1] is not None]
    if not kept:
        return [negated, None]
    if len(kept) == 1:
        inner_neg, inner = kept[0]
        return [negated != inner_neg, inner]
    return [negated, kept]


def _is_neg_of(a: Variable, b: Variable) -> bool:
    """``a`` is ``-b`` or ``b`` is ``-a``."""
    return (is_elemwise(a, Neg) and a.owner.inputs[0] is b) or (
        is_elemwise(b, Neg) and b.owner.inputs[0] is a)


def _leaves(tree: list[Any]) -> list[list[Any]]:
    """The leaf lists of a tree, left to right (they are changed in place)."""
    if isinstance(tree[1], list):
        return [leaf for t in tree[1] for leaf in _leaves(t)]
    return [tree]


def perform_sigm_times_exp(tree: list[Any], *_args: Any, **_kwargs: Any) -> bool:
    """Pair factors of a product in place: ``sigmoid(x) * exp(-x) -> sigmoid(-x)`` and
    ``sigmoid(-x) * exp(x) -> sigmoid(x)`` (exact identities of the logistic function).

    Factors are visited left to right; a pair's result takes the place of the
    earlier factor (with both signs combined) and may pair again.  Returns
    whether anything changed.
    """
    seen: list[list[Any]] = []
    changed = False
    for leaf in _leaves(tree):
        var = leaf[1]
        if not (is_elemwise(var, Exp) or is_elemwise(var, Sigmoid)):
            continue
        for earlier in seen:
            other = earlier[1]
            if other is None:
                continue
            a, b = var.owner.inputs[0], other.owner.inputs[0]
            if not _is_neg_of(a, b):
                continue
            if is_elemwise(var, Exp) == is_elemwise(other, Exp):
                continue  # two exps or two sigmoids: not this rule's pairs
            result = sigmoid(a if is_elemwise(var, Exp) else b)  # sigmoid of exp's argument
            earlier[0] = earlier[0] != leaf[0]
            earlier[1] = result
            leaf[0], leaf[1] = False, None
            changed = True
            break
        else:
            seen.append(leaf)
    return changed


def is_1pexp(t: Variable, only_process_constants: bool = True) -> tuple[bool, Variable] | None:
    """``(False, x)`` when ``t`` is ``1 + exp(x)`` (terms in any order), else None.

    ``only_process_constants`` reads only literal constants as the 1; otherwise
    constants seen through broadcasts count too.
    """
    if not is_elemwise(t, Add):
        return None
    consts, rest = [], []
    for term in t.owner.inputs:
        value = (np.asarray(term.data) if hasattr(term, "data") else
                 (None if only_process_constants else const_value(term)))
        if value is not None and np.asarray(value).size == 1:
            consts.append(float(np.asarray(value).reshape(())))
        else:
            rest.append(term)
    if len(rest) != 1 or not consts or not np.isclose(sum(consts), 1.0):
        return None
    if not is_elemwise(rest[0], Exp):
        return None
    return False, rest[0].owner.inputs[0]
