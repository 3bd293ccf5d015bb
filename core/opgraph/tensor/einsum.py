"""``einsum``: an :class:`Einsum` node, lowered to diagonals, sums and batched matrix products.

The pairwise contraction order comes from NumPy's ``einsum_path`` when the
static shapes are all known; each pair is contracted by transposing to (batch,
free, summed) order and one ``matmul``, so gradients, rewrites and BLAS come
for free once the specialize rewrite ``inline_optimized_einsum`` has put that
graph in the node's place.
"""

from __future__ import annotations

import string
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.autodiff.forward import Rop
from opgraph.autodiff.reverse import Lop
from opgraph.autodiff.vectorize import register_batching_rule
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.op import EqualByValueKey, HasInnerGraph, Op
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor import math as ptm
from opgraph.tensor.creation import arange, zeros
from opgraph.tensor.products import matmul
from opgraph.tensor.reduction import sum as pt_sum
from opgraph.tensor.shape import shape_i
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["Einsum", "einsum"]  # the rewrite inline_optimized_einsum is imported by name
# PyTensor's tests also import the private helpers _delta, _general_dot and _iota.

def _parse(subscripts: str, n_operands: int, ndims: Sequence[int]) -> tuple[list[str], str]:
    text = subscripts.replace(" ", "")
    if "." in text:
        text = _expand_ellipsis(text, ndims)
    lhs, arrow, rhs = text.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != n_operands:
        raise ValueError(
            f"einsum: subscripts {subscripts!r} name {len(inputs)} operand(s), "
            f"got {n_operands}"
        )
    for term in [*inputs, rhs]:
        bad = [c for c in term if c not in string.ascii_letters]
        if bad:
            raise ValueError(f"einsum: invalid subscript character {bad[0]!r} in {subscripts!r}")
    for term, nd in zip(inputs, ndims):
        if len(term) != nd:
            raise ValueError(
                f"einsum: subscript {term!r} has {len(term)} labels for an operand with "
                f"{nd} dimension(s)"
            )
    if not arrow:
        counts: dict[str, int] = {}
        for term in inputs:
            for c in term:
                counts[c] = counts.get(c, 0) + 1
        rhs = "".join(sorted(c for c, n in counts.items() if n == 1))
    elif len(set(rhs)) != len(rhs) or any(c not in lhs for c in rhs):
        raise ValueError(f"einsum: output subscripts {rhs!r} must be distinct input labels")
    return inputs, rhs


def _expand_ellipsis(text: str, ndims: Sequence[int]) -> str:
    lhs, arrow, rhs = text.partition("->")
    used = set(c for c in text if c.isalpha())
    spare = [c for c in string.ascii_letters if c not in used]
    terms = lhs.split(",")
    widest = 0
    for k, term in enumerate(terms):
        if "..." in term:
            n = ndims[k] - (len(term) - 3)
            widest = max(widest, n)
    fill = "".join(spare[:widest])
    out_terms = []
    for k, term in enumerate(terms):
        if "..." in term:
            n = ndims[k] - (len(term) - 3)
            term = term.replace("...", fill[widest - n:])
        out_terms.append(term)
    if arrow:
        rhs = rhs.replace("...", fill)
    else:
        rhs = fill + "".join(
            sorted(c for c in set("".join(t.replace("...", "") for t in terms))
                   if c.isalpha() and sum(t.count(c) for t in terms) == 1)
        )
        arrow = "->"
    return ",".join(out_terms) + arrow + rhs


def _diagonals(x: Variable, labels: str) -> tuple[Variable, str]:
    """Take the diagonal over each label repeated within one operand."""
    while True:
        seen: dict[str, int] = {}
        repeat = None
        for pos, c in enumerate(labels):
            if c in seen:
                repeat = (seen[c], pos)
                break
            seen[c] = pos
        if repeat is None:
            return x, labels
        i, j = repeat
        rest = [d for d in range(x.type.ndim) if d not in (i, j)]
        moved = x.dimshuffle(i, j, *rest)
        n0, n1 = _length(moved, 0), _length(moved, 1)
        n = min(n0, n1) if isinstance(n0, int) and isinstance(n1, int) else ptm.minimum(n0, n1)
        r = arange(n)
        x = moved[r, r]
        labels = labels[i] + "".join(labels[d] for d in rest)


