"""Canonical forms: sums and products flattened with their constants collected,
terms that cancel removed, redundant casts and dimshuffles dropped.

The two canonizers read an expression of one "group" of ops (add/sub/neg, or
mul/true_div/reciprocal/neg) as a list of terms with signs (or factors with
exponents +-1) plus one constant, cancel equal terms, and rebuild it only
when the result has fewer nodes or fewer constants. That one rule covers
x+0, x*1, x*y/y, (x+y)-y, x-x, --x, -x*-y, x-(-y) and 2*(3*x).

IEEE: for float results, cancelling equal terms (x-x -> 0, x/x -> 1, x*y/y -> x)
and dropping a zero factor (x*0 -> 0) change the result when x is inf, NaN or 0
(NumPy gives NaN), and drop the error of a computation x that raises; they run
only with ``config.fast_math``.  Reordering and folding constants keep NumPy's
inf/NaN results (a sum holding +inf and -inf, or a product holding 0 and inf, is
NaN in every order), so they always run.  Integer arithmetic wraps exactly, so
integer groups cancel too, unless a term removed could raise (an invalid reshape:
NumPy computes it and raises).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.config import config
from opgraph.gradient import GradientIdentity
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph.graph.rewriting.pattern import PatternNodeRewriter
from opgraph.scalar.arith import Pow
from opgraph.scalar.composite import Composite
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph_rewrites.useless import useless_shape_rewriters
from opgraph_rewrites.utils import (
    _cast,
    const_value,
    ew,
    keep_type,
    scalar_op_of,
    single_client,
    tensor_constant,
)

__all__ = ["AlgebraicCanonizer", "canonicalize_rewriters"]

#: Most inputs of one rebuilt add/mul node; longer sums become a chain of such
#: nodes (elemwise thunks and C code stay small; half of fusion's input bound, so a
#: chunk can join a fused cluster before its own inputs are absorbed).
MAX_ARITY = 16


def chunked_node_count(n_terms: int) -> int:
    """Nodes :meth:`AlgebraicCanonizer._build` uses to combine ``n_terms`` terms."""
    if n_terms <= 1:
        return 0
    return -(-(n_terms - 1) // (MAX_ARITY - 1))


def _ps() -> Any:
    return ps


class AlgebraicCanonizer(NodeRewriter):
    """Flattens one group of ops, cancels equal terms, folds the constants.

    ``kind`` is "add" (terms with signs) or "mul" (factors with exponents).
    """

    def __init__(self, kind: str) -> None:
        if kind not in ("add", "mul"):
            raise ValueError(f"AlgebraicCanonizer kind must be 'add' or 'mul', got {kind!r}")
        self.kind = kind
        self.name = f"canonicalize_{kind}"

    def tracks(self) -> list[Any]:
        ps = _ps()
        if self.kind == "add":
            return [ew(ps.add), ew(ps.sub), ew(ps.neg)]
        return [ew(ps.mul), ew(ps.true_div), ew(ps.reciprocal)]

    def _split(self, fgraph: Any, out: Variable) -> tuple | None:
        ps = _ps()
        dtype = out.type.dtype
        if dtype == "bool":
            return None
        pos: list[Variable] = []
        neg: list[Variable] = []
        const = np.asarray(0 if self.kind == "add" else 1, dtype=dtype)
        n_consts = 0
        removable = 0
        stack = [(out, True)]
        with np.errstate(all="ignore"):
            while stack:
                v, positive = stack.pop()
                node = v.owner
                sop = scalar_op_of(node)
                is_root = v is out
                inner_ok = (
                    sop is not None
                    and v.type.dtype == dtype
                    and (is_root or single_client(fgraph, v))
                    and (is_root or not getattr(node.op, "inplace_pattern", None))
                )
                if inner_ok and self.kind == "add" and isinstance(sop, ps.Add | ps.Sub | ps.Neg):
                    pass
                elif inner_ok and self.kind == "mul" and (
                    isinstance(sop, ps.Mul | ps.TrueDiv | ps.Reciprocal)
                    or (isinstance(sop, ps.Neg) and not is_root)
                ):
                    pass
                else:
                    value = const_value(v) if not is_root else None
                    if value is not None and np.ndim(value) == 0:
                        n_consts += 1
                        if self.kind == "add":
                            const = const + value if positive else const - value
                        elif positive:
                            const = const * value
                        elif dtype.startswith(("float", "complex")):
                            const = const / value
                        else:
                            n_consts -= 1
                            neg.append(v)
                        continue
                    (pos if positive else neg).append(v)
                    continue
                removable += 1
                ins = node.inputs
                # Pushed last-first so the terms come out in graph order (x + y + z stays so).
                if isinstance(sop, ps.Add | ps.Mul):
                    stack.extend((i, positive) for i in reversed(ins))
                elif isinstance(sop, ps.Sub | ps.TrueDiv):
                    stack.append((ins[1], not positive))
                    stack.append((ins[0], positive))
                elif isinstance(sop, ps.Reciprocal):
                    stack.append((ins[0], not positive))
                elif isinstance(sop, ps.Neg):
                    if self.kind == "add":
                        stack.append((ins[0], not positive))
                    else:
                        const = -const
                        n_consts += 1
                        stack.append((ins[0], positive))
        return pos, neg, np.asarray(const, dtype=dtype), n_consts, removable

    def _in_group(self, node: Any, dtype: str) -> bool:
        ps = _ps()
        sop = scalar_op_of(node)
        if sop is None or node.outputs[0].type.dtype != dtype:
            return False
        if self.kind == "add":
            return isinstance(sop, ps.Add | ps.Sub | ps.Neg)
        return isinstance(sop, ps.Mul | ps.TrueDiv | ps.Reciprocal)

    def _absorbed_by_parent(self, fgraph: Any, out: Variable) -> bool:
        """The only user is a node of the same group: it sees this node's terms too."""
        clients = fgraph.clients.get(out, ())
        if len(clients) != 1:
            return False
        parent = clients[0][0]
        return not isinstance(parent, str) and self._in_group(parent, out.type.dtype)

    def transform(self, fgraph: Any, node: Apply) -> Any:
        if len(node.outputs) != 1:
            return False
        out = node.outputs[0]
        if self._absorbed_by_parent(fgraph, out):
            return False
        split = self._split(fgraph, out)
        if split is None:
            return False
        pos, neg, const, n_consts, removable = split
        dtype = out.type.dtype
        exact = config.fast_math or (not dtype.startswith(("float", "complex"))
                                     and _cannot_raise(out))
        cancelled = _cancel(pos, neg) if exact else 0
        ps = _ps()
        neutral = 0 if self.kind == "add" else 1
        c = const.item() if const.ndim == 0 else const
        negate = False
        zero = exact and self.kind == "mul" and c == 0 and not np.isnan(c)
        if self.kind == "mul" and c == -1:
            negate, c = True, 1
        keep_const = c != neutral and not zero
        # a factor -1 counts as collected when it becomes a neg: (-x)*y -> -(x*y), x*-1 -> -x
        kept = 1 if keep_const else 0
        if zero:
            new_nodes = 0
        else:
            num_terms = len(pos) + (1 if keep_const else 0)
            chain = chunked_node_count
            new_nodes = chain(num_terms) + chain(len(neg)) + int(bool(neg)) + int(negate)
        if not (cancelled or new_nodes < removable or n_consts > kept):
            return False
        if zero:
            new = tensor_constant(0, dtype, 0)
        else:
            terms = list(pos)
            if keep_const:
                terms.append(tensor_constant(c, dtype, 0))
            new = self._build(terms, neg, dtype)
            if negate:
                new = ew(ps.neg)(new)
        fixed = keep_type(out, new, refs=node.inputs)
        if fixed is None or fixed is out:
            return False
        return [fixed]

    def _build(self, num: list[Variable], den: list[Variable], dtype: str) -> Variable:
        ps = _ps()
        plus, minus = (ps.add, ps.sub) if self.kind == "add" else (ps.mul, ps.true_div)
        inverse = ps.neg if self.kind == "add" else ps.reciprocal
        # a leaf of another dtype (int8 under a float64 true_div) is cast first, as NumPy
        # casts it: reciprocal(int8) would be float16, int8 * int8 would wrap
        num = [v if v.type.dtype == dtype else _cast(v, dtype) for v in num]
        den = [v if v.type.dtype == dtype else _cast(v, dtype) for v in den]
        top = _chain(plus, num)
        bottom = _chain(plus, den)
        if top is None and bottom is None:
            return tensor_constant(0 if self.kind == "add" else 1, dtype, 0)
        if bottom is None:
            return top
        if top is None:
            return ew(inverse)(bottom)
        return ew(minus)(top, bottom)


