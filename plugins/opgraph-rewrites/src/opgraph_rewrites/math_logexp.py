"""Log/exp and special-function rewrites PyTensor's ``tensor.rewriting.math`` names.

- ``logit(sigmoid(x)) -> x`` and ``sigmoid(logit(x)) -> x`` (``x`` in [0, 1]; NaN
  elsewhere, as the original gives);
- ``log(exp(x) - exp(y)) -> x + log1mexp(y - x)`` and ``log(exp(x) + exp(y))`` shifted
  by ``max(x, y)``: no overflow, no ``log(0)`` for far-apart arguments;
- ``polygamma(0, x) -> digamma(x)``, ``polygamma(1, x) -> tri_gamma(x)``.

``logit`` is ``log(x / (1 - x))`` (as ``opgraph.tensor.special.logit`` builds it);
polygamma comes from a plugin and is matched by its scalar op's name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
import opgraph.tensor.math as tm
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph.tensor.elemwise import Elemwise
from opgraph_rewrites.utils import const_value, elemwise_of, ew, keep_type, tensor_constant

__all__ = [
    "local_log_add_exp",
    "local_logit_sigmoid",
    "local_polygamma_to_digamma",
    "local_polygamma_to_tri_gamma",
    "local_sigmoid_logit",
    "logdiffexp_to_log1mexpdiff",
    "math_logexp_rewriters",
]


def _fixed(node: Apply, new: Variable, refs: Any = None) -> Any:
    fixed = keep_type(node.outputs[0], new, refs=node.inputs if refs is None else refs)
    return [fixed] if fixed is not None else False


def _is_float(node: Apply) -> bool:
    return node.outputs[0].type.dtype.startswith("float")


def _logit_arg(var: Variable) -> Variable | None:
    """``a`` when ``var`` is ``log(a / (1 - a))``."""
    log = elemwise_of(var, ps.Log)
    div = elemwise_of(log.inputs[0], ps.TrueDiv) if log is not None else None
    if div is None:
        return None
    a, den = div.inputs
    sub = elemwise_of(den, ps.Sub)
    if sub is None or sub.inputs[1] is not a:
        return None
    one = const_value(sub.inputs[0])
    return a if one is not None and np.all(np.asarray(one) == 1) else None


@node_rewriter([ew(ps.log)], name="local_logit_sigmoid")
def local_logit_sigmoid(fgraph: Any, node: Apply) -> Any:
    """logit(sigmoid(x)) -> x (finite where sigmoid rounds to 1)."""
    a = _logit_arg(node.outputs[0])
    sig = elemwise_of(a, ps.Sigmoid) if a is not None else None
    if sig is None or not _is_float(node):
        return False
    return _fixed(node, sig.inputs[0], refs=[sig.inputs[0]])


@node_rewriter([ew(ps.sigmoid)], name="local_sigmoid_logit")
def local_sigmoid_logit(fgraph: Any, node: Apply) -> Any:
    """sigmoid(logit(x)) -> x on [0, 1], NaN outside it (what the original gives)."""
    a = _logit_arg(node.inputs[0])
    if a is None or not _is_float(node) or a.type.dtype != node.outputs[0].type.dtype:
        return False
    zero = tensor_constant(0, "int8", a.type.ndim)
    one = tensor_constant(1, "int8", a.type.ndim)
    inside = ew(ps.and_)(ew(ps.ge)(a, zero), ew(ps.le)(a, one))
    nan = tensor_constant(np.nan, a.type.dtype, a.type.ndim)
    return _fixed(node, ew(ps.switch)(inside, a, nan), refs=[a])


def _exp_diff(var: Variable) -> tuple[Variable, Variable] | None:
    """``(x, y)`` when ``var`` is ``exp(x) - exp(y)`` or ``exp(x) + -exp(y)``."""
    node = var.owner
    if node is None or len(node.inputs) != 2:
        return None
    pairs = []
    if elemwise_of(var, ps.Sub) is not None:
        pairs = [tuple(node.inputs)]
    elif elemwise_of(var, ps.Add) is not None:
        a, b = node.inputs
        for first, second in ((a, b), (b, a)):
            neg = elemwise_of(second, ps.Neg)
            if neg is not None:
                pairs.append((first, neg.inputs[0]))
    for first, second in pairs:
        ea, eb = elemwise_of(first, ps.Exp), elemwise_of(second, ps.Exp)
        if ea is not None and eb is not None:
            return ea.inputs[0], eb.inputs[0]
    return None


@node_rewriter([ew(ps.log)], name="logdiffexp_to_log1mexpdiff")
def logdiffexp_to_log1mexpdiff(fgraph: Any, node: Apply) -> Any:
    """log(exp(x) - exp(y)) -> x + log1mexp(y - x) (x where y is -inf)."""
    found = _exp_diff(node.inputs[0])
    if found is None or not _is_float(node):
        return False
    x, y = found
    minus_inf = tensor_constant(-np.inf, y.type.dtype, y.type.ndim)
    body = ew(ps.add)(x, ew(ps.log1mexp)(ew(ps.sub)(y, x)))
    return _fixed(node, ew(ps.switch)(ew(ps.eq)(y, minus_inf), x, body))


def _already_shifted(x: Variable, y: Variable) -> bool:
    """``x`` and ``y`` are ``a - s`` and ``b - s`` with ``s`` a switch (this rewrite's
    own output: rewriting it again would loop)."""
    subs = [elemwise_of(v, ps.Sub) for v in (x, y)]
    if any(n is None for n in subs):
        return False
    shift = subs[0].inputs[1]
    return shift is subs[1].inputs[1] and elemwise_of(shift, ps.Switch) is not None


@node_rewriter([ew(ps.log)], name="local_log_add_exp")
def local_log_add_exp(fgraph: Any, node: Apply) -> Any:
    """log(exp(x) + exp(y)) -> m + log(exp(x - m) + exp(y - m)), m = max(x, y) (0 where
    it is infinite, so +-inf come out as before). The gradient splits evenly at ties
    whatever maximum's gradient does there."""
    add = elemwise_of(node.inputs[0], ps.Add)
    if add is None or len(add.inputs) != 2 or not _is_float(node):
        return False
    exps = [elemwise_of(v, ps.Exp) for v in add.inputs]
    if any(e is None for e in exps):
        return False
    x, y = (e.inputs[0] for e in exps)
    if _already_shifted(x, y):
        return False
    top = ew(ps.maximum)(x, y)
    zero = tensor_constant(0, top.type.dtype, top.type.ndim)
    shift = ew(ps.switch)(ew(ps.isinf)(top), zero, top)
    terms = [ew(ps.exp)(ew(ps.sub)(v, shift)) for v in (x, y)]
    return _fixed(node, ew(ps.add)(shift, ew(ps.log)(ew(ps.add)(*terms))))