def _sum_out(x: Variable, labels: str, keep: set[str]) -> tuple[Variable, str]:
    gone = [d for d, c in enumerate(labels) if c not in keep]
    if gone:
        x = pt_sum(x, axis=tuple(gone))
        labels = "".join(c for c in labels if c in keep)
    return x, labels


def _length(x: Variable, d: int) -> Any:
    """The length of axis ``d`` of ``x``: a Python int when static, else ``shape_i``."""
    static = x.type.shape[d]
    return int(static) if static is not None else shape_i(x, d)


def _prod(dims: Sequence[Any]) -> Any:
    """The product of lengths, Python ints folded first (so known shapes stay constants)."""
    known = 1
    symbolic = []
    for d in dims:
        if isinstance(d, int):
            known *= d
        else:
            symbolic.append(d)
    if not symbolic:
        return known
    out = symbolic[0] if known == 1 else known * symbolic[0]
    for d in symbolic[1:]:
        out = out * d
    return out


def _contract_pair(a: Variable, la: str, b: Variable, lb: str, keep: set[str]) -> tuple:
    """Contract two operands over their shared labels that are not needed later."""
    shared = [c for c in la if c in lb]
    batch = [c for c in shared if c in keep]
    summed = [c for c in shared if c not in keep]
    free_a = [c for c in la if c not in shared]
    free_b = [c for c in lb if c not in shared]
    sa = {c: _length(a, la.index(c)) for c in la}
    sb = {c: _length(b, lb.index(c)) for c in lb}
    left = _ordered(a, la, [*batch, *free_a, *summed])
    right = _ordered(b, lb, [*batch, *summed, *free_b])
    nb, nfa, ns, nfb = (_prod([sa[c] for c in batch]), _prod([sa[c] for c in free_a]),
                        _prod([sa[c] for c in summed]), _prod([sb[c] for c in free_b]))
    # Each group becomes one axis; a group that already is one axis needs no reshape.
    if (len(batch), len(free_a), len(summed)) != (1, 1, 1):
        left = left.reshape((nb, nfa, ns))
    if (len(batch), len(summed), len(free_b)) != (1, 1, 1):
        right = right.reshape((nb, ns, nfb))
    out = matmul(left, right)
    if (len(batch), len(free_a), len(free_b)) != (1, 1, 1):
        dims = [sa[c] for c in batch] + [sa[c] for c in free_a] + [sb[c] for c in free_b]
        out = out.reshape(tuple(dims))
    return out, "".join([*batch, *free_a, *free_b])


def _ordered(x: Variable, labels: str, order: Sequence[str]) -> Variable:
    """``x`` with its axes in ``order`` (itself when they already are)."""
    perm = [labels.index(c) for c in order]
    return x if perm == list(range(x.type.ndim)) else x.dimshuffle(*perm)


def _right_to_left_path(n: int) -> tuple[tuple[int, ...], ...]:
    """Pairwise contractions from the right: ``((n-1, n-2), ..., (1, 0))``; ``((0,),)`` for one."""
    if n == 1:
        return ((0,),)
    return tuple((i, i - 1) for i in range(n - 1, 0, -1))


def _plan(inputs: list[str], rhs: str, types: Sequence[Any], optimize: Any) -> tuple:
    """``(path, optimized)``: the contraction order, and whether it was chosen from known shapes.

    With every static shape known, NumPy's ``einsum_path`` ("optimal") picks the order;
    otherwise the operands are contracted right to left, and the choice is left to
    the rewrite that re-plans once the shapes are known.
    """
    n = len(types)
    known = all(None not in t.shape for t in types)
    if n <= 2 or not known or optimize is False:
        return _right_to_left_path(n), n <= 2
    dummies = [np.empty(t.shape, np.int8) for t in types]
    path, _ = np.einsum_path(",".join(inputs) + "->" + rhs, *dummies,
                             optimize="optimal" if optimize in (True, None) else optimize)
    steps = tuple(tuple(p) for p in path[1:])
    if len(steps) == 1 and len(steps[0]) > 2:  # nothing to order: contract pairwise anyway
        steps = _right_to_left_path(n)
    return steps, True


