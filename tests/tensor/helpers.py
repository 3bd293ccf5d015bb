"""Evaluate a graph without a linker: call each node's ``perform`` in topological order.

``evaluate(outputs, {var: value})`` returns one value (or a list for a list of
outputs).  Input values go through ``Type.filter`` (non-strict, like
``function``), constants use their data, and every output value is checked
against its Variable's Type, so a perform returning the wrong dtype or shape
fails loudly here.  Lazy ops (IfElse) are run eagerly: perform sees all inputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opgraph.graph.basic import Constant, Variable, io_toposort


def evaluate(
    outputs: Variable | Sequence[Variable],
    givens: Mapping[Variable, Any] | None = None,
    check_types: bool = True,
) -> Any:
    """Values of ``outputs`` given values for the graph's free inputs."""
    single = isinstance(outputs, Variable)
    outs = [outputs] if single else list(outputs)
    givens = dict(givens or {})
    storage: dict[Variable, Any] = {}
    for var, value in givens.items():
        if not isinstance(var, Variable):
            raise TypeError(f"evaluate: keys must be Variables, got {type(var).__name__} {var!r}")
        storage[var] = var.type.filter(value, strict=False, allow_downcast=None)

    for node in io_toposort(list(givens), outs):
        args = []
        for inp in node.inputs:
            if inp in storage:
                args.append(storage[inp])
            elif isinstance(inp, Constant):
                args.append(inp.data)
            else:
                raise ValueError(
                    f"evaluate: no value given for the input {inp} (type {inp.type}) "
                    f"needed by {node.op}"
                )
        cells: list[list[Any]] = [[None] for _ in node.outputs]
        node.op.perform(node, args, cells)
        for var, cell in zip(node.outputs, cells):
            if check_types:
                try:
                    var.type.filter(cell[0], strict=True)
                except TypeError as exc:
                    raise AssertionError(
                        f"{node.op}.perform produced a value that does not match its output "
                        f"type {var.type}: {exc}"
                    ) from None
            storage[var] = cell[0]

    results = []
    for o in outs:
        if o in storage:
            results.append(storage[o])
        elif isinstance(o, Constant):
            results.append(o.data)
        else:
            raise ValueError(f"evaluate: no value given for the output {o} (a free input)")
    return results[0] if single else results
