"""``einsum``: Einstein summation lowered to diagonals, sums and batched matrix products.

The pairwise contraction order comes from NumPy's ``einsum_path`` on the static
shapes (unknown lengths count as 8); each pair is contracted by transposing to
(batch, free, summed) order and one ``matmul``, so gradients, rewrites and BLAS
come for free.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Variable
from opgraph.tensor import math as ptm
from opgraph.tensor.contractions import prod_of
from opgraph.tensor.creation import arange, zeros
from opgraph.tensor.products import matmul
from opgraph.tensor.reduction import sum as pt_sum
from opgraph.tensor.shape import shape_i
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["einsum"]
# PyTensor's tests also import the private helpers _delta, _general_dot and _iota.

_GUESS = 8  # length assumed for a dimension of unknown length when planning the order


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
        n = ptm.minimum(shape_i(moved, 0), shape_i(moved, 1))
        r = arange(n)
        x = moved[r, r]
        labels = labels[i] + "".join(labels[d] for d in rest)


def _sum_out(x: Variable, labels: str, keep: set[str]) -> tuple[Variable, str]:
    gone = [d for d, c in enumerate(labels) if c not in keep]
    if gone:
        x = pt_sum(x, axis=tuple(gone))
        labels = "".join(c for c in labels if c in keep)
    return x, labels


def _contract_pair(a: Variable, la: str, b: Variable, lb: str, keep: set[str]) -> tuple:
    """Contract two operands over their shared labels that are not needed later."""
    shared = [c for c in la if c in lb]
    batch = [c for c in shared if c in keep]
    summed = [c for c in shared if c not in keep]
    free_a = [c for c in la if c not in shared]
    free_b = [c for c in lb if c not in shared]
    sa = {c: shape_i(a, la.index(c)) for c in la}
    sb = {c: shape_i(b, lb.index(c)) for c in lb}
    left = a.dimshuffle(*(la.index(c) for c in [*batch, *free_a, *summed]))
    right = b.dimshuffle(*(lb.index(c) for c in [*batch, *summed, *free_b]))
    nb, nfa, ns, nfb = (prod_of([sa[c] for c in batch]), prod_of([sa[c] for c in free_a]),
                        prod_of([sa[c] for c in summed]), prod_of([sb[c] for c in free_b]))
    left = left.reshape((nb, nfa, ns))
    right = right.reshape((nb, ns, nfb))
    out = matmul(left, right)
    dims = [sa[c] for c in batch] + [sa[c] for c in free_a] + [sb[c] for c in free_b]
    return out.reshape(tuple(dims)), "".join([*batch, *free_a, *free_b])


def _plan(inputs: list[str], rhs: str, operands: Sequence[Variable], optimize: Any) -> list:
    if len(operands) <= 2 or optimize is False:
        return [(0, 1)] * (len(operands) - 1)
    dummies = [np.empty([_GUESS if s is None else max(s, 1) for s in op.type.shape], np.int8)
               for op in operands]
    path, _ = np.einsum_path(",".join(inputs) + "->" + rhs, *dummies,
                             optimize="greedy" if optimize in (True, None) else optimize)
    return [tuple(p) for p in path[1:]]


def einsum(subscripts: str, *operands: Any, optimize: Any = True) -> Variable:
    """Einstein summation, as ``np.einsum`` (contraction order chosen by ``einsum_path``)."""
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a string, got {subscripts!r}")
    ops = [as_tensor_variable(o) for o in operands]
    if not ops:
        raise ValueError("einsum: needs at least one operand")
    inputs, rhs = _parse(subscripts, len(ops), [o.type.ndim for o in ops])
    terms = list(zip(ops, inputs))
    for step in _plan(inputs, rhs, ops, optimize):
        picked = [terms[i] for i in sorted(step, reverse=True)]
        for i in sorted(step, reverse=True):
            del terms[i]
        rest = "".join(lab for _, lab in terms) + rhs
        (x, lx), *others = picked[::-1]
        x, lx = _diagonals(x, lx)
        for k, (y, ly) in enumerate(others):
            y, ly = _diagonals(y, ly)
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