def _chain(op: Any, terms: list[Variable]) -> Variable | None:
    """``op`` over ``terms`` as nodes of at most MAX_ARITY inputs: a left chain, so
    re-reading it gives the same node count (the canonizer's fixed point)."""
    if not terms:
        return None
    acc = terms[0] if len(terms) == 1 else ew(op)(*terms[:MAX_ARITY])
    rest = terms[MAX_ARITY:] if len(terms) > 1 else []
    step = MAX_ARITY - 1
    for k in range(0, len(rest), step):
        acc = ew(op)(acc, *rest[k:k + step])
    return acc


def _cancel(pos: list[Variable], neg: list[Variable]) -> int:
    """Remove variables present in both lists, pairwise; returns the pairs removed."""
    if not pos or not neg:
        return 0
    pending: dict[int, int] = {}
    for v in neg:
        pending[id(v)] = pending.get(id(v), 0) + 1
    matched: dict[int, int] = {}
    kept_pos = []
    for v in pos:
        if pending.get(id(v), 0) > 0:
            pending[id(v)] -= 1
            matched[id(v)] = matched.get(id(v), 0) + 1
        else:
            kept_pos.append(v)
    if not matched:
        return 0
    kept_neg = []
    for v in neg:
        if matched.get(id(v), 0) > 0:
            matched[id(v)] -= 1
        else:
            kept_neg.append(v)
    cancelled = len(pos) - len(kept_pos)
    pos[:] = kept_pos
    neg[:] = kept_neg
    return cancelled


