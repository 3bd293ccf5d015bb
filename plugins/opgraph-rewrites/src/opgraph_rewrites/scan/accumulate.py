"""Move a sum of per-step outer products out of a loop: one matrix product after it.

A backward loop accumulates the weight gradient of ``W @ h`` as
``acc = acc + outer(d_t, h_{t-1})``: one rank-1 update of a whole matrix per
step, which reads and writes the matrix every step.  The same sum is
``D.T @ H`` over the stacked vectors, one GEMM after the loop.

The rewrite applies to a sit-sot state ``acc`` (tap -1) whose step is
``acc + outer(u_t, v_t)``, or ``acc`` plus a sum of such terms (``outer`` as
``dot(u[:, None], v[None, :])`` or ``u[:, None] * v[None, :]``), where ``acc``
is read nowhere else in the body and only its last row is read after the
loop (``buf[-1]``, as a gradient reads it).  Each of ``u`` and ``v`` is taken
from a sequence, from the buffer of a recurrent output (a tap input), from a
per-step output returning it already, or else becomes a new per-step (nit-sot)
output of the loop.  The state is dropped and its last row becomes
``init[0] + U.T @ V`` (one product per term).  A per-step value of the
state's own type added beside the products (the bias gradient ``acc + d_t``)
becomes ``D.sum(axis=0)``.  A product written ``u[:, None] @ v[:, None].T``
(how a pullback of ``W @ h`` comes out) counts as an outer product too, and
the rewrite revisits the new loop, so every such state of one loop moves out.
An outer product scattered into a block of zeros with loop-invariant bounds,
``inc_subtensor(zeros[a:b], outer(u_t, v_t))`` (the pullback of a row block
``W[a:b] @ h``), sums to ``inc_subtensor(zeros[a:b], U.T @ V)``: the sum of
increments of a zero matrix is the increment by their sum.
"""

from __future__ import annotations

from typing import Any

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Constant, Variable, graph_inputs, io_toposort
from opgraph.graph.replace import graph_replace
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs
from opgraph.tensor.constant_value import get_underlying_scalar_constant_value
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.exceptions import NotScalarConstantError
from opgraph.tensor.products import Dot, MatMul
from opgraph.tensor.subtensor import IncSubtensor, Subtensor
from opgraph_rewrites.scan.save_mem import last_rows_needed
from opgraph_rewrites.utils import keep_type

__all__ = ["outer_factors", "scan_push_out_outer_sum"]


def _as_column(v: Variable, order: tuple) -> Variable | None:
    """The vector behind ``v`` when ``v`` is it as a column (``(0, "x")``) or row.

    Chains of DimShuffles are composed first: a gradient writes a row as the
    transpose of a column (``h[:, None].T``), which is ``h[None, :]``.
    """
    composed: tuple | None = None
    while v.owner is not None and isinstance(v.owner.op, DimShuffle):
        step = tuple(v.owner.op.new_order)
        composed = step if composed is None else tuple(
            "x" if i == "x" else step[i] for i in composed)
        v = v.owner.inputs[0]
    if composed != order or v.type.ndim != 1:
        return None
    return v


def _scalar(x: Variable) -> Variable | None:
    """``x`` as a 0-d value when every dimension of it has length 1, else None."""
    if not x.type.ndim:
        return x
    if all(x.type.broadcastable):
        return x[(0,) * x.type.ndim]
    return None


def _scaled(node: Apply) -> tuple[Variable, Variable] | None:
    """``c * outer(u, v)`` with scalar factors ``c``: ``(u * c, v)``."""
    inner, scale = None, []
    for x in node.inputs:
        found = outer_factors(x) if inner is None and x.type.ndim == 2 else None
        if found is not None:
            inner = found
            continue
        c = _scalar(x)
        if c is None:
            return None
        scale.append(c)
    if inner is None or not scale:
        return None
    u, v = inner
    for c in scale:
        u = u * c
    if u.type.dtype != v.type.dtype:
        return None
    return u, v


def outer_factors(term: Variable) -> tuple[Variable, Variable] | None:
    """``(u, v)`` when ``term`` is the outer product of vectors ``u`` and ``v``, else None.

    A product of an outer product with scalars (``2.0 * outer(u, v)``) gives
    ``(u * 2.0, v)``: the scale is applied to the vector, in the loop.
    """
    node = term.owner
    if node is None:
        return None
    is_dot = isinstance(node.op, Dot | MatMul) and term.type.ndim == 2
    is_mul = isinstance(node.op, Elemwise) and isinstance(node.op.scalar_op, ps.Mul)
    if not (is_dot or is_mul):
        return None
    if is_mul and term.type.ndim == 2:
        scaled = _scaled(node)
        if scaled is not None:
            return scaled
    if len(node.inputs) != 2:
        return None
    u = _as_column(node.inputs[0], (0, "x"))
    v = _as_column(node.inputs[1], ("x", 0))
    if u is None or v is None:
        return None
    if u.type.dtype != term.type.dtype or v.type.dtype != term.type.dtype:
        return None
    return u, v


