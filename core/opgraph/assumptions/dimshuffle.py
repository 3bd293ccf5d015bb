"""Matrix facts through DimShuffle: kept when the last two axes stay last and in order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.assumptions.core import BUILTIN_KEYS, FactState, register_assumption
from opgraph.graph.basic import Apply
from opgraph.tensor.elemwise import DimShuffle

__all__ = ["dimshuffle_propagates_matrix_property", "left_expand_dims_propagates_matrix_property"]


def left_expand_dims_propagates_matrix_property(op: Any) -> bool:
    """Whether ``op`` only adds broadcast axes in front of a matrix (``M[None, ...]``): every
    per-matrix fact then holds for each copy."""
    return bool(isinstance(op, DimShuffle) and op.is_left_expand_dims and op.input_ndim >= 2)


def dimshuffle_propagates_matrix_property(key: Any, op: DimShuffle, feature: Any, fgraph: Any,
                                          node: Apply, input_states: Sequence[FactState]
                                          ) -> list[FactState]:
    """The input's fact when the DimShuffle adds, drops or permutes batch axes only (the last
    two axes last and in order); UNKNOWN otherwise (a transpose is a fact of its own)."""
    n = op.input_ndim
    if n >= 2 and tuple(op.new_order[-2:]) == (n - 2, n - 1):
        return [input_states[0]]
    return [FactState.UNKNOWN]


for _key in BUILTIN_KEYS:
    register_assumption(_key, DimShuffle)(dimshuffle_propagates_matrix_property)
