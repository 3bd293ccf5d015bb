"""Small exact or stabilising rewrites PyTensor's ``tensor.rewriting.math`` names.

Each keeps values and gradients (or only gains precision, turning an overflow into
the finite answer): ``1 - erf(x) -> erfc(x)``, ``sum(-x) -> -sum(x)``,
``abs(x * y) -> abs(x) * abs(y)``, ``log(exp(x) + exp(y))`` without overflow...
The special functions (erf, polygamma) come from a plugin: they are matched by
their scalar op's name and built through ``opgraph.tensor.math``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import opgraph.scalar as ps
import opgraph.tensor.math as tm
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.reduction import Sum
from opgraph_rewrites.utils import const_value, elemwise_of, ew, keep_type, tensor_constant

__all__ = [
    "ERF_RULES",
    "local_abs_lift",
    "local_abs_merge",
    "local_add_neg_to_sub",
    "local_add_remove_zeros",
    "local_div_by_one",
    "local_div_to_reciprocal",
    "local_mul_specialize",
    "local_neg_div_neg",
    "local_sum_of_neg_to_neg_of_sum",
    "math_named_rewriters",
]


def _named(var: Variable, name: str) -> Apply | None:
    """``var``'s owner when it is an Elemwise whose scalar op is called ``name``."""
    node = var.owner
    if node is None or not isinstance(node.op, Elemwise):
        return None
    return node if getattr(node.op.scalar_op, "name", None) == name else None


def _neg_arg(var: Variable) -> Variable | None:
    node = elemwise_of(var, ps.Neg)
    return node.inputs[0] if node is not None else None


def _const_plus_term(node: Apply) -> tuple[float, int, Variable] | None:
    """``(c, s, t)`` with ``node = c + s * t`` for a scalar constant ``c`` and ``s = +-1``
    (two-input add or sub, ``t`` possibly under a neg)."""
    if len(node.inputs) != 2:
        return None
    a, b = node.inputs
    if elemwise_of(node.outputs[0], ps.Sub) is not None:
        ca, cb = const_value(a), const_value(b)
        if ca is not None and cb is None:
            return float(ca), -1, b
        if cb is not None and ca is None:
            return -float(cb), 1, a
        return None
    if elemwise_of(node.outputs[0], ps.Add) is None:
        return None
    for c_var, t in ((a, b), (b, a)):
        c = const_value(c_var)
        if c is not None and const_value(t) is None:
            inner = _neg_arg(t)
            return (float(c), -1, inner) if inner is not None else (float(c), 1, t)
    return None


def _fixed(node: Apply, new: Variable) -> Any:
    fixed = keep_type(node.outputs[0], new, refs=node.inputs)
    return [fixed] if fixed is not None else False


def _erf_rule(name: str, c: float, s: int, inner: str, negated_arg: bool,
              build: Callable[[Variable], Variable]) -> NodeRewriter:
    """``c + s * inner(x)`` (``inner(-x)`` when ``negated_arg``) -> ``build(x)``."""

    @node_rewriter([ew(ps.add), ew(ps.sub)], name=name)
    def rewrite(fgraph: Any, node: Apply) -> Any:
        found = _const_plus_term(node)
        if found is None or found[0] != c or found[1] != s:
            return False
        fnode = _named(found[2], inner)
        if fnode is None or not node.outputs[0].type.dtype.startswith("float"):
            return False
        x = fnode.inputs[0]
        if negated_arg:
            x = _neg_arg(x)
            if x is None:
                return False
        return _fixed(node, build(x))

    return rewrite


def _erf_rules() -> list[NodeRewriter]:
    def erf(x: Variable) -> Variable:
        return tm.erf(x)

    def erfc(x: Variable) -> Variable:
        return tm.erfc(x)

    return [
        _erf_rule("local_one_minus_erf", 1.0, -1, "erf", False, erfc),  # 1 - erf(x)
        _erf_rule("local_one_plus_erf", 1.0, 1, "erf", False,  # 1 + erf(x) = erfc(-x)
                  lambda x: erfc(ew(ps.neg)(x))),
        _erf_rule("local_erf_minus_one", -1.0, 1, "erf", False,  # erf(x) - 1 = -erfc(x)
                  lambda x: ew(ps.neg)(erfc(x))),
        _erf_rule("local_one_minus_erfc", 1.0, -1, "erfc", False, erf),  # 1 - erfc(x)
        _erf_rule("local_erf_neg_minus_one", -1.0, 1, "erfc", True, erf),  # erfc(-x) - 1
    ]


#: The erf/erfc rules by their PyTensor names (one instance, registered in three phases).
ERF_RULES: dict[str, NodeRewriter] = {rw.name: rw for rw in _erf_rules()}


@node_rewriter([Sum], name="local_sum_of_neg_to_neg_of_sum")
def local_sum_of_neg_to_neg_of_sum(fgraph: Any, node: Apply) -> Any:
    """sum(-x) -> -sum(x): one negation of the (smaller) result."""
    x = _neg_arg(node.inputs[0])
    if x is None or x.type.dtype != node.outputs[0].type.dtype:
        return False
    return _fixed(node, ew(ps.neg)(node.op(x)))


def _is_float(node: Apply) -> bool:
    return node.outputs[0].type.dtype.startswith("float")


@node_rewriter([ew(ps.abs)], name="local_abs_lift")
def local_abs_lift(fgraph: Any, node: Apply) -> Any:
    """abs(x * y) -> abs(x) * abs(y), abs(x / y) -> abs(x) / abs(y) (floats: exact)."""
    inner = node.inputs[0].owner
    if not _is_float(node) or elemwise_of(node.inputs[0], ps.Mul, ps.TrueDiv) is None:
        return False
    return _fixed(node, inner.op(*[ew(ps.abs)(i) for i in inner.inputs]))