def _is_add(v: Variable) -> bool:
    node = v.owner
    return node is not None and isinstance(node.op, Elemwise) and \
        isinstance(node.op.scalar_op, ps.Add)


def _summands(v: Variable) -> list[Variable]:
    """The terms of a tree of additions (``v`` itself when it is not an addition)."""
    if not _is_add(v):
        return [v]
    return [t for x in v.owner.inputs for t in _summands(x)]


Term = tuple[Variable, Variable | None, Any]


class _Scatter:
    """How a summed product is placed in the state (``place``) and the block's shape."""

    def __init__(self, place: Any, shape: tuple[Any, Any]) -> None:
        self.place, self.shape = place, shape


def _rows(stack: Variable, n: Any, length: Any) -> Variable:
    """``stack`` as ``(n, length)``: a loop of no steps stacks rows of unknown length as
    0, and the product after it must still have the state's shape.  A static length-1
    row (a broadcasting factor) is left as it is."""
    if stack.type.shape[1:] == (1,):
        return stack
    return stack.reshape((n, length), ndim=2)


def _invariant_outer(args: ScanArgs, x: Variable) -> Variable | None:
    """``x``'s value outside the loop when it reads only non-sequences and constants."""
    outer_of = dict(zip(args.inner_in_non_seqs, args.outer_in_non_seqs))
    if isinstance(x, Constant) or x in outer_of:
        return outer_of.get(x, x)
    if any(not isinstance(i, Constant) and i not in outer_of for i in graph_inputs([x])):
        return None
    return graph_replace([x], outer_of, strict=False)[0]


def _is_zero(x: Variable) -> bool:
    try:
        return bool(get_underlying_scalar_constant_value(x, elemwise=False) == 0)
    except NotScalarConstantError:
        return False


def _scattered(args: ScanArgs, term: Variable) -> Term | None:
    """``(u, v, wrap)`` when ``term`` is ``inc_subtensor(zeros[idx], outer(u, v))`` with a
    loop-invariant ``zeros`` and ``idx``; ``wrap(s)`` is ``inc_subtensor(zeros[idx], s)``
    outside the loop."""
    node = term.owner
    if node is None or not isinstance(node.op, IncSubtensor) or node.op.set_instead_of_inc:
        return None
    found = outer_factors(node.inputs[1])
    if found is None or node.inputs[1].type.ndim != 2:
        return None
    outer = [_invariant_outer(args, x) for x in (node.inputs[0], *node.inputs[2:])]
    if any(x is None for x in outer) or not _is_zero(outer[0]):
        return None
    op = IncSubtensor(node.op.idx_spec)
    block = Subtensor(node.op.idx_spec)(outer[0], *outer[1:])
    return (*found, _Scatter(lambda summed: op(outer[0], summed, *outer[1:]),
                             (block.shape[0], block.shape[1])))


def _accumulated(args: ScanArgs, k: int, uses: dict[Variable, int]) -> list[Term] | None:
    """The terms of sit-sot ``k`` when its step is ``acc + sum_i term_i``.

    Each term is an outer product ``(u, v, None)``, one scattered into a zero block
    ``(u, v, wrap)``, or, as ``(x, None, None)``, a per-step value of the state's own
    type (a bias gradient ``acc + d_t``), whose sum over the steps is one reduction
    after the loop.
    """
    if args.sit_sot_in_slices[k] != [-1]:
        return None
    acc, out = args.inner_in_sit_sot[k], args.inner_out_sit_sot[k]
    if not _is_add(out) or uses.get(acc, 0) != 1 or acc in args.inner_outputs:
        return None
    ins = out.owner.inputs
    if sum(x is acc for x in ins) != 1:
        return None
    terms: list[Term] = []
    for x in ins:
        if x is acc:
            continue
        for term in _summands(x):
            if term.type.dtype != out.type.dtype:
                return None
            found = outer_factors(term)
            scattered = None if found is not None else _scattered(args, term)
            if found is not None:
                terms.append((*found, None))
            elif scattered is not None and scattered[0].type.dtype == out.type.dtype:
                terms.append(scattered)
            elif term.type.broadcastable == out.type.broadcastable and out.type.ndim <= 1:
                # a vector per step (a bias gradient): stacking it costs what the outer
                # products' factors cost; a whole matrix per step would cost far more
                terms.append((term, None, None))
            else:
                return None
    if all(v is None for _u, v, _w in terms):
        return None  # a plain running sum: nothing is saved per step by moving it
    return terms


_NOT_PER_STEP = object()


