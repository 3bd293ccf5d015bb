"""PyTensor's simplifications of powers, roots and exponentials
(``tensor.rewriting.math``): ``x**0``, ``x**1``, ``1**x``; ``log(sqrt(x))``;
``sqr(sqrt(x))``; ``x - (-c)``; products and quotients of exponentials and of
powers of one base.

The first four are exact. The exponential and power ones compute the same
function in fewer operations: results agree to rounding, and a product that
overflowed in between (``exp(800) * exp(-799)``) becomes finite.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.graph.basic import Apply, Constant
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.math import ge, switch
from opgraph_rewrites.utils import const_value, elemwise_of, ew, is_elemwise, keep_type

__all__ = [
    "local_div_exp_to_mul_exp",
    "local_log_sqrt",
    "local_mul_exp_to_exp_add",
    "local_mul_pow_to_pow_add",
    "local_pow_canonicalize",
    "local_sqrt_sqr",
    "local_sub_neg_to_add",
    "math_more_rewriters",
]


def _fixed(node: Apply, new: Any) -> Any:
    out = keep_type(node.outputs[0], new, refs=node.inputs)
    return [out] if out is not None else None


def _const(value: float, like: Any) -> Constant:
    dtype = like.type.dtype
    return like.type.clone(shape=(1,) * like.type.ndim).make_constant(
        np.full((1,) * like.type.ndim, value, dtype=dtype))


@node_rewriter([Elemwise], name="local_pow_canonicalize")
def local_pow_canonicalize(fgraph: Any, node: Apply) -> Any:
    """x ** 0 -> 1, x ** 1 -> x, 1 ** x -> 1 (broadcast to the power's shape)."""
    if not is_elemwise(node, ps.Pow):
        return None
    base, exponent = node.inputs
    e, b = const_value(exponent), const_value(base)
    out = node.outputs[0]
    if (e is not None and e == 0) or (b is not None and b == 1):
        return _fixed(node, _const(1, out))
    if e is not None and e == 1:
        return _fixed(node, base)
    return None


def _input_of_nested(node: Apply, outer: type, inner: type) -> Any:
    """``x`` when ``node`` is ``outer(inner(x))`` (both elementwise), else None."""
    if not is_elemwise(node, outer):
        return None
    found = elemwise_of(node.inputs[0], inner)
    return None if found is None else found.inputs[0]


@node_rewriter([Elemwise], name="local_log_sqrt")
def local_log_sqrt(fgraph: Any, node: Apply) -> Any:
    """log(sqrt(x)) -> 0.5 * log(x)."""
    x = _input_of_nested(node, ps.Log, ps.Sqrt)
    if x is None:
        return None
    out = node.outputs[0]
    return _fixed(node, ew(ps.mul)(_const(0.5, out), ew(ps.log)(x)))


@node_rewriter([Elemwise], name="local_sqrt_sqr")
def local_sqrt_sqr(fgraph: Any, node: Apply) -> Any:
    """sqr(sqrt(x)) -> switch(x >= 0, x, nan) (sqrt(sqr(x)) -> abs(x) is a pattern)."""
    x = _input_of_nested(node, ps.Sqr, ps.Sqrt)
    if x is None:
        return None
    out = node.outputs[0]
    zero = x.type.clone(dtype="int8", shape=(1,) * x.type.ndim).make_constant(
        np.zeros((1,) * x.type.ndim, dtype="int8"))
    return _fixed(node, switch(ge(x, zero), x, _const(np.nan, out)))


@node_rewriter([Elemwise], name="local_sub_neg_to_add")
def local_sub_neg_to_add(fgraph: Any, node: Apply) -> Any:
    """x - (-y) -> x + y, and x - c -> x + (-c) for a constant c < 0 (exact)."""
    if not is_elemwise(node, ps.Sub):
        return None
    x, y = node.inputs
    neg = elemwise_of(y, ps.Neg)
    if neg is not None:
        return _fixed(node, ew(ps.add)(x, neg.inputs[0]))
    if isinstance(y, Constant):
        data = np.asarray(y.data)
        if data.size and np.issubdtype(data.dtype, np.floating) and np.all(data < 0):
            return _fixed(node, ew(ps.add)(x, y.type.make_constant(-data)))
    return None


def _merge_factors(node: Apply, kind: type, combine: Any) -> Any:
    """Multiply out factors ``kind(...)`` of a product (or quotient) with ``combine``."""
    if is_elemwise(node, ps.TrueDiv):
        num, den = (elemwise_of(v, kind) for v in node.inputs)
        if num is None or den is None:
            return None
        return combine([num], [den])
    if not is_elemwise(node, ps.Mul):
        return None
    hits = [elemwise_of(v, kind) for v in node.inputs]
    found = [h for h in hits if h is not None]
    rest = [v for v, h in zip(node.inputs, hits) if h is None]
    if len(found) < 2:
        return None
    merged = combine(found, [])
    if merged is None:
        return None
    return merged if not rest else ew(ps.mul)(merged, *rest)


def _signed_sum(plus: list[Any], minus: list[Any]) -> Any:
    """sum(plus) - sum(minus); a ``-b`` term in ``plus`` is subtracted as ``b``."""
    pos, neg = [], list(minus)
    for term in plus:
        inner = elemwise_of(term, ps.Neg)
        (neg if inner is not None else pos).append(inner.inputs[0] if inner is not None
                                                   else term)
    if pos:
        total = ew(ps.add)(*pos) if len(pos) > 1 else pos[0]
    else:
        total, neg = ew(ps.neg)(neg[0]), neg[1:]
    for term in neg:
        total = ew(ps.sub)(total, term)
    return total


def _exp_of_sum(up: list[Apply], down: list[Apply]) -> Any:
    return ew(ps.exp)(_signed_sum([n.inputs[0] for n in up], [n.inputs[0] for n in down]))


@node_rewriter([Elemwise], name="local_mul_exp_to_exp_add")
def local_mul_exp_to_exp_add(fgraph: Any, node: Apply) -> Any:
    """exp(a) * exp(b) -> exp(a + b); exp(a) / exp(b) -> exp(a - b)."""
    new = _merge_factors(node, ps.Exp, _exp_of_sum)
    return None if new is None else _fixed(node, new)


def _pow_of_sum(up: list[Apply], down: list[Apply]) -> Any:
    base = up[0].inputs[0]
    if any(n.inputs[0] is not base for n in [*up, *down]):
        return None
    return ew(ps.pow)(base, _signed_sum([n.inputs[1] for n in up], [n.inputs[1] for n in down]))


@node_rewriter([Elemwise], name="local_mul_pow_to_pow_add")
def local_mul_pow_to_pow_add(fgraph: Any, node: Apply) -> Any:
    """a**x * a**y -> a**(x + y); a**x / a**y -> a**(x - y) (one base)."""
    new = _merge_factors(node, ps.Pow, _pow_of_sum)
    return None if new is None else _fixed(node, new)


@node_rewriter([Elemwise], name="local_div_exp_to_mul_exp")
def local_div_exp_to_mul_exp(fgraph: Any, node: Apply) -> Any:
    """a / exp(b) -> a * exp(-b): a multiplication, which may meet other exponentials."""
    if not is_elemwise(node, ps.TrueDiv):
        return None
    a, d = node.inputs
    den = elemwise_of(d, ps.Exp)
    if den is None or elemwise_of(a, ps.Exp) is not None:
        return None
    inverse = ew(ps.exp)(ew(ps.neg)(den.inputs[0]))
    value = const_value(a)
    if value is not None and value == 1:
        return _fixed(node, inverse)
    return _fixed(node, ew(ps.mul)(a, inverse))


def math_more_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """(name, rewriter, extra tags) per phase, PyTensor's placement."""
    return {
        "canonicalize": [
            ("local_pow_canonicalize", local_pow_canonicalize, ("fast_compile",)),
            ("local_sqrt_sqr", local_sqrt_sqr, ("fast_compile",)),
            ("local_sub_neg_to_add", local_sub_neg_to_add, ("fast_compile",)),
        ],
        "specialize": [
            ("local_log_sqrt", local_log_sqrt, ()),
            ("local_sqrt_sqr", local_sqrt_sqr, ()),
            ("local_sub_neg_to_add", local_sub_neg_to_add, ()),
            ("local_mul_exp_to_exp_add", local_mul_exp_to_exp_add, ()),
            ("local_mul_pow_to_pow_add", local_mul_pow_to_pow_add, ()),
            ("local_div_exp_to_mul_exp", local_div_exp_to_mul_exp, ()),
        ],
    }
