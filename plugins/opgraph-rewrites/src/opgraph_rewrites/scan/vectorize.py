"""Turn a Scan whose steps are independent into one vectorised computation.

A Scan with only sequences, non-sequences and per-step (nit-sot) outputs, no
recurrent state, no shared updates and no ``until`` computes each step from
that step's slices alone: the body, vectorised over a leading axis of the
sequences (``vectorize_graph``), computes every step at once.
"""

from __future__ import annotations

from typing import Any

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, clone_replace
from opgraph.graph.replace import vectorize_graph
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.raise_op import CheckAndRaise
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs

__all__ = ["scan_to_vectorized"]


def _independent(op: Scan) -> bool:
    i = op.info
    return (i.n_nit_sot > 0 and not (i.n_states or i.n_shared_outs or i.n_mit_mot
                                     or i.as_while))


@node_rewriter([Scan])
def scan_to_vectorized(fgraph: Any, node: Apply) -> Any:
    """Replace a Scan without recurrence by its body vectorised over the steps."""
    if not _independent(node.op):
        return False
    args = ScanArgs.from_node(node)
    n = args.n_steps
    # the loop refuses a negative n_steps or a sequence shorter than n_steps: so does this
    replace = {}
    for k, (inner, outer) in enumerate(zip(args.inner_in_seqs, args.outer_in_seqs)):
        who = f"Scan {node.op.name or ''}".rstrip()
        check = CheckAndRaise(ValueError, f"{who}: sequence {k} has fewer than n_steps entries "
                              "(or n_steps < 0)")
        replace[inner] = check(outer[:n], pt.ge(outer.shape[0], n), pt.ge(n, 0))
    replace.update(zip(args.inner_in_non_seqs, args.outer_in_non_seqs))
    outs = args.inner_out_nit_sot
    try:
        batched = vectorize_graph(outs, replace) if args.inner_in_seqs else \
            clone_replace(outs, replace)
    except (NotImplementedError, TypeError, ValueError):
        return False
    result = []
    for inner, new, outer in zip(outs, batched, args.outer_out_nit_sot):
        if new.type.ndim == inner.type.ndim:  # the same value at every step
            new = pt.alloc(new, n, *[new.shape[d] for d in range(new.type.ndim)])
        if new.type.dtype != outer.type.dtype:
            new = pt.cast(new, outer.type.dtype)
        result.append(new)
    return dict(zip(args.outer_out_nit_sot, result))
