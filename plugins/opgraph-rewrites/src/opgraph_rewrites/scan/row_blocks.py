"""Read a row block's product from the whole matrix's product in a loop body.

A GRU-like cell computes ``W @ h`` for its gates and ``W[2n:] @ h`` for its
candidate: every step reads the block ``W[2n:]`` again on top of ``W`` (a third
more matrix per step; at hidden 256, 2 MiB a step instead of 1.5 MiB, more than
L2 holds, so the weights stream from L3).  The rows of ``W[a:b] @ v`` are rows
``a:b`` of ``W @ v`` (each is the dot product of one row of ``W`` with ``v``), so
when the body also computes ``W @ v`` with the same ``v`` the block's product is
read from it.  The block is recognised inside the body (``W[a:b]`` of an inner
variable) or as a non-sequence that ``scan_push_out_non_seq`` made of an outer
``W[a:b]`` of another non-sequence's outer matrix; the bounds must be constants.
The gemv kernels sum each row alike whatever rows they are given, so the values
are those of the block's own product up to the summation order BLAS picks.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Constant, Variable, io_toposort
from opgraph.graph.replace import graph_replace
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs
from opgraph.tensor.indexing import SliceSpec
from opgraph.tensor.products import Dot, MatMul
from opgraph.tensor.subtensor import Subtensor
from opgraph_rewrites.scan.body import set_inner_outputs

__all__ = ["row_block_products", "scan_share_row_block_products"]


def _row_slice(var: Variable) -> tuple[Variable, Apply] | None:
    """``(base, subtensor node)`` when ``var`` is ``base[a:b:c]`` (rows of a matrix,
    constant bounds), else None."""
    node = var.owner
    if node is None or not isinstance(node.op, Subtensor) or node.inputs[0].type.ndim != 2:
        return None
    spec = node.op.idx_spec
    if len(spec) != 1 or not isinstance(spec[0], SliceSpec):
        return None
    if not all(isinstance(i, Constant) for i in node.inputs[1:]):
        return None
    return node.inputs[0], node


def _block_of(args: ScanArgs, a: Variable) -> tuple[Variable, Apply] | None:
    """``(inner matrix, subtensor node)`` when the inner variable ``a`` is a row block of
    another inner matrix: sliced in the body, or a non-sequence sliced from another
    non-sequence's outer matrix."""
    found = _row_slice(a)
    if found is not None:
        return found
    outer = dict(zip(args.inner_in_non_seqs, args.outer_in_non_seqs))
    if a not in outer:
        return None
    found = _row_slice(outer[a])
    if found is None:
        return None
    base_outer, sub = found
    for inner, out in outer.items():
        if out is base_outer and inner is not a:
            return inner, sub
    return None


def _key(var: Variable, depth: int = 4) -> Any:
    """A hashable description of how ``var`` is computed (the body is not merged yet:
    ``dot(W, h)`` and ``dot(W[a:b], h)`` may each have their own ``h[:, None]``)."""
    node = var.owner
    if node is None or depth == 0:
        return var
    return (node.op, node.outputs.index(var),
            tuple(_key(i, depth - 1) for i in node.inputs))


def _is_product(node: Apply) -> bool:
    return (isinstance(node.op, Dot | MatMul) and len(node.inputs) == 2
            and node.inputs[0].type.ndim == 2)


def row_block_products(args: ScanArgs) -> bool:
    """Edit ``args`` in place: each block product read from the whole one.  True if any."""
    nodes = io_toposort(args.inner_inputs, args.inner_outputs)
    whole = {(n.op, n.inputs[0], _key(n.inputs[1])): n.outputs[0]
             for n in nodes if _is_product(n)}
    replace: dict[Variable, Variable] = {}
    for n in nodes:
        if not _is_product(n):
            continue
        block = _block_of(args, n.inputs[0])
        if block is None:
            continue
        base, sub = block
        full = whole.get((n.op, base, _key(n.inputs[1])))
        if full is None:
            continue
        new = sub.op.make_node(full, *sub.inputs[1:]).outputs[0]
        if new.type.dtype == n.outputs[0].type.dtype and new.type.ndim == n.outputs[0].type.ndim:
            replace[n.outputs[0]] = new
    if not replace:
        return False
    # graph_replace keeps the whole product's node (clone_replace would copy it once more)
    set_inner_outputs(args, graph_replace(args.inner_outputs, replace, strict=False))
    return True


@node_rewriter([Scan])
def scan_share_row_block_products(fgraph: Any, node: Apply) -> Any:
    """``W[a:b] @ v`` in a body that also computes ``W @ v``: read as ``(W @ v)[a:b]``."""
    args = ScanArgs.from_node(node)
    if not row_block_products(args):
        return False
    return dict(zip(node.outputs, args.make_node().outputs))
