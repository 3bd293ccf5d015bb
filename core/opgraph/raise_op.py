"""``CheckAndRaise`` / ``Assert``: pass a value through, raising if a condition is false.

``assert_op(x, cond1, cond2)`` returns ``x`` unchanged when every condition
holds and raises ``AssertionError`` (or the exception class given to
``CheckAndRaise``) otherwise.  The output is a view of the value, so the
check costs no copy; rewrites may drop it when nothing needs the value
itself (e.g. only its shape).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.autodiff.vectorize import NoBatchingRule, one_batch_axis, register_batching_rule
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.scalar.type import ScalarType
from opgraph.tensor.math import second
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["Assert", "CheckAndRaise", "ExceptionType", "assert_op"]


class ExceptionType:
    """Marker for the exception class a CheckAndRaise carries (PyTensor name)."""


class CheckAndRaise(Op):
    """Return input 0; raise ``exc_type(msg)`` if any other input is false.

    Conditions are scalars (tensors of 0 dimensions or scalar variables).
    """

    __props__ = ("msg", "exc_type")
    view_map = {0: [0]}

    def __init__(self, exc_type: type[BaseException], msg: str = "") -> None:
        if not (isinstance(exc_type, type) and issubclass(exc_type, BaseException)):
            raise ValueError(
                f"CheckAndRaise: exc_type must be an exception class, got {exc_type!r}"
            )
        if not isinstance(msg, str):
            raise TypeError(f"CheckAndRaise: msg must be a str, got {type(msg).__name__}")
        self.exc_type = exc_type
        self.msg = msg

    def __str__(self) -> str:
        return f"CheckAndRaise{{raises={self.exc_type.__name__}, msg='{self.msg}'}}"

    def make_node(self, value: Any, *conds: Any) -> Apply:
        if not isinstance(value, Variable):
            value = as_tensor_variable(value)
        checked = []
        for k, cond in enumerate(conds):
            if not isinstance(cond, Variable):
                cond = as_tensor_variable(cond)
            ndim = getattr(cond.type, "ndim", 0)
            if ndim != 0 and not isinstance(cond.type, ScalarType):
                raise TypeError(
                    f"{self}: condition {k} must be a scalar, got {cond.type} "
                    f"(reduce it first, e.g. with .all())"
                )
            checked.append(cond)
        return Apply(self, [value, *checked], [value.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        value, *conds = inputs
        for cond in conds:
            if not np.all(cond):
                raise self.exc_type(self.msg)
        output_storage[0][0] = value

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [cotangents[0]] + [disconnected_type() for _ in inputs[1:]]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return [tangents[0]]

    def do_constant_folding(self, fgraph: Any, node: Apply) -> bool:
        return False


class Assert(CheckAndRaise):
    """``CheckAndRaise`` raising ``AssertionError``: ``Assert(msg)(x, *conds)``."""

    __props__ = ("msg", "exc_type")

    def __init__(self, msg: str = "Assert failed!") -> None:
        super().__init__(AssertionError, msg)

    def __str__(self) -> str:
        return f"Assert{{msg='{self.msg}'}}"

    def __reduce__(self) -> Any:
        return (Assert, (self.msg,))


assert_op = Assert()
"""``assert_op(x, *conds)``: ``x`` if every condition holds, else AssertionError."""



def _batch_check_and_raise(node: Apply, ins: list[Variable], extra: list[int]
                           ) -> list[Variable]:
    """CheckAndRaise with a leading batch axis on some inputs.

    Batched conditions (one scalar per row) are all checked at once; the
    result then takes the batch axis by broadcasting against one of them, so
    it still depends on the check.
    """
    op: CheckAndRaise = node.op
    value, *conds = ins
    value_batched, *cond_batched = one_batch_axis(node, ins, extra)
    if not isinstance(value.type, TensorType):
        raise NoBatchingRule(f"{op} on a non-tensor value {value.type}")
    if not any(cond_batched):
        return [op(value, *conds)]
    flat = [c.all() if b else c for c, b in zip(conds, cond_batched)]
    checked = op(value, *flat)
    row_ndim = node.inputs[0].type.ndim
    if not value_batched:
        checked = checked.dimshuffle("x", *range(row_ndim))
    reference = next(c for c, b in zip(conds, cond_batched) if b)
    reference = reference.dimshuffle(0, *["x"] * row_ndim)
    return [second(reference, checked)]


register_batching_rule(CheckAndRaise, _batch_check_and_raise)
