"""Products of exponentials and sigmoids, rewritten so that no factor over- or underflows alone.

Gradients multiply what the forward pass divided: the gradient of
``log(1/(1+exp(-x)))`` is ``(1/p) * (1+exp(-x))**-2 * exp(-x)``, which is
``inf * 0`` for large ``|x|`` although its value is ``sigmoid(-x)``. One rule
covers the written-out sigmoids and these gradient products: a product
(mul, true_div, reciprocal, neg, sqr, integer powers, fills) is read as
factors with integer exponents, and the factors ``exp(a)``, ``sigmoid(a)``,
``1 + exp(a)`` and ``1 - sigmoid(a)`` (also of ``-a``) are collected per
argument ``a`` as the log of their product, ``c1*a - n*softplus(-a)``.  That
log is rebuilt as bounded factors: ``sigmoid(-a)**k * sigmoid(a)**(n-k)`` when
``0 <= k = -c1 <= n`` (an extra ``exp(+-a)`` otherwise, going to 0 or inf
together with the sigmoids, never against them); for ``n < 0`` as reciprocal
sigmoids, which a product read later (after a distribution) can cancel.

The same reader turns ``exp(x) / sum(exp(x), axes)`` (the gradient of
``log(sum(exp(x)))``) into ``softmax(x)`` and ``exp(a) / (1 - exp(a))`` (the
gradient of ``log(1 - exp(a))``) into ``1 / expm1(-a)``.  Two small rules
finish the gradients of sums: ``x - x*sigmoid(a) -> x*sigmoid(-a)`` and
``F * (u - v) -> F*u - F*v`` when ``u`` or ``v`` divides by a sigmoid of ``F``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.reduction import Sum
from opgraph.tensor.special import Softmax
from opgraph_rewrites.utils import (
    const_value,
    elemwise_of,
    ew,
    keep_type,
    scalar_op_of,
    tensor_constant,
)

__all__ = [
    "ExpSigmoidProduct",
    "linear_key",
    "local_distribute_stable_product",
    "local_x_minus_x_sigmoid",
    "negate",
]

#: Factors read from one product at most (the rest of a larger product stays as it is).
MAX_FACTORS = 64
#: Integer powers read as repeated factors.
MAX_POWER = 4
#: Terms read from a sum when comparing two arguments up to sign.
MAX_TERMS = 16

_GROUP_OPS = (ps.Mul, ps.TrueDiv, ps.Reciprocal, ps.Neg, ps.Sqr, ps.Pow, ps.Second)


def linear_key(var: Variable) -> tuple[tuple, int]:
    """``(key, sign)`` with ``var == sign * f(key)``: ``a``, ``-a``, ``b - a`` and ``-a - b``
    get one key up to sign, so ``exp(-a)`` and ``sigmoid(a)`` are seen to share ``a``."""
    terms: dict[Any, float] = {}
    stack = [(var, 1)]
    while stack:
        v, s = stack.pop()
        node = v.owner
        sop = scalar_op_of(node)
        if sop is not None and len(terms) + len(stack) < MAX_TERMS:
            if isinstance(sop, ps.Neg):
                stack.append((node.inputs[0], -s))
                continue
            if isinstance(sop, ps.Add):
                stack.extend((i, s) for i in node.inputs)
                continue
            if isinstance(sop, ps.Sub):
                stack.append((node.inputs[0], s))
                stack.append((node.inputs[1], -s))
                continue
        c = const_value(v)
        k = ("c", float(c)) if c is not None and np.ndim(c) == 0 else id(v)
        if isinstance(k, tuple):
            terms[("c", 1.0)] = terms.get(("c", 1.0), 0) + s * k[1]
        else:
            terms[k] = terms.get(k, 0) + s
    items = sorted(((k, c) for k, c in terms.items() if c != 0), key=repr)
    if not items:
        return (), 1
    sign = 1 if items[0][1] > 0 else -1
    return tuple((k, c * sign) for k, c in items), sign


def _is_one(var: Variable) -> bool:
    """``var`` holds 1 everywhere (a constant, or a fill of one: ``second(x, 1)``)."""
    fill = elemwise_of(var, ps.Second)
    if fill is not None:
        var = fill.inputs[1]
    c = const_value(var)
    return c is not None and np.ndim(c) == 0 and c == 1


def _one_minus_sigmoid_arg(var: Variable) -> Variable | None:
    """``a`` when ``var`` is ``1 - sigmoid(a)`` or ``1 + -sigmoid(a)`` (that is, sigmoid(-a))."""
    node = elemwise_of(var, ps.Sub, ps.Add)
    if node is None or len(node.inputs) != 2:
        return None
    if isinstance(node.op.scalar_op, ps.Sub):
        one, sig = node.inputs
    else:
        one, sig = node.inputs if _is_one(node.inputs[0]) else node.inputs[::-1]
        neg = elemwise_of(sig, ps.Neg)
        sig = neg.inputs[0] if neg is not None else None
    if sig is None or not _is_one(one) or sig.type != var.type:
        return None
    s = elemwise_of(sig, ps.Sigmoid)
    return s.inputs[0] if s is not None else None


def _classify(var: Variable) -> tuple[str, Variable, int] | None:
    """(kind, argument, sign) for the factors this rewrite collects: kind "exp", "sig" or
    "onepexp" (1 + exp) of ``sign * argument``; "1 - sigmoid(a)" is "sig" of -a."""
    node = var.owner
    sop = scalar_op_of(node)
    if sop is None or node.outputs[0].type.dtype != node.inputs[0].type.dtype:
        return None
    if isinstance(sop, ps.Exp):
        return "exp", node.inputs[0], 1
    if isinstance(sop, ps.Sigmoid):
        return "sig", node.inputs[0], 1
    if isinstance(sop, ps.Add | ps.Sub) and len(node.inputs) == 2:
        a = _one_minus_sigmoid_arg(var)
        if a is not None:
            return "sig", a, -1
        if isinstance(sop, ps.Sub):
            return None
        a, b = node.inputs
        for one, e in ((a, b), (b, a)):
            if _is_one(one) and elemwise_of(e, ps.Exp) is not None and e.type == var.type:
                return "onepexp", e.owner.inputs[0], 1
    return None


def _read_product(out: Variable) -> tuple[int, list[tuple[Variable, int]]] | None:
    """(sign, [(factor, exponent)]) of the product tree under ``out`` (inner nodes of any
    client count are read: duplicated work is cheap next to a NaN gradient)."""
    dtype = out.type.dtype
    sign = 1
    factors: list[tuple[Variable, int]] = []
    stack = [(out, 1)]
    while stack:
        v, e = stack.pop()
        node = v.owner
        sop = scalar_op_of(node)
        if (
            sop is None
            or not isinstance(sop, _GROUP_OPS)
            or v.type.dtype != dtype
            or getattr(node.op, "inplace_pattern", None)
            or len(factors) + len(stack) >= MAX_FACTORS
        ):
            factors.append((v, e))
            continue
        ins = node.inputs
        if isinstance(sop, ps.Mul):
            stack.extend((i, e) for i in ins)
        elif isinstance(sop, ps.TrueDiv):
            stack.extend([(ins[0], e), (ins[1], -e)])
        elif isinstance(sop, ps.Reciprocal):
            stack.append((ins[0], -e))
        elif isinstance(sop, ps.Neg):
            sign = sign * (-1) ** (abs(e) % 2)
            stack.append((ins[0], e))
        elif isinstance(sop, ps.Sqr):
            stack.append((ins[0], 2 * e))
        elif isinstance(sop, ps.Second):  # only a shape: keep_type's refs restore it
            stack.append((ins[1], e))
        else:  # Pow
            p = const_value(ins[1])
            if p is None or np.ndim(p) != 0 or p != int(p) or not 0 < abs(p) <= MAX_POWER:
                factors.append((v, e))
                continue
            stack.append((ins[0], int(p) * e))
    return sign, factors


class _Group:
    """The collected factors of one argument ``a`` (up to sign)."""

    def __init__(self, arg: Variable, sign: int) -> None:
        self.arg, self.arg_sign = arg, sign  # arg == arg_sign * a
        self.c1 = 0  # coefficient of a in the log of the product
        self.c3 = 0  # coefficient of softplus(-a)
        self.seen: dict[tuple[str, int], int] = {}
        self.originals: list[tuple[Variable, int]] = []
        self.dirty = False  # holds a factor that must go (1 - sigmoid)

    def add(self, kind: str, s: int, e: int) -> None:
        self.seen[(kind, s)] = self.seen.get((kind, s), 0) + e
        if kind == "exp":
            self.c1 += s * e
        elif kind == "sig":  # log sigmoid(a) = -softplus(-a); log sigmoid(-a) = -a - softplus(-a)
            self.c3 -= e
            if s < 0:
                self.c1 -= e
        else:  # log(1 + exp(-a)) = softplus(-a); log(1 + exp(a)) = a + softplus(-a)
            self.c3 += e
            if s > 0:
                self.c1 += e

    def target(self) -> dict[tuple[str, int], int]:
        """The same product as bounded factors (sigmoids, and an exp going the same way);
        with more softplus terms in the numerator than in the denominator (n < 0), the
        reciprocal sigmoid ``1/sigmoid(a)**-n``, which a product read later can cancel."""
        n, k = -self.c3, -self.c1
        if n < 0:
            t = {("sig", 1): n, ("exp", -1): k} if k >= 0 else {("sig", 1): n, ("exp", 1): -k}
        elif 0 <= k <= n:
            t = {("sig", -1): k, ("sig", 1): n - k}
        elif k > n:
            t = {("sig", -1): n, ("exp", -1): k - n}
        else:
            t = {("sig", 1): n, ("exp", 1): -k}
        return {key: e for key, e in t.items() if e}

    def unchanged(self) -> bool:
        """Nothing to gain: already the target form, and no factors cancel."""
        if self.dirty:
            return False
        seen = {key: e for key, e in self.seen.items() if e}
        count = sum(abs(e) for _, e in self.originals)
        target = self.target()
        if self.c3 > 0 and count <= 1:
            return True
        return seen == target and count == sum(abs(e) for e in target.values())

    def signed_arg(self, s: int) -> Variable:
        return self.arg if s == self.arg_sign else negate(self.arg)

    def build(self) -> tuple[list[Variable], list[Variable]]:
        """(numerator, denominator) factors of this group's product."""
        num: list[Variable] = []
        den: list[Variable] = []
        for (kind, s), e in self.target().items():
            op = ps.exp if kind == "exp" else ps.sigmoid
            (num if e > 0 else den).extend([ew(op)(self.signed_arg(s))] * abs(e))
        return num, den


