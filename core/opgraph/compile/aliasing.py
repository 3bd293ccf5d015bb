"""PyTensor's ``pytensor.compile.aliasing.add_supervisor_to_fgraph``.

Before in-place rewrites run on a bare FunctionGraph, the graph needs the same
guard ``function()`` attaches: a DestroyHandler that lets an Op overwrite only
the inputs declared ``In(x, mutable=True)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.destroyhandler import DestroyHandler
from opgraph.graph.fg import FunctionGraph

__all__ = ["add_supervisor_to_fgraph"]


def add_supervisor_to_fgraph(
    fgraph: FunctionGraph, input_specs: Sequence[Any], accept_inplace: bool = False
) -> None:
    """Protect the inputs of ``fgraph`` whose spec (an ``In``) is not ``mutable``.

    Raises TypeError when the graph already holds an in-place Op and
    ``accept_inplace`` is False, as ``function()`` does.
    """
    if not isinstance(fgraph, FunctionGraph):
        raise TypeError(
            f"add_supervisor_to_fgraph: fgraph must be a FunctionGraph, got {type(fgraph).__name__}"
        )
    specs = list(input_specs)
    if len(specs) != len(fgraph.inputs):
        raise ValueError(
            f"add_supervisor_to_fgraph: got {len(specs)} input specs for "
            f"{len(fgraph.inputs)} graph inputs"
        )
    destroyers = [n for n in fgraph.apply_nodes if getattr(n.op, "destroy_map", None)]
    if destroyers and not accept_inplace:
        node = destroyers[0]
        raise TypeError(
            f"add_supervisor_to_fgraph: the graph contains the in-place operation {node.op} "
            f"(destroy_map {node.op.destroy_map}); pass accept_inplace=True"
        )
    mutable = [var for var, spec in zip(fgraph.inputs, specs, strict=True)
               if getattr(spec, "mutable", False)]
    handler = next((f for f in fgraph.features if isinstance(f, DestroyHandler)), None)
    if handler is None:
        fgraph.attach_feature(DestroyHandler(mutable_inputs=mutable))
    else:
        handler.mutable.update(mutable)
