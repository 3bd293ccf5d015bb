"""``PdbBreakpoint``: stop in the debugger inside a compiled function when a condition holds.

``x, y = PdbBreakpoint("too big")(pt.gt(x.sum(), 100), x, y)`` passes ``x`` and
``y`` through unchanged; when the condition is true at run time it prints what
it monitors and calls ``breakpoint()`` (so ``PYTHONBREAKPOINT`` picks pdb, ipdb
or pudb).  The monitored values are in the list ``monitored`` in that frame;
changes made there are what the outputs carry when execution resumes.  Use at
least one output, or the node is removed as dead code.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.gradient import disconnected_type
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["PdbBreakpoint"]


class PdbBreakpoint(Op):
    """An identity on the monitored variables that enters the debugger when
    ``condition`` (a scalar) is true."""

    __props__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name
        self.view_map: dict[int, list[int]] = {}

    def make_node(self, condition: Any, *monitored_vars: Any) -> Apply:
        condition = as_tensor_variable(condition)
        if condition.type.ndim != 0:
            raise TypeError(f"PdbBreakpoint {self.name!r}: the condition must be a scalar, got "
                            f"{condition.type.ndim} dimensions")
        monitored = [v if isinstance(v, Variable) else as_tensor_variable(v)
                     for v in monitored_vars]
        op = PdbBreakpoint(self.name)
        op.view_map = {i: [i + 1] for i in range(len(monitored))}
        return Apply(op, [condition, *monitored], [v.type() for v in monitored])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        values = list(inputs[1:])
        if inputs[0]:
            try:
                monitored = [np.asarray(v) for v in values]
            except Exception as exc:
                raise ValueError(f"PdbBreakpoint {self.name!r}: a monitored value cannot be "
                                 "read as a NumPy array") from exc
            print(f"\nConditional breakpoint {self.name!r} activated: the monitored values "
                  "are, in order, in the list `monitored` (edit them to change what the "
                  "outputs carry).", file=sys.stderr)
            breakpoint()
            values = [out.type.filter(m) for out, m in zip(node.outputs, monitored)]
        for cell, value in zip(output_storage, values):
            cell[0] = value

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return [disconnected_type(), *cotangents]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        n_out = len(node.outputs)
        return [[out == inp - 1 for out in range(n_out)] for inp in range(n_out + 1)]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return list(input_shapes[1:])
