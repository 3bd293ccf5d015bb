"""Vectorising a graph: every node that depends on some variables rebuilt with a batch axis.

Used by jacobian/hessian: the vector-Jacobian product graph is built once for
a symbolic cotangent ``u``, then rebuilt over a batch of unit cotangents, so
row k of the result is the gradient of element k.  Each Op class has a rule
in the batching table (:data:`opgraph.graph.replace.BATCHING_RULES`) that the
module defining the Op fills (``register_batching_rule``); an Op without one
(or whose rule declines) goes to the table's fallback, the entry of ``object``
that :mod:`opgraph.autodiff.batched` registers (a loop over the rows) and the
tensor layer replaces (a Blockwise, the loop for non-tensor inputs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.autodiff import arith
from opgraph.autodiff.reverse import apply_nodes_above
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.replace import (
    BATCHING_RULES,
    BatchingRule,
    NoBatchingRule,
    apply_batching_rule,
    batch_axes_of,
    one_batch_axis,
    register_batching_rule,
)

__all__ = [
    "BATCHING_RULES",
    "BatchingRule",
    "NoBatchingRule",
    "batch_node",
    "dims_of",
    "one_batch_axis",
    "register_batching_rule",
    "register_fallback",
    "vectorize_graph",
    "vectorize_outputs",
]


def register_fallback(rule: BatchingRule) -> None:
    """The rule for Ops that have none (or whose rule raises :class:`NoBatchingRule`).

    The batching table's entry of ``object`` (``register_batching_rule(object, rule)``).
    """
    register_batching_rule(object, rule, stacklevel=2)


def batch_node(node: Apply, ins: list[Variable], flags: list[bool]) -> tuple[list[Any], list[bool]]:
    """``node`` rebuilt over inputs ``ins`` that carry one batch axis where ``flags`` say.

    Returns the outputs and which of them carry the batch axis.
    """
    outs = apply_batching_rule(node, ins, [int(f) for f in flags])
    return outs, [batch_axes_of(o, n) > 0 for o, n in zip(node.outputs, outs)]


def vectorize_graph(
    outputs: Sequence[Variable], replace: dict[Variable, Variable], batch: Any
) -> list[Variable]:
    """``outputs`` rebuilt with each ``replace`` key swapped for its batched value.

    Every result has a leading batch axis of length ``batch``; an output that
    does not depend on any replaced variable is repeated.
    """
    new: dict[Variable, Variable] = dict(replace)
    is_batched: dict[Variable, bool] = {k: True for k in replace}
    for node in apply_nodes_above(outputs, set(replace)):
        flags = [is_batched.get(i, False) for i in node.inputs]
        ins = [new.get(i, i) for i in node.inputs]
        if not any(flags):
            if all(a is b for a, b in zip(ins, node.inputs)):
                continue
            # An input was replaced by an unbatched value (e.g. a shape): rebuild as is.
            outs, out_flags = node.op(*ins, return_list=True), [False] * len(node.outputs)
        else:
            outs, out_flags = batch_node(node, ins, flags)
        for old, o, f in zip(node.outputs, outs, out_flags):
            new[old] = o
            is_batched[old] = f
    pt = arith._pt()
    result = []
    for out in outputs:
        if is_batched.get(out, False):
            result.append(new[out])
        else:  # does not depend on the batched input: the same for every row
            result.append(pt.alloc(new.get(out, out), batch, *dims_of(out)))
    return result


vectorize_outputs = vectorize_graph


def dims_of(var: Variable) -> list[Any]:
    static = var.type.shape
    return [s if s is not None else var.shape[i] for i, s in enumerate(static)]