def negate(var: Variable) -> Variable:
    """``-var``, without stacking negations: ``-(-x)`` is ``x``."""
    node = elemwise_of(var, ps.Neg)
    return node.inputs[0] if node is not None else ew(ps.neg)(var)


def _like(value: float, var: Variable) -> Variable:
    return tensor_constant(value, var.type.dtype, var.type.ndim)


def _softmax_axis(den: Variable, power: int, num_exp: Variable) -> tuple[bool, Any]:
    """Whether ``den**power`` is ``1/sum(num_exp, axes)`` broadcast back (keepdims, the
    reciprocal possibly inside the broadcast); the softmax axis."""
    var, order = den, None
    if var.owner is not None and isinstance(var.owner.op, DimShuffle):
        order = var.owner.op.new_order
        var = var.owner.inputs[0]
    inv = elemwise_of(var, ps.Reciprocal, ps.TrueDiv)
    if inv is not None and (len(inv.inputs) == 1 or _is_one(inv.inputs[0])):
        var, power = inv.inputs[-1], -power
    if power != -1:
        return False, None
    node = var.owner
    if node is None or not isinstance(node.op, Sum) or node.inputs[0] is not num_exp:
        return False, None
    ndim = num_exp.type.ndim
    axes = tuple(node.op.axis) if node.op.axis is not None else tuple(range(ndim))
    kept = iter(range(ndim - len(axes)))
    keep_order = tuple("x" if i in axes else next(kept) for i in range(ndim))
    if (order is None and len(axes) != ndim) or (order is not None and order != keep_order):
        return False, None
    if len(axes) == ndim:
        return True, None
    if len(axes) == 1:
        return True, axes[0]
    return False, None


