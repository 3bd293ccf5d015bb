"""A function of its own partial inverse, written without the round trip.

``exp(softplus(x))`` is ``1 + exp(x)``, ``log1mexp(log(x))`` is ``log1p(-x)``:
one transcendental call and one rounding fewer.  Where the outer function
inverts the inner one only on part of the line, the rest keeps the NaN the
original gives (``switch(domain, simple, nan)``).

Table entries: (outer op, inner op class, build(x) on the domain, domain(x) or None).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.graph.basic import Apply, Variable, equal_computations
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph.tensor.basic import cast
from opgraph_rewrites.utils import elemwise_of, ew, keep_type, tensor_constant

__all__ = ["inverse_pair_rewriters"]


def _c(value: float, like: Variable) -> Variable:
    return tensor_constant(value, like.type.dtype, like.type.ndim)


def _bound(value: int, like: Variable) -> Variable:
    """A domain bound as the smallest integer constant (what ``x >= 0`` builds)."""
    return tensor_constant(value, "int8", like.type.ndim)


def _table() -> list[tuple[Any, type, Callable, Callable | None]]:
    E = ew
    exp, expm1, softplus, log1mexp = ps.exp, ps.expm1, ps.softplus, ps.log1mexp
    return [
        # log1p(expm1(x)) = x (as log(exp(x)) = x in canonicalize)
        (ps.log1p, ps.Expm1, lambda x: x, None),
        # exp(log(x)) = x for x >= 0
        (exp, ps.Log, lambda x: x, lambda x: E(ps.ge)(x, _bound(0, x))),
        # expm1(log(x)) = x - 1 for x >= 0
        (expm1, ps.Log, lambda x: E(ps.sub)(x, _c(1, x)), lambda x: E(ps.ge)(x, _bound(0, x))),
        # exp(log1p(x)) = x + 1 for x >= -1
        (exp, ps.Log1p, lambda x: E(ps.add)(x, _c(1, x)), lambda x: E(ps.ge)(x, _bound(-1, x))),
        # expm1(log1p(x)) = x for x >= -1
        (expm1, ps.Log1p, lambda x: x, lambda x: E(ps.ge)(x, _bound(-1, x))),
        # exp(softplus(x)) = 1 + exp(x)
        (exp, ps.Softplus, lambda x: E(ps.add)(_c(1, x), E(ps.exp)(x)), None),
        # expm1(softplus(x)) = exp(x)
        (expm1, ps.Softplus, lambda x: E(ps.exp)(x), None),
        # exp(log1mexp(x)) = 1 - exp(x) = -expm1(x) for x <= 0
        (exp, ps.Log1mexp, lambda x: E(ps.neg)(E(ps.expm1)(x)),
         lambda x: E(ps.le)(x, _bound(0, x))),
        # expm1(log1mexp(x)) = -exp(x) for x <= 0
        (expm1, ps.Log1mexp, lambda x: E(ps.neg)(E(ps.exp)(x)),
         lambda x: E(ps.le)(x, _bound(0, x))),
        # softplus(log(x)) = log1p(x) for x >= 0
        (softplus, ps.Log, lambda x: E(ps.log1p)(x), lambda x: E(ps.ge)(x, _bound(0, x))),
        # log1mexp(log(x)) = log1p(-x) for x >= 0
        (log1mexp, ps.Log, lambda x: E(ps.log1p)(E(ps.neg)(x)),
         lambda x: E(ps.ge)(x, _bound(0, x))),
        # log1mexp(log1mexp(x)) = x for x <= 0
        (log1mexp, ps.Log1mexp, lambda x: x, lambda x: E(ps.le)(x, _bound(0, x))),
    ]


def _guarded(x: Variable, domain: Callable) -> bool:
    """``x`` is ``switch(domain(y), y, nan)`` already (an inner pair's result): inside the
    domain or NaN, so a second switch would change nothing."""
    node = elemwise_of(x, ps.Switch)
    if node is None:
        return False
    cond, y, other = node.inputs
    nan = getattr(other, "data", None)
    if nan is None or not np.all(np.isnan(np.asarray(nan, dtype=float))):
        return False
    return equal_computations([cond], [domain(y)])


def _make(outer: Any, inner: type, build: Callable, domain: Callable | None) -> NodeRewriter:
    @node_rewriter([ew(outer)], name=f"local_{outer.name}_of_{inner.__name__.lower()}")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        arg = elemwise_of(node.inputs[0], inner)
        out = node.outputs[0]
        if arg is None or not out.type.dtype.startswith("float"):
            return False
        x = arg.inputs[0]
        if x.type.dtype != out.type.dtype:
            if x.type.dtype.startswith(("float", "complex")):
                return False
            x = cast(x, out.type.dtype)  # an integer x: the float it was upcast to
        new = build(x)
        if domain is not None and not _guarded(x, domain):
            new = ew(ps.switch)(domain(x), new, _c(np.nan, x))
        fixed = keep_type(out, new, refs=[x])
        return [fixed] if fixed is not None else False

    return rewrite


def inverse_pair_rewriters() -> list[tuple[str, NodeRewriter, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase."""
    out = []
    for outer, inner, build, domain in _table():
        rw = _make(outer, inner, build, domain)
        # PyTensor's names for the group (its local_exp_log / local_exp_log_nan_switch)
        tags = ("local_exp_log",) if domain is None else ("local_exp_log",
                                                          "local_exp_log_nan_switch")
        out.append((rw.name, rw, tags))
    return out
