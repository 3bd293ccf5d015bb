"""Finding the part of a graph that is one pass over the data rows (map and reduce).

A likelihood over data (``X``, ``y`` with N rows) and its gradient are
row-local products and elementwise work (``X @ w``, ``y*z - softplus(z)``)
followed by sums over the rows (``sum``, ``X.T @ r``).  Translated node by
node, each product is its own dask layer that reads the data again; fused,
each chunk is read once, cut into cache-sized row tiles, and one compiled
function computes every row-local value and every partial reduction of a tile
while it is in cache (see :mod:`opgraph_dask.tiles`).

The analysis runs per call signature (which inputs are the N-row data) and
tracks, for every value computed from the data, which of its axes are the
rows.  A node joins the region when:

- ``Elemwise``: the row inputs agree on the row axis, the others are
  statically broadcastable along it;
- ``DimShuffle``: it moves the row axis (never drops it);
- ``CAReduce``: over other axes (row-local), or over the rows with a
  combinable scalar op (add, mul, max, min, and, or: a reduction);
- ``Dot``: one row operand whose row axis is not contracted (row-local), or
  two row operands contracted along their rows (a reduction, combined by sum).

Values the rest of the graph needs are exported: row-local ones as chunked
dask arrays, reductions as the combination of the per-chunk partials.  A node
that reads a reduction, or anything computed from one, runs after the region
(normal translation); a region is used only when it holds a reduction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from opgraph.graph.basic import Apply, Variable
from opgraph.scalar import arith as sa
from opgraph.scalar import logic as sl
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.products import Dot
from opgraph.tensor.reduction import CAReduce
from opgraph.tensor.type import TensorType

__all__ = ["COMBINE", "RowRegion", "find_region"]

#: how the partial results of a reduction over rows combine (NumPy ufunc names)
COMBINE: dict[type, str] = {
    sa.Add: "add",
    sa.Mul: "multiply",
    sa.Maximum: "maximum",
    sa.Minimum: "minimum",
    sl.AND: "logical_and",
    sl.OR: "logical_or",
}


@attrs.define(eq=False)
class RowRegion:
    """The fused part of a graph for one call signature.

    ``nodes`` in graph order; ``row_inputs`` the data inputs (rows on axis 0);
    ``outer_inputs`` the other values its nodes read (small: parameters,
    shapes); ``row_exports`` maps row-local values the rest of the graph
    needs to their row axis; ``reduce_exports`` maps reductions to the ufunc
    that combines partials; ``after`` the nodes that must run after it.
    """

    nodes: list[Apply]
    row_inputs: list[Variable]
    outer_inputs: list[Variable]
    row_exports: dict[Variable, int]
    reduce_exports: dict[Variable, str]
    after: set[Apply]


def _axes(op: CAReduce, ndim: int) -> set[int]:
    if op.axis is None:
        return set(range(ndim))
    return {a % ndim for a in op.axis} if ndim else set()


def _classify(node: Apply, row_axis: dict[Variable, int]) -> tuple[str, Any] | None:
    """("local", [row axis per output]) or ("reduce", ufunc name), or None (not fusable)."""
    op = node.op
    rows = [row_axis.get(v) for v in node.inputs]
    if isinstance(op, Elemwise):
        axes = {r for r in rows if r is not None}
        if len(axes) != 1:
            return None
        (ra,) = axes
        for var, r in zip(node.inputs, rows):
            if r is None and not (isinstance(var.type, TensorType) and var.type.ndim > ra
                                  and var.type.shape[ra] == 1):
                return None
        return "local", [ra] * len(node.outputs)
    if isinstance(op, DimShuffle):
        ra = rows[0]
        if ra not in op.new_order:
            return None
        return "local", [list(op.new_order).index(ra)]
    if isinstance(op, CAReduce):
        ra = rows[0]
        axes = _axes(op, node.inputs[0].type.ndim)
        if ra in axes:
            name = COMBINE.get(type(op.scalar_op))
            return None if name is None else ("reduce", name)
        return "local", [ra - sum(a < ra for a in axes)]
    if isinstance(op, Dot):
        a, _b = node.inputs
        ra, rb = rows
        if ra is not None and rb is not None:
            if ra == a.type.ndim - 1 and rb == 0:
                return "reduce", "add"
            return None
        if ra is not None:
            return (None if ra == a.type.ndim - 1 else ("local", [ra]))
        if rb == 0:
            return None
        return "local", [a.type.ndim - 1 + rb - 1]
    return None


def find_region(order: Sequence[Apply], row_inputs: Sequence[Variable],
                graph_outputs: Sequence[Variable]) -> RowRegion | None:
    """The row region of ``order`` given the data inputs, or None when it has no reduction."""
    row_axis: dict[Variable, int] = {v: 0 for v in row_inputs}
    reduced: set[Variable] = set()
    produced: set[Variable] = set()  # outputs of region nodes
    after_vars: set[Variable] = set()
    nodes: list[Apply] = []
    after: set[Apply] = set()
    for node in order:
        if any(v in reduced or v in after_vars for v in node.inputs):
            after.add(node)
            after_vars.update(node.outputs)
            continue
        if not any(v in row_axis for v in node.inputs):
            continue  # before the region (parameters, shapes)
        kind = _classify(node, row_axis)
        if kind is None:
            if any(v in produced for v in node.inputs):
                after.add(node)
                after_vars.update(node.outputs)
            continue
        nodes.append(node)
        produced.update(node.outputs)
        if kind[0] == "reduce":
            reduced.update(node.outputs)
        else:
            row_axis.update(zip(node.outputs, kind[1]))
    if not reduced:
        return None
    region = set(nodes)
    needed: set[Variable] = set(graph_outputs)
    for node in order:
        if node not in region:
            needed.update(node.inputs)
    outer: list[Variable] = []
    seen: set[Variable] = set()
    used_rows: list[Variable] = []
    for node in nodes:
        for v in node.inputs:
            if v in seen or v in produced:
                continue
            seen.add(v)
            (used_rows if v in row_axis else outer).append(v)
    row_exports: dict[Variable, int] = {}
    reduce_exports: dict[Variable, str] = {}
    for node in nodes:
        for v in node.outputs:
            if v not in needed:
                continue
            if v in reduced:
                reduce_exports[v] = _classify(node, row_axis)[1]
            else:
                row_exports[v] = row_axis[v]
    return RowRegion(nodes=nodes, row_inputs=used_rows, outer_inputs=outer,
                     row_exports=row_exports, reduce_exports=reduce_exports, after=after)