def _drop_broadcast(x: Variable, lx: str, y: Variable, ly: str) -> tuple[Variable, str]:
    """Squeeze the length-1 axes of ``x`` whose label ``y`` has at a longer length.

    NumPy's einsum broadcasts such a label; summing a length-1 axis is the same.
    """
    drop = [d for d, c in enumerate(lx)
            if x.type.shape[d] == 1 and c in ly and y.type.shape[ly.index(c)] != 1]
    if not drop:
        return x, lx
    return pt_sum(x, axis=tuple(drop)), "".join(c for d, c in enumerate(lx) if d not in drop)


def _warn_mixed_broadcast(labels: Sequence[str], types: Sequence[TensorType]) -> None:
    """Warn when one label names a length-1 axis and a longer one (the path was planned
    as if both were long, which may be far from the best order)."""
    ones: set[str] = set()
    longer: set[str] = set()
    for lab, t in zip(labels, types):
        for c, n in zip(lab, t.shape):
            (ones if n == 1 else longer).add(c)
    if ones & longer:
        warnings.warn(
            "einsum: the same subscript labels a broadcastable (length 1) and a longer "
            "dimension. This can result in a suboptimal contraction path.",
            UserWarning, stacklevel=3,
        )


def _lower(inputs: list[str], rhs: str, operands: Sequence[Variable], path: Sequence) -> Variable:
    """The einsum as diagonals, sums and batched matrix products, contracted along ``path``."""
    terms = list(zip(operands, inputs))
    for step in path:
        picked = [terms[i] for i in sorted(step, reverse=True)]
        for i in sorted(step, reverse=True):
            del terms[i]
        rest = "".join(lab for _, lab in terms) + rhs
        (x, lx), *others = picked[::-1]
        x, lx = _diagonals(x, lx)
        for k, (y, ly) in enumerate(others):
            y, ly = _diagonals(y, ly)
            x, lx = _drop_broadcast(x, lx, y, ly)
            y, ly = _drop_broadcast(y, ly, x, lx)
            # Labels still needed: the later terms, the output, and this step's other operands.
            later = set(rest) | set("".join(lab for _, lab in others[k + 1 :]))
            x, lx = _sum_out(x, lx, set(ly) | later)
            y, ly = _sum_out(y, ly, set(lx) | later)
            x, lx = _contract_pair(x, lx, y, ly, later)
        terms.append((x, lx))
    (x, lx), = terms
    x, lx = _diagonals(x, lx)
    x, lx = _sum_out(x, lx, set(rhs))
    return x.dimshuffle(*(lx.index(c) for c in rhs)) if lx != rhs else x