# -- small structural rules -----------------------------------------------------------


def _dimshuffle_cls() -> type:
    return DimShuffle


def _same_layout(order: tuple[Any, ...], shape: tuple[int | None, ...]) -> bool:
    """A DimShuffle with ``order`` of a value of static ``shape`` returns the value
    unchanged: the same shape, elements in the same order (only length-1 axes move,
    appear or vanish, one for one)."""
    if order == tuple(range(len(shape))):
        return True
    if len(order) != len(shape):
        return False
    kept = [o for o in order if o != "x"]
    if kept != sorted(kept):
        return False
    for k, o in enumerate(order):
        if o == "x":
            if shape[k] != 1:
                return False
        elif o != k and (shape[o] is None or shape[o] != shape[k]):
            return False
    # every input axis left out must have length 1
    return all(shape[i] == 1 for i in range(len(shape)) if i not in kept)


def local_dimshuffle_dimshuffle() -> NodeRewriter:
    DimShuffle = _dimshuffle_cls()

    @node_rewriter([DimShuffle], name="local_dimshuffle_dimshuffle")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """ds2(ds1(x)) -> ds(x) with the composed order; identity ds(x) -> x (also one that
        only swaps a length-1 axis for a new one: ``v.dimshuffle('x')`` of a length-1 v)."""
        op = node.op
        (x,) = node.inputs
        if _same_layout(op.new_order, x.type.shape):
            return [x]
        inner = x.owner
        if inner is None or not isinstance(inner.op, DimShuffle):
            return False
        first = inner.op.new_order
        composed = tuple("x" if o == "x" else first[o] for o in op.new_order)
        base = inner.inputs[0]
        if _same_layout(composed, base.type.shape):
            new = base
        else:
            try:
                new = DimShuffle(input_ndim=base.type.ndim, new_order=composed)(base)
            except (ValueError, TypeError):
                return False
        fixed = keep_type(node.outputs[0], new)
        return [fixed] if fixed is not None else False

    return rewrite


def local_useless_cast() -> NodeRewriter:
    ps = _ps()

    @node_rewriter([Elemwise], name="local_useless_elemwise")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """cast(x, x.dtype) -> x; identity(x) -> x; switch(c, a, b) with constant c -> a or b
        (when the branch left out cannot raise, or under fast_math)."""
        sop = node.op.scalar_op
        out = node.outputs[0]
        if isinstance(sop, ps.Cast | ps.Identity) and not node.op.inplace_pattern:
            x = node.inputs[0]
            if x.type == out.type:
                return [x]
            return False
        if isinstance(sop, ps.Switch):
            c = const_value(node.inputs[0])
            if c is None:
                return False
            chosen, dropped = node.inputs[1:] if c else node.inputs[:0:-1]
            if not (config.fast_math or (_cannot_raise(dropped)
                                         and _broadcasts_statically(node.inputs))):
                return False  # NumPy's where() computes (and raises on) both branches
            fixed = keep_type(out, chosen, refs=node.inputs)
            return [fixed] if fixed is not None else False
        return False

    return rewrite