def _find_softmax(factors: list[tuple[Variable, int]]) -> bool:
    """Replace ``exp(x) * sum(exp(x))**-1`` pairs in ``factors`` by ``softmax(x)``."""
    changed = False
    for i, (v, e) in enumerate(factors):
        if e != 1 or elemwise_of(v, ps.Exp) is None:
            continue
        for j, (d, f) in enumerate(factors):
            ok, axis = _softmax_axis(d, f, v)
            if not ok or v.type.dtype not in ("float32", "float64"):
                continue
            factors[i] = (Softmax(axis=axis)(v.owner.inputs[0]), 1)
            factors[j] = (d, 0)
            changed = True
            break
    return changed


def _one_minus_exp(var: Variable) -> Variable | None:
    """The ``exp(a)`` node's output when ``var`` is ``1 - exp(a)`` or ``1 + -exp(a)``."""
    node = elemwise_of(var, ps.Sub, ps.Add)
    if node is None or len(node.inputs) != 2:
        return None
    if isinstance(node.op.scalar_op, ps.Sub):
        one, e = node.inputs
    else:
        one, e = node.inputs if _is_one(node.inputs[0]) else node.inputs[::-1]
        n = elemwise_of(e, ps.Neg)
        e = n.inputs[0] if n is not None else None
    if e is None or not _is_one(one):
        return None
    return e if elemwise_of(e, ps.Exp) is not None and e.type == var.type else None


