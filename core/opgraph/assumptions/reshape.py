"""Matrix facts through JoinDims / SplitDims: kept when the axes they touch are batch axes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.assumptions.core import BUILTIN_KEYS, FactState, register_assumption
from opgraph.graph.basic import Apply
from opgraph.tensor.reshape import JoinDims, SplitDims

__all__ = ["join_dims_propagates_matrix_property", "split_dims_propagates_matrix_property"]


def join_dims_propagates_matrix_property(key: Any, op: JoinDims, feature: Any, fgraph: Any,
                                         node: Apply, input_states: Sequence[FactState]
                                         ) -> list[FactState]:
    """The input's fact when the joined run of axes ends before the last two."""
    if op.start_axis + op.n_axes <= node.inputs[0].type.ndim - 2:
        return [input_states[0]]
    return [FactState.UNKNOWN]


def split_dims_propagates_matrix_property(key: Any, op: SplitDims, feature: Any, fgraph: Any,
                                          node: Apply, input_states: Sequence[FactState]
                                          ) -> list[FactState]:
    """The input's fact when the split axis is not one of the last two."""
    if op.axis < node.inputs[0].type.ndim - 2:
        return [input_states[0]]
    return [FactState.UNKNOWN]


for _key in BUILTIN_KEYS:
    register_assumption(_key, JoinDims)(join_dims_propagates_matrix_property)
    register_assumption(_key, SplitDims)(split_dims_propagates_matrix_property)