def _polygamma_of_order(node: Apply, order: int) -> Variable | None:
    if getattr(node.op.scalar_op, "name", None) != "polygamma" or not _is_float(node):
        return None
    n = const_value(node.inputs[0])
    return node.inputs[1] if n is not None and np.all(np.asarray(n) == order) else None


@node_rewriter([Elemwise], name="local_polygamma_to_digamma")
def local_polygamma_to_digamma(fgraph: Any, node: Apply) -> Any:
    """polygamma(0, x) -> digamma(x)."""
    x = _polygamma_of_order(node, 0)
    return False if x is None else _fixed(node, tm.digamma(x))


@node_rewriter([Elemwise], name="local_polygamma_to_tri_gamma")
def local_polygamma_to_tri_gamma(fgraph: Any, node: Apply) -> Any:
    """polygamma(1, x) -> tri_gamma(x) (the scalar op: ``opgraph.tensor.tri_gamma``
    itself builds ``polygamma(1, x)``)."""
    x = _polygamma_of_order(node, 1)
    return False if x is None else _fixed(node, ew(ps.tri_gamma)(x))


def math_logexp_rewriters() -> dict[str, list[tuple[str, NodeRewriter, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags), in PyTensor's phases and with its tags."""
    return {
        "canonicalize": [
            ("local_logit_sigmoid", local_logit_sigmoid, ("fast_compile",)),
            ("local_sigmoid_logit", local_sigmoid_logit, ("fast_compile",)),
        ],
        "stabilize": [
            ("logdiffexp_to_log1mexpdiff", logdiffexp_to_log1mexpdiff, ()),
            ("local_log_add_exp", local_log_add_exp, ()),
        ],
        "specialize": [
            ("local_logit_sigmoid", local_logit_sigmoid, ()),
            ("local_sigmoid_logit", local_sigmoid_logit, ()),
            ("local_log_add_exp", local_log_add_exp, ()),
            ("local_polygamma_to_digamma", local_polygamma_to_digamma, ()),
            ("local_polygamma_to_tri_gamma", local_polygamma_to_tri_gamma, ()),
        ],
    }