def _broadcasts_statically(inputs: list[Variable]) -> bool:
    """Elemwise operands whose static shapes guarantee they broadcast: per axis, at
    most one length that is not 1, or equal known lengths (a variable matches itself)."""
    unique = list({id(i): i for i in inputs}.values())
    ndims = {i.type.ndim for i in unique}
    if len(ndims) != 1:
        return False
    for axis in range(ndims.pop()):
        lengths = [i.type.shape[axis] for i in unique if i.type.shape[axis] != 1]
        if len(lengths) > 1 and (None in lengths or len(set(lengths)) > 1):
            return False
    return True


def _cannot_raise(var: Variable, budget: int = 64) -> bool:
    """Computing ``var`` raises for no input value: it is built from constants and
    inputs by dimshuffles and elemwise ops whose operands broadcast by their static
    shapes (looking at ``budget`` variables at most)."""
    DimShuffle = _dimshuffle_cls()
    seen: set[int] = set()
    stack = [var]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        node = v.owner
        if node is None:
            continue
        if len(seen) > budget:
            return False
        if not isinstance(node.op, DimShuffle) and (
                scalar_op_of(node) is None or not _broadcasts_statically(node.inputs)
                or _integer_power(node)):
            return False
        stack.extend(node.inputs)
    return True


def _integer_power(node: Apply) -> bool:
    """An integer ``x ** y`` raises for a negative ``y`` (NumPy's ValueError), also
    inside a fused Composite."""
    op = scalar_op_of(node)
    if isinstance(op, Composite):
        return any(isinstance(step[0], Pow) for step in op._steps) and any(
            not i.type.dtype.startswith(("float", "complex")) for i in node.inputs)
    return isinstance(op, Pow) and not node.outputs[0].type.dtype.startswith(
        ("float", "complex"))


def local_remove_gradient_identity() -> NodeRewriter:
    @node_rewriter([GradientIdentity], name="local_remove_gradient_identity")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """zero_grad(x), grad_clip(x, ...), grad_scale(x, k), ... -> x once differentiated."""
        return [node.inputs[0]]

    return rewrite


def _pattern_rules() -> list[NodeRewriter]:
    ps = _ps()
    E = ew
    rules = [
        # log(exp(x)) = x
        ((E(ps.log), (E(ps.exp), "x")), "x"),
        # sqrt(sqr(x)) = |x|
        ((E(ps.sqrt), (E(ps.sqr), "x")), (E(ps.abs), "x")),
        # |(-x)| = |x|
        ((E(ps.abs), (E(ps.neg), "x")), (E(ps.abs), "x")),
        # ||x|| = |x|
        ((E(ps.abs), (E(ps.abs), "x")), (E(ps.abs), "x")),
        # 1 / (1 / x) = x
        ((E(ps.reciprocal), (E(ps.reciprocal), "x")), "x"),
    ]
    return [PatternNodeRewriter(i, o, allow_multiple_clients=True, fix_type=keep_type,
                                get_constant=const_value) for i, o in rules]


def canonicalize_rewriters() -> list[tuple[str, NodeRewriter, tuple[str, ...]]]:
    """(name, rewriter, extra tags) of the canonicalize phase."""
    out: list[tuple[str, NodeRewriter, tuple[str, ...]]] = [
        ("canonicalize_add", AlgebraicCanonizer("add"), ("fast_compile",)),
        ("canonicalize_mul", AlgebraicCanonizer("mul"), ("fast_compile",)),
        ("local_dimshuffle_dimshuffle", local_dimshuffle_dimshuffle(), ("fast_compile",)),
        ("local_useless_elemwise", local_useless_cast(), ("fast_compile",)),
        ("local_remove_gradient_identity", local_remove_gradient_identity(), ("fast_compile",)),
    ]
    out.extend(useless_shape_rewriters())
    for k, rw in enumerate(_pattern_rules()):
        out.append((f"canonical_pattern_{k}:{rw.name}", rw, ("fast_compile",)))
    return out