def _find_log1mexp_grad(factors: list[tuple[Variable, int]]) -> bool:
    """Replace ``exp(a) / (1 - exp(a))`` pairs by ``1 / expm1(-a)`` (the gradient of
    ``log(1 - exp(a))``; the plain form divides by a rounded 0 near ``a = 0``)."""
    changed = False
    for j, (d, f) in enumerate(factors):
        e = _one_minus_exp(d) if f == -1 else None
        if e is None:
            continue
        for i, (v, g) in enumerate(factors):
            if v is e and g == 1:
                factors[i] = (v, 0)
                factors[j] = (ew(ps.expm1)(negate(e.owner.inputs[0])), -1)
                changed = True
                break
    return changed


def _cancel_softmax(factors: list[tuple[Variable, int]]) -> bool:
    """Sum the exponents of equal ``softmax(x)`` factors: ``p * (1/p)`` (the gradient of
    ``log(softmax(x))``) is 1, not ``0 * inf`` where ``p`` underflows.  A softmax is in
    (0, 1] for finite ``x``, so this is a stabilisation; the canonicalizer no longer
    cancels float factors (IEEE), so it happens here."""
    first: dict[Any, int] = {}
    changed = False
    for i, (v, e) in enumerate(factors):
        if e == 0 or v.owner is None or not isinstance(v.owner.op, Softmax):
            continue
        key = _node_key(v)
        j = first.get(key)
        if j is None:
            first[key] = i
            continue
        w, total = factors[j]
        factors[j] = (w, total + e)
        factors[i] = (v, 0)
        changed = True
    return changed


class ExpSigmoidProduct(NodeRewriter):
    """The product rewrite described in the module docstring."""

    name = "local_exp_sigmoid_product"

    def tracks(self) -> list[Any]:
        return [ew(ps.mul), ew(ps.true_div), ew(ps.reciprocal), ew(ps.pow), ew(ps.neg),
                ew(ps.second)]

    def _absorbed(self, fgraph: Any, out: Variable) -> bool:
        """The only client is a product too: it reads this node's factors itself."""
        clients = fgraph.clients.get(out, ())
        if len(clients) != 1 or isinstance(clients[0][0], str):
            return False
        parent = clients[0][0]
        sop = scalar_op_of(parent)
        if isinstance(sop, ps.Second | ps.Pow) and parent.inputs[1 if isinstance(
                sop, ps.Second) else 0] is not out:
            return False
        return (sop is not None and isinstance(sop, _GROUP_OPS)
                and parent.outputs[0].type.dtype == out.type.dtype)

    def transform(self, fgraph: Any, node: Apply) -> Any:
        out = node.outputs[0]
        if not out.type.dtype.startswith("float") or len(node.outputs) != 1:
            return False
        if self._absorbed(fgraph, out):
            return False
        if isinstance(scalar_op_of(node), ps.Neg | ps.Second) and scalar_op_of(
                node.inputs[-1].owner) is None:
            return False
        sign, factors = _read_product(out)
        changed = _find_softmax(factors)
        changed = _find_log1mexp_grad(factors) or changed
        changed = _cancel_softmax(factors) or changed
        groups: dict[tuple, _Group] = {}
        rest: list[tuple[Variable, int]] = []
        for v, e in factors:
            if e == 0:
                continue
            cls = _classify(v)
            if cls is None:
                rest.append((v, e))
                continue
            kind, arg, flip = cls
            key, s = linear_key(arg)
            group = groups.get(key)
            if group is None:
                group = groups[key] = _Group(arg, s)
            group.add(kind, s * flip, e)
            group.dirty = group.dirty or flip < 0
            group.originals.append((v, e))
        todo = [g for g in groups.values() if not g.unchanged()]
        if not todo and not changed:
            return False
        num: list[Variable] = []
        den: list[Variable] = []
        for group in groups.values():
            if group in todo:
                n, d = group.build()
                num += n
                den += d
            else:
                rest.extend(group.originals)
        for v, e in rest:
            (num if e > 0 else den).extend([v] * abs(e))
        new = _product(num, den, out)
        if sign < 0:
            new = ew(ps.neg)(new)
        fixed = keep_type(out, new, refs=node.inputs)
        return [fixed] if fixed is not None else False


