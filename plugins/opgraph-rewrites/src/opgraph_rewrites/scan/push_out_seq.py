"""Compute a loop's sequence-only matrix-vector products before it, as one product.

An RNN written with its input projection inside the step,
``h_t = tanh(W @ h_{t-1} + U @ x_t + b)``, multiplies the same matrix ``U`` by
one row of the sequence per step: ``n`` matrix-vector products that each read
all of ``U``.  Those are the rows of ``X @ U.T``, one matrix product before the
loop, which BLAS runs far faster; the body then reads row ``t`` of it as a new
sequence.  The rewrite applies to ``dot``/``@`` of a loop-invariant matrix (a
non-sequence) and a sequence's vector, on either side, in loops that are not
``while`` loops (whose step count is only an upper bound).
"""

from __future__ import annotations

from typing import Any

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Variable, clone_replace, io_toposort
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs
from opgraph.tensor.products import Dot, MatMul
from opgraph_rewrites.scan.body import set_inner_outputs

__all__ = ["scan_push_out_seq_products", "sequence_products"]


def _stacked_product(args: ScanArgs, node: Apply) -> Variable | None:
    """The outer ``(n_steps, k)`` matrix whose row ``t`` is ``node``'s value at step t."""
    if not isinstance(node.op, Dot | MatMul) or len(node.inputs) != 2:
        return None
    a, b = node.inputs
    invariant = dict(zip(args.inner_in_non_seqs, args.outer_in_non_seqs))
    sequence = dict(zip(args.inner_in_seqs, args.outer_in_seqs))
    if a in invariant and b in sequence and a.type.ndim == 2 and b.type.ndim == 1:
        rows = sequence[b][:args.n_steps]
        stacked = pt.dot(rows, invariant[a].T)  # row t: A @ x_t
    elif a in sequence and b in invariant and a.type.ndim == 1 and b.type.ndim == 2:
        stacked = pt.dot(sequence[a][:args.n_steps], invariant[b])  # row t: x_t @ B
    else:
        return None
    out = node.outputs[0]
    if stacked.type.dtype != out.type.dtype or stacked.type.ndim != 2:
        return None
    return stacked


def sequence_products(args: ScanArgs) -> bool:
    """Edit ``args`` in place: each such product becomes a new sequence.  True if any."""
    found: dict[Variable, Variable] = {}
    for node in io_toposort(args.inner_inputs, args.inner_outputs):
        stacked = _stacked_product(args, node)
        if stacked is not None:
            found[node.outputs[0]] = stacked
    if not found:
        return False
    placeholders = {}
    for inner, stacked in found.items():
        ph = inner.type()
        ph.name = inner.name
        placeholders[inner] = ph
        args.inner_in_seqs.append(ph)
        args.outer_in_seqs.append(stacked)
    set_inner_outputs(args, clone_replace(args.inner_outputs, placeholders))
    return True


@node_rewriter([Scan])
def scan_push_out_seq_products(fgraph: Any, node: Apply) -> Any:
    """Move ``matrix @ x_t`` (``x`` a sequence, the matrix invariant) before the loop."""
    if node.op.info.as_while:
        return False
    args = ScanArgs.from_node(node)
    if not sequence_products(args):
        return False
    return dict(zip(node.outputs, args.make_node().outputs))
