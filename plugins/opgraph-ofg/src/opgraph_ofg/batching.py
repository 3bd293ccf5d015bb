"""The batching rule of OpFromGraph: one OpFromGraph over the vectorised inner graph.

``jacobian`` and ``hessian`` give every node of a gradient graph a leading
batch axis.  For an OpFromGraph that means batching its inner graph once,
with the core's own rules, instead of looping over rows in Python.  An
OpFromGraph with gradient overrides or a destroy_map keeps the core's loop
fallback, so its overrides are still the gradients used.
"""

from __future__ import annotations

from typing import Any

from opgraph.gradient import NoBatchingRule, one_batch_axis, vectorize_graph
from opgraph.graph.basic import Apply, Variable

__all__ = ["batch_opfromgraph"]


def batch_opfromgraph(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    """``node`` over inputs of which those with ``extra`` 1 carry a leading batch axis."""
    batched = one_batch_axis(node, ins, extra)
    op = node.op
    n = op.n_explicit_inputs
    if op.has_overrides or op.destroy_map:
        raise NoBatchingRule(f"{op} has gradient overrides or a destroy_map: loop over rows")
    if any(batched[n:]):
        raise NoBatchingRule(f"{op}: a shared variable cannot carry a batch axis")
    replace: dict[Variable, Variable] = {}
    new_inputs: list[Variable] = []
    for inner, outer, b in zip(op.inner_inputs[:n], ins, batched):
        if b:
            fresh = outer.type()
            fresh.name = inner.name
            replace[inner] = fresh
            new_inputs.append(fresh)
        else:
            new_inputs.append(inner)
    first = next(v for v in replace.values())
    batch: Any = first.type.shape[0] if first.type.shape[0] is not None else first.shape[0]
    outputs = vectorize_graph(op.inner_outputs, replace, batch)
    new_op = type(op)(
        [*new_inputs, *op.inner_inputs[n:]], outputs,
        inline=op.is_inline, name=op.name, **op.kwargs,
    )
    return new_op(*ins, return_list=True)
