"""Types of non-tensor values used in tensor graphs: slices and None.

``make_slice(start, stop, step)`` builds a symbolic ``slice`` from scalar
integer variables (or None); ``NoneConst`` is the constant None.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.graph.type import Type
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "MakeSlice",
    "NoneConst",
    "NoneSliceConst",
    "NoneTypeT",
    "SliceConstant",
    "SliceType",
    "make_slice",
    "none_type_t",
    "slicetype",
]


@attrs.frozen
class SliceType(Type):
    """The type of Python ``slice`` objects."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if isinstance(data, slice):
            return data
        raise TypeError(f"SliceType expects a slice, got {type(data).__name__} {data!r:.60}")

    def values_eq(self, a: Any, b: Any) -> bool:
        return a == b

    def make_constant(self, value: Any, name: str | None = None) -> SliceConstant:
        return SliceConstant(self, self.filter(value), name=name)

    def __str__(self) -> str:
        return "slice"


slicetype = SliceType()
"""The type of symbolic slices (``make_slice``'s outputs, slice constants)."""


class SliceConstant(Constant):
    """A constant slice; its bounds are plain ints (or None)."""

    def __init__(self, type: SliceType, data: slice, name: str | None = None) -> None:
        parts = [p.item() if isinstance(p, np.integer) else p
                 for p in (data.start, data.stop, data.step)]
        super().__init__(type, slice(*parts), name=name)

    def signature(self) -> tuple[Any, ...]:
        return (SliceConstant, self.data.start, self.data.stop, self.data.step)

    def __str__(self) -> str:
        d = self.data
        return f"slice({d.start}, {d.stop}, {d.step})"


@attrs.frozen
class NoneTypeT(Type):
    """The type whose only value is None."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if data is None:
            return None
        raise TypeError(f"NoneTypeT expects None, got {type(data).__name__} {data!r:.60}")

    def __str__(self) -> str:
        return "None"


none_type_t = NoneTypeT()
"""The type of the symbolic ``None`` (an index's new axis, an absent argument)."""
NoneConst = Constant(none_type_t, None, name="NoneConst")
"""The symbolic constant None (e.g. an absent slice bound)."""


def _slice_part(value: Any, k: int) -> Variable:
    if value is None or value is NoneConst:
        return NoneConst
    if isinstance(value, Variable) and isinstance(value.type, NoneTypeT):
        return value
    var = as_tensor_variable(value)
    if var.type.ndim != 0 or not var.type.dtype.startswith(("int", "uint")):
        raise TypeError(f"make_slice: bound {k} must be an integer scalar or None, got {var.type}")
    return var


class MakeSlice(Op):
    """``slice(start, stop, step)`` from symbolic integer scalars (or None)."""

    __props__ = ()

    def make_node(self, start: Any, stop: Any = None, step: Any = None) -> Apply:
        if isinstance(start, slice):
            start, stop, step = start.start, start.stop, start.step
        parts = [_slice_part(v, k) for k, v in enumerate((start, stop, step))]
        return Apply(self, parts, [slicetype()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        parts = [None if v is None else int(v) for v in inputs]
        output_storage[0][0] = slice(*parts)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [disconnected_type() for _ in inputs]


make_slice = MakeSlice()
"""``make_slice(start, stop, step)``: a symbolic slice from scalar bounds (None where absent)."""

#: the constant ``slice(None)`` (``x[:]``'s index)
NoneSliceConst = SliceConstant(slicetype, slice(None), name="slice(None)")
"""The constant full slice ``slice(None)`` (``x[:]``)."""