def _stacked(args: ScanArgs, x: Variable) -> Any:
    """Where the values of ``x`` over the steps are found outside the loop.

    An outer variable (a sequence's first ``n_steps`` rows, or a per-step
    output of the old node that already returns ``x``), ``(buffer, start)``
    for a tap of a recurrent output (the old node's buffer, rows from
    ``start``), None when ``x`` must become a new per-step output, or
    ``_NOT_PER_STEP`` for a non-sequence or shared value.
    """
    if x in args.inner_in_seqs:
        return args.outer_in_seqs[args.inner_in_seqs.index(x)][:args.n_steps]
    groups = list(zip(args.mit_sot_in_slices, args.inner_in_mit_sot, args.outer_out_mit_sot))
    groups += [(t, [i], buf) for t, i, buf in
               zip(args.sit_sot_in_slices, args.inner_in_sit_sot, args.outer_out_sit_sot)]
    for taps, ins, buf in groups:
        if x in ins:
            return buf, -min(taps) + taps[ins.index(x)]
    if x in args.inner_inputs:
        return _NOT_PER_STEP
    if x in args.inner_out_nit_sot:  # already returned per step (a sequence's gradient)
        return args.outer_out_nit_sot[args.inner_out_nit_sot.index(x)]
    return None


@node_rewriter([Scan])
def scan_push_out_outer_sum(fgraph: Any, node: Apply) -> Any:
    """Turn an accumulated sum of per-step outer products into one product after the loop."""
    op = node.op
    if op.info.n_mit_mot or op.info.as_while or op.keep_last:
        return False
    args = ScanArgs.from_node(node)
    uses: dict[Variable, int] = {}
    for inner in io_toposort(args.inner_inputs, args.inner_outputs):
        for x in inner.inputs:
            uses[x] = uses.get(x, 0) + 1
    for k in range(len(args.inner_in_sit_sot)):
        terms = _accumulated(args, k, uses)
        if terms is None:
            continue
        found = last_rows_needed(fgraph, args.outer_out_sit_sot[k], 1)
        if found is None or found[0] != 1:
            continue
        flat = [x for u, v, _w in terms for x in (u, v) if x is not None]
        where = [_stacked(args, x) for x in flat]
        if any(w is _NOT_PER_STEP for w in where):
            continue
        kinds = [(v is not None, wrap) for _u, v, wrap in terms]
        return _move_out(args, k, flat, where, kinds,
                         [read for read, _c, _kind in found[1]]) or False
    return False


def _move_out(args: ScanArgs, k: int, factors: list[Variable], where: list,
              kinds: list[tuple[bool, Any]], reads: list[Apply]) -> dict[Variable, Variable]:
    """Drop sit-sot ``k``, add the nit-sot outputs needed, build ``init[0] + sum U.T @ V``.

    ``factors`` holds each term's vectors in order (``u, v`` for an outer product,
    ``x`` for a summed value; ``kinds`` says which, and how a product is placed in the
    state's shape); ``where`` says where each is found.
    """
    init = args.outer_in_sit_sot[k]
    for name in ("outer_in_sit_sot", "inner_in_sit_sot", "inner_out_sit_sot",
                 "outer_out_sit_sot", "sit_sot_in_slices"):
        lst = getattr(args, name)
        setattr(args, name, lst[:k] + lst[k + 1:])
    marks: list[Any] = []
    added: dict[Variable, Any] = {}
    for x, w in zip(factors, where):
        if w is None and x in added:
            marks.append(added[x])
        elif w is None:
            mark = object()  # stands for the new output until the node exists
            args.inner_out_nit_sot.append(x)
            args.outer_in_nit_sot.append(args.n_steps)
            args.outer_out_nit_sot.append(mark)
            marks.append(mark)
            added[x] = mark
        else:
            marks.append(None)
    new = args.make_node()
    old_to_new = dict(zip(args.outer_outputs, new.outputs))
    n = args.n_steps
    stacks = []
    for w, mark in zip(where, marks):
        if mark is not None:
            stacks.append(old_to_new[mark])
        elif isinstance(w, tuple):
            buf, start = w
            stacks.append(old_to_new[buf][start:start + n])
        else:
            stacks.append(old_to_new.get(w, w))
    last = init[0]
    rest = iter(stacks)
    row_shape = [init.shape[d] for d in range(1, init.type.ndim)]
    for is_outer, wrap in kinds:
        stack = next(rest)
        if not is_outer:
            total = stack.reshape((n, *row_shape), ndim=init.type.ndim).sum(axis=0)
        else:
            rows, cols = wrap.shape if wrap is not None else row_shape
            total = pt.dot(_rows(stack, n, rows).T, _rows(next(rest), n, cols))
        last = last + (wrap.place(total) if wrap is not None else total)
    if last.type.dtype != init.type.dtype:
        last = pt.cast(last, init.type.dtype)
    out = {o: nw for o, nw in old_to_new.items() if isinstance(o, Variable)}
    for read in reads:
        fixed = keep_type(read.outputs[0], last)
        if fixed is None:
            return {}
        out[read.outputs[0]] = fixed
    return out