@node_rewriter([ew(ps.mul), ew(ps.true_div)], name="local_abs_merge")
def local_abs_merge(fgraph: Any, node: Apply) -> Any:
    """abs(x) * abs(y) -> abs(x * y) (also with a constant c >= 0 among the factors),
    abs(x) / abs(y) -> abs(x / y): one abs instead of several (floats: exact)."""
    if not _is_float(node):
        return False
    args, n_abs = [], 0
    for var in node.inputs:
        anode = elemwise_of(var, ps.Abs)
        if anode is not None:
            args.append(anode.inputs[0])
            n_abs += 1
            continue
        c = const_value(var)
        if c is None or not np.all(np.asarray(c) >= 0):
            return False
        args.append(var)
    if n_abs < 2 and not (n_abs == 1 and len(args) > 1):
        return False
    return _fixed(node, ew(ps.abs)(node.op(*args)))


@node_rewriter([ew(ps.add)], name="local_add_neg_to_sub")
def local_add_neg_to_sub(fgraph: Any, node: Apply) -> Any:
    """x + (-y) -> x - y and (-y) + x -> x - y (the same rounding)."""
    if len(node.inputs) != 2:
        return False
    a, b = node.inputs
    for first, second in ((a, b), (b, a)):
        y = _neg_arg(second)
        if y is not None:
            return _fixed(node, ew(ps.sub)(first, y))
    return False


@node_rewriter([ew(ps.neg)], name="local_neg_div_neg")
def local_neg_div_neg(fgraph: Any, node: Apply) -> Any:
    """-((-x) / y) -> x / y, and -(c / y) -> (-c) / y for a constant ``c``."""
    div = elemwise_of(node.inputs[0], ps.TrueDiv)
    if div is None:
        return False
    num, den = div.inputs
    x = _neg_arg(num)
    if x is not None:
        return _fixed(node, ew(ps.true_div)(x, den))
    c = const_value(num)
    if c is None or const_value(den) is not None:
        return False
    neg_c = tensor_constant(-np.asarray(c), num.type.dtype, num.type.ndim)
    return _fixed(node, ew(ps.true_div)(neg_c, den))


@node_rewriter([ew(ps.true_div)], name="local_div_by_one")
def local_div_by_one(fgraph: Any, node: Apply) -> Any:
    """x / 1 -> x."""
    c = const_value(node.inputs[1])
    if c is None or not np.all(np.asarray(c) == 1):
        return False
    return _fixed(node, node.inputs[0])


@node_rewriter([ew(ps.add)], name="local_add_remove_zeros")
def local_add_remove_zeros(fgraph: Any, node: Apply) -> Any:
    """x + 0 + y -> x + y (the zeros' broadcast and dtype are kept through the type)."""
    kept = [v for v in node.inputs
            if (c := const_value(v)) is None or not np.all(np.asarray(c) == 0)]
    if len(kept) == len(node.inputs):
        return False
    if not kept:
        return _fixed(node, node.inputs[0])
    new = kept[0] if len(kept) == 1 else node.op(*kept)
    return _fixed(node, new)


@node_rewriter([ew(ps.mul)], name="local_mul_specialize")
def local_mul_specialize(fgraph: Any, node: Apply) -> Any:
    """x * 1 * y -> x * y, x * -1 -> -x (exact). Unlike PyTensor's, ``x * 0`` is left
    alone: 0 is not NumPy's answer for an inf or NaN ``x``."""
    rest, negate, dropped = [], False, False
    for var in node.inputs:
        c = const_value(var)
        if c is not None and np.all(np.asarray(c) == 1):
            dropped = True
        elif c is not None and np.all(np.asarray(c) == -1):
            negate, dropped = not negate, True
        else:
            rest.append(var)
    if not dropped or not rest:
        return False
    new = rest[0] if len(rest) == 1 else node.op(*rest)
    return _fixed(node, ew(ps.neg)(new) if negate else new)


@node_rewriter([ew(ps.true_div)], name="local_div_to_reciprocal")
def local_div_to_reciprocal(fgraph: Any, node: Apply) -> Any:
    """1 / x -> reciprocal(x) (one op, the same rounding)."""
    c = const_value(node.inputs[0])
    if c is None or not np.all(np.asarray(c) == 1) or not _is_float(node):
        return False
    return _fixed(node, ew(ps.reciprocal)(node.inputs[1]))


def math_named_rewriters() -> dict[str, list[tuple[str, NodeRewriter, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags), in PyTensor's phases and with its tags."""
    erf_rules = list(ERF_RULES.values())
    return {
        "canonicalize": [
            *[(rw.name, rw, ("fast_compile",)) for rw in erf_rules],
            ("local_abs_lift", local_abs_lift, ("fast_compile",)),
            ("local_div_by_one", local_div_by_one, ("fast_compile",)),
        ],
        "stabilize": [(rw.name, rw, ()) for rw in erf_rules],
        "specialize": [
            *[(rw.name, rw, ()) for rw in erf_rules],
            ("local_sum_of_neg_to_neg_of_sum", local_sum_of_neg_to_neg_of_sum, ()),
            ("local_abs_merge", local_abs_merge, ()),
            ("local_add_neg_to_sub", local_add_neg_to_sub, ()),
            ("local_neg_div_neg", local_neg_div_neg, ()),
            ("local_add_remove_zeros", local_add_remove_zeros, ()),
            ("local_div_to_reciprocal", local_div_to_reciprocal, ()),
            ("local_mul_specialize", local_mul_specialize, ()),
        ],
    }

