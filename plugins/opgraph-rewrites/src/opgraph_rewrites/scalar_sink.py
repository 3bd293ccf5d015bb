"""Elementwise work on broadcast scalars runs on the scalars.

PyMC writes ``sigma > 0`` and ``sigma ** 2`` on ``sigma.dimshuffle('x')``:
an Elemwise over a length-1 vector whose every input is an expanded scalar
or a one-value constant.  Computed on the 0-d values, the node joins the
scalar fusion cluster next to it and one DimShuffle expands the result,
instead of a C node per operation on a (1,)-array (the expansion moves
below the operation: ``local_dimshuffle_lift``'s inverse, so it runs in the
fusion phase, after every pass that lifts).  Same values and dtypes: the operation
sees the same numbers, only the array around them is smaller.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.variable import constant
from opgraph_rewrites.utils import keep_type

__all__ = ["local_elemwise_of_expanded_scalars", "scalar_sink_rewriters"]


def _as_scalar(var: Variable) -> tuple[Variable, bool] | None:
    """(the 0-d value of a length-1 ``var``, whether it was an expansion), or None."""
    if isinstance(var, Constant):
        data = np.asarray(var.data)
        if data.size != 1:
            return None
        return constant(data.reshape(()), dtype=var.type.dtype), False
    node = var.owner
    if node is None or not isinstance(node.op, DimShuffle):
        return None
    inner = node.inputs[0]
    if inner.type.ndim == 0:
        return inner, True
    if all(n == 1 for n in inner.type.shape):  # v[k:k+1].dimshuffle('x', 'x')
        return DimShuffle(input_ndim=inner.type.ndim, new_order=())(inner), True
    return None


@node_rewriter([Elemwise], name="local_elemwise_of_expanded_scalars")
def local_elemwise_of_expanded_scalars(fgraph: Any, node: Apply) -> Any:
    """f(s.dimshuffle('x'), [c]) -> f(s, c).dimshuffle('x') (every output of length 1)."""
    if node.op.inplace_pattern:
        return False
    ndim = node.outputs[0].type.ndim
    if ndim == 0 or any(n != 1 for n in node.outputs[0].type.shape):
        return False
    scalars, expanded = [], False
    for var in node.inputs:
        parts = _as_scalar(var)
        if parts is None:
            return False
        scalars.append(parts[0])
        expanded = expanded or parts[1]
    if not expanded:
        return False  # constants only: constant folding's work
    try:
        outs = Elemwise(node.op.scalar_op).make_node(*scalars).outputs
    except (TypeError, ValueError):
        return False
    fixed = []
    for old, new in zip(node.outputs, outs):
        ds = DimShuffle(input_ndim=0, new_order=("x",) * ndim)(new)
        out = keep_type(old, ds)
        if out is None:
            return False
        fixed.append(out)
    return fixed


def scalar_sink_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the fusion phase (before the fusion)."""
    return [("local_elemwise_of_expanded_scalars", local_elemwise_of_expanded_scalars, ())]
