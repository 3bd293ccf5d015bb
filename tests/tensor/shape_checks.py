"""Check an op's ``infer_shape`` against the shapes its ``perform`` really produces."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from opgraph.graph.basic import Variable
from opgraph.tensor.shape import shape_tuple

from .helpers import evaluate


def assert_infer_shape(out: Variable, givens: Mapping[Variable, Any]) -> None:
    """infer_shape of ``out``'s node, evaluated, equals the evaluated outputs' shapes."""
    node = out.owner
    input_shapes = [shape_tuple(i) for i in node.inputs]
    inferred = node.op.infer_shape(None, node, input_shapes)
    values = evaluate(list(node.outputs), givens)
    assert len(inferred) == len(node.outputs)
    for dims, value, var in zip(inferred, values, node.outputs):
        got = tuple(int(evaluate(d, givens)) if isinstance(d, Variable) else int(d) for d in dims)
        assert got == np.shape(value), f"{node.op}: inferred {got}, actual {np.shape(value)}"
        for static, actual in zip(var.type.shape, np.shape(value)):
            assert static is None or static == actual