class Einsum(EqualByValueKey, Op, HasInnerGraph):
    """One einsum as a node: ``subscripts``, the contraction ``path``, and whether the path
    was ``optimized`` from known static shapes.

    It computes with ``np.einsum`` along ``path``; its inner graph (diagonals, sums and
    batched matrix products) gives its gradients and is what the specialize rewrite
    ``inline_optimized_einsum`` puts in its place, re-planning first when the shapes
    have become known since.
    """

    def __init__(self, subscripts: str, path: Sequence[Sequence[int]], optimized: bool,
                 input_types: Sequence[TensorType]) -> None:
        self.subscripts = subscripts
        self.path = tuple(tuple(int(i) for i in step) for step in path)
        self.optimized = bool(optimized)
        self.input_types = tuple(input_types)
        self.labels, self.rhs = _parse(subscripts, len(self.input_types),
                                       [t.ndim for t in self.input_types])
        self._inner: tuple[list[Variable], list[Variable]] | None = None
        self._fgraph: FunctionGraph | None = None

    def _value_key(self) -> Any:
        return (self.subscripts, self.path, self.optimized, self.input_types)

    def __str__(self) -> str:
        return (f"Einsum{{subscripts={self.subscripts!r}, path={self.path}, "
                f"optimized={self.optimized}}}")

    __repr__ = __str__

    # -- the inner graph ------------------------------------------------------------
    def lowered(self, operands: Sequence[Variable], path: Sequence | None = None) -> Variable:
        """The einsum of ``operands`` written out as a graph (along ``path``, default ours)."""
        return _lower(self.labels, self.rhs, operands, self.path if path is None else path)

    def _build(self) -> tuple[list[Variable], list[Variable]]:
        if self._inner is None:
            ins = [t() for t in self.input_types]
            self._inner = (ins, [self.lowered(ins)])
        return self._inner

    @property
    def inner_inputs(self) -> list[Variable]:
        return self._build()[0]

    @property
    def inner_outputs(self) -> list[Variable]:
        return self._build()[1]

    @property
    def fgraph(self) -> FunctionGraph:
        """The inner graph as a FunctionGraph (built on first access)."""
        if self._fgraph is None:
            self._fgraph = FunctionGraph(self.inner_inputs, self.inner_outputs, clone=False)
        return self._fgraph

    def clone(self) -> Einsum:
        return Einsum(self.subscripts, self.path, self.optimized, self.input_types)

    # -- the Op contract ----------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self.input_types):
            raise TypeError(f"{self}: expected {len(self.input_types)} operands, "
                            f"got {len(inputs)}")
        checked = []
        for i, (x, t) in enumerate(zip(inputs, self.input_types)):
            x = as_tensor_variable(x)
            if not t.is_super(x.type):
                try:
                    x = t.filter_variable(x)
                except TypeError:
                    raise TypeError(f"{self}: operand {i} must be of type {t}, got {x.type}"
                                    ) from None
            checked.append(x)
        return Apply(self, checked, [self.inner_outputs[0].type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]
                ) -> None:
        plan: Any = ["einsum_path", *self.path] if len(inputs) > 1 else False
        out = np.asarray(np.einsum(self.subscripts, *inputs, optimize=plan),
                         dtype=node.outputs[0].type.dtype)
        if any(np.may_share_memory(out, x) for x in inputs):  # "ij->ji" gives a view
            out = out.copy()
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple[Any, ...]]:
        dims = []
        for c in self.rhs:
            found = [(x.type.shape[d], shp[d]) for x, lab, shp in
                     zip(node.inputs, self.labels, input_shapes)
                     for d, lc in enumerate(lab) if lc == c]
            longer = [dim for static, dim in found if static != 1]
            dims.append(longer[0] if longer else found[0][1])
        return [tuple(dims)]

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return Lop(self.lowered(inputs), list(inputs), cotangents[0],
                   disconnected_inputs="ignore")

    def pushforward(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                    tangents: Sequence[Variable]) -> list[Variable]:
        return [Rop(self.lowered(inputs), list(inputs), list(tangents))]


def einsum(subscripts: str, *operands: Any, optimize: Any = None) -> Variable:
    """Einstein summation, as ``np.einsum``: one :class:`Einsum` node.

    Its contraction order comes from ``einsum_path`` when every static shape is
    known (``op.optimized``); otherwise it is right to left until a rewrite
    re-plans it.
    """
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a string, got {subscripts!r}")
    ops = [as_tensor_variable(o) for o in operands]
    if not ops:
        raise ValueError("einsum: needs at least one operand")
    types = [o.type for o in ops]
    labels, rhs = _parse(subscripts, len(ops), [t.ndim for t in types])
    path, optimized = _plan(labels, rhs, types, optimize)
    _warn_mixed_broadcast(labels, types)
    return Einsum(subscripts, path, optimized, types)(*ops)


