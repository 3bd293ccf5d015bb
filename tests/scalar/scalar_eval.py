"""A tiny scalar-graph evaluator: walk the graph and call each op's perform.

The core tests cannot compile functions (no linker is installed), so scalar
graphs are evaluated node by node here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opgraph.graph.basic import Constant, Variable, io_toposort


def evaluate(outputs: Variable | Sequence[Variable], givens: Mapping[Variable, Any]) -> Any:
    """Values of ``outputs`` given values of the graph inputs."""
    single = isinstance(outputs, Variable)
    outs = [outputs] if single else list(outputs)
    values: dict[Variable, Any] = {
        k: k.type.filter(v, allow_downcast=True) for k, v in givens.items()
    }
    for node in io_toposort(list(givens), outs):
        args = []
        for v in node.inputs:
            if v in values:
                args.append(values[v])
            elif isinstance(v, Constant):
                args.append(v.data)
            else:
                raise KeyError(f"no value for {v}")
        storage = [[None] for _ in node.outputs]
        node.op.perform(node, args, storage)
        for o, cell in zip(node.outputs, storage):
            assert o.type.filter(cell[0], strict=True) is not None
            values[o] = cell[0]
    res = [values[o] if o in values else o.data for o in outs]
    return res[0] if single else res
