"""Matrix facts through SpecifyShape (always kept) and Reshape (kept when the last two
static lengths are known and unchanged)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.assumptions.core import BUILTIN_KEYS, FactState, register_assumption
from opgraph.graph.basic import Apply
from opgraph.tensor.shape import Reshape, SpecifyShape

__all__ = ["reshape_propagates_matrix_property", "specify_shape_propagates_matrix_property"]


def specify_shape_propagates_matrix_property(key: Any, op: Any, feature: Any, fgraph: Any,
                                             node: Apply, input_states: Sequence[FactState]
                                             ) -> list[FactState]:
    """SpecifyShape only states a shape: the value, and its facts, are the input's."""
    return [input_states[0]]


def reshape_propagates_matrix_property(key: Any, op: Any, feature: Any, fgraph: Any,
                                       node: Apply, input_states: Sequence[FactState]
                                       ) -> list[FactState]:
    """The input's fact when the last two lengths are statically known and the same before
    and after (only batch axes were reshaped)."""
    before, after = node.inputs[0].type.shape, node.outputs[0].type.shape
    if len(before) < 2 or len(after) < 2:
        return [FactState.UNKNOWN]
    core_in, core_out = tuple(before[-2:]), tuple(after[-2:])
    if None in core_in or core_in != core_out:
        return [FactState.UNKNOWN]
    return [input_states[0]]


for _key in BUILTIN_KEYS:
    register_assumption(_key, SpecifyShape)(specify_shape_propagates_matrix_property)
    register_assumption(_key, Reshape)(reshape_propagates_matrix_property)