def _vectorize_einsum(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    """An einsum over batched operands is one einsum with a label per new leading axis."""
    op = node.op
    used = set("".join(op.labels) + op.rhs)
    spare = [c for c in string.ascii_letters if c not in used]
    n_batch = max(extra)
    if n_batch > len(spare):
        raise ValueError(f"einsum: no labels left for {n_batch} batch axes")
    batch = "".join(spare[:n_batch])
    terms = [batch[n_batch - e:] + lab for lab, e in zip(op.labels, extra)]
    return [einsum(",".join(terms) + "->" + batch + op.rhs, *ins)]


register_batching_rule(Einsum, _vectorize_einsum)


@node_rewriter([Einsum])
def inline_optimized_einsum(fgraph: Any, node: Apply) -> Any:
    """einsum node -> its graph of products, once its path is chosen from known shapes.

    A node built before its shapes were known is re-planned first; one whose
    shapes are still unknown stays a node (``np.einsum`` runs it).
    """
    op = node.op
    if not isinstance(op, Einsum):
        return None
    path = op.path
    if not op.optimized:
        types = [x.type for x in node.inputs]
        if any(None in t.shape for t in types):
            return None
        path, _ = _plan(op.labels, op.rhs, types, None)
    return [op.lowered(node.inputs, path)]


def _iota(shape: Sequence[Any], axis: int) -> Variable:
    """An int64 tensor of ``shape`` holding, everywhere, its index along ``axis``."""
    ndim = len(shape)
    axis = axis % ndim if ndim else axis
    ramp = arange(shape[axis]).dimshuffle(*["x" if d != axis else 0 for d in range(ndim)])
    return ptm.add(ramp, zeros(list(shape), dtype="int64")) if ndim > 1 else ramp


def _delta(shape: Sequence[Any], axes: Sequence[int]) -> Variable:
    """Kronecker delta of ``shape``: 1 where the indices along all ``axes`` are equal, else 0."""
    if len(axes) < 1:
        raise ValueError("_delta: give at least one axis")
    first = _iota(shape, axes[0])
    mask = ptm.eq(first, first)
    for ax in axes[1:]:
        mask = ptm.and_(mask, ptm.eq(first, _iota(shape, ax)))
    return ptm.cast(mask, "floatX")


def _general_dot(
    vars: Sequence[Any], axes: Sequence[Sequence[int]], batch_axes: Sequence[Sequence[int]]
) -> Variable:
    """``tensordot(x, y, axes)`` over the core axes, mapped over broadcast batch axes.

    ``batch_axes[i]`` lists the batch axes of operand ``i`` (moved to the front and
    broadcast against each other, right-aligned); ``axes`` are the contracted core
    axes (negative numbers count from the end). The result has the batch axes,
    then the free axes of ``x``, then those of ``y``.
    """
    x, y = (as_tensor_variable(v) for v in vars)
    letters = iter(string.ascii_letters)
    cores = []
    for var, batch in zip((x, y), batch_axes, strict=True):
        batch = [b % var.type.ndim for b in batch]
        core = [d for d in range(var.type.ndim) if d not in batch]
        cores.append((var.dimshuffle(*batch, *core), len(core)))
    (xc, nx), (yc, ny) = cores
    x_labels = [next(letters) for _ in range(nx)]
    y_labels = [next(letters) for _ in range(ny)]
    for ax_x, ax_y in zip(axes[0], axes[1], strict=True):
        y_labels[ax_y % ny] = x_labels[ax_x % nx]
    summed = set(x_labels) & set(y_labels)
    out = [lab for lab in x_labels if lab not in summed] + [
        lab for lab in y_labels if lab not in summed
    ]
    spec = f"...{''.join(x_labels)},...{''.join(y_labels)}->...{''.join(out)}"
    return einsum(spec, xc, yc)


# PyTensor's annotation aliases: one contraction step, and a contraction path
CONTRACTION_STEP = tuple[tuple[int, ...], set[str], str]
PATH = tuple[tuple[int] | tuple[int, int], ...]