def _product(num: list[Variable], den: list[Variable], like: Variable) -> Variable:
    top = num[0] if len(num) == 1 else ew(ps.mul)(*num) if num else _like(1, like)
    if not den:
        return top
    bottom = den[0] if len(den) == 1 else ew(ps.mul)(*den)
    return ew(ps.true_div)(top, bottom)


def _node_key(v: Variable) -> Any:
    """Equal for equal variables and for equal nodes not merged yet (same op, same inputs)."""
    node = v.owner
    if node is None:
        return id(v)
    return (node.op, tuple(id(i) for i in node.inputs), node.outputs.index(v))


def _multiset(factors: list[tuple[Variable, int]]) -> dict[tuple[Any, int], int]:
    out: dict[tuple[Any, int], int] = {}
    for v, e in factors:
        key = (_node_key(v), e)
        out[key] = out.get(key, 0) + 1
    return out


@node_rewriter([ew(ps.sub)], name="local_x_minus_x_sigmoid")
def local_x_minus_x_sigmoid(fgraph: Any, node: Apply) -> Any:
    """x - x*sigmoid(a) = x*sigmoid(-a), ``x`` any product: no cancellation (the gradient
    of exp(a)/(1+exp(a)) is sigmoid(a) - sigmoid(a)**2, which rounds to 0 for a > ~37)."""
    x, prod = node.inputs
    if not node.outputs[0].type.dtype.startswith("float"):
        return False
    sign_x, fx = _read_product(x)
    sign_p, fp = _read_product(prod)
    fx = [(v, e) for v, e in fx if not _is_one(v)]
    fp = [(v, e) for v, e in fp if not _is_one(v)]
    if sign_x != sign_p or len(fp) != len(fx) + 1:
        return False
    want = _multiset(fx)
    for k, (v, e) in enumerate(fp):
        sig = elemwise_of(v, ps.Sigmoid) if e == 1 else None
        if sig is not None and _multiset(fp[:k] + fp[k + 1:]) == want:
            break
    else:
        return False
    new = ew(ps.mul)(x, ew(ps.sigmoid)(negate(sig.inputs[0])))
    fixed = keep_type(node.outputs[0], new, refs=node.inputs)
    return [fixed] if fixed is not None else False


def _family_keys(factors: list[tuple[Variable, int]], negative: bool) -> set[tuple]:
    """linear_keys of the exp/sigmoid factors (only those with exponent < 0 if ``negative``)."""
    keys = set()
    for v, e in factors:
        cls = _classify(v)
        if cls is not None and (e < 0 or not negative):
            keys.add(linear_key(cls[1])[0])
    return keys


def _signed_terms(var: Variable) -> list[tuple[Variable, int]] | None:
    """``var``'s terms with signs when it is an add or sub of at most MAX_TERMS terms."""
    node = var.owner
    sop = scalar_op_of(node)
    if isinstance(sop, ps.Sub):
        return [(node.inputs[0], 1), (node.inputs[1], -1)]
    if isinstance(sop, ps.Add) and len(node.inputs) <= MAX_TERMS:
        return [(i, 1) for i in node.inputs]
    return None


@node_rewriter([ew(ps.mul)], name="local_distribute_stable_product")
def local_distribute_stable_product(fgraph: Any, node: Apply) -> Any:
    """F * (a - b) = F*a - F*b when a term divides by an exp/sigmoid factor of F, so
    the product rewrite can cancel it: the gradient of a cross-entropy
    ``-y log p - (1-y) log(1-p)`` is ``s(t) s(-t) * ((1-y)/s(-t) - y/s(t))``, which is
    ``0/0`` once ``s(-t)`` underflows (|t| > 745)."""
    out = node.outputs[0]
    if not out.type.dtype.startswith("float"):
        return False
    sign, factors = _read_product(out)
    outer = _family_keys(factors, negative=False)
    if not outer:
        return False
    for k, (v, e) in enumerate(factors):
        terms = _signed_terms(v) if e == 1 and v.type.dtype == out.type.dtype else None
        if terms is None:
            continue
        if not any(_family_keys(_read_product(t)[1], negative=True) & outer for t, _ in terms):
            continue
        rest = factors[:k] + factors[k + 1:]
        num = [f for f, x in rest for _ in range(x) if x > 0]
        den = [f for f, x in rest for _ in range(-x) if x < 0]
        new = None
        for t, s in terms:
            part = _product([*num, t], den, out)
            if new is None:
                new = part if s > 0 else negate(part)
            else:
                new = ew(ps.add if s > 0 else ps.sub)(new, part)
        if sign < 0:
            new = negate(new)
        fixed = keep_type(out, new, refs=node.inputs)
        return [fixed] if fixed is not None else False
    return False
