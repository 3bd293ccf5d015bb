"""Matrix facts through basic indexing: ``x[i]`` / ``x[1:]`` on batch axes keeps each
matrix's facts; writing into batch axes (``set_subtensor`` / ``inc_subtensor``) keeps
them when both sides have them (for ``inc``, facts closed under addition only)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.assumptions.core import (
    BUILTIN_KEYS,
    DIAGONAL,
    LOWER_TRIANGULAR,
    POSITIVE_DEFINITE,
    SYMMETRIC,
    UPPER_TRIANGULAR,
    FactState,
    register_assumption,
    true_if,
)
from opgraph.graph.basic import Apply
from opgraph.tensor.indexing import SliceSpec
from opgraph.tensor.subtensor import IncSubtensor, Subtensor

__all__ = ["incsubtensor_propagates_matrix_property", "subtensor_propagates_matrix_property"]

_ADDITIVE = (DIAGONAL, LOWER_TRIANGULAR, UPPER_TRIANGULAR, SYMMETRIC, POSITIVE_DEFINITE)


def _is_full(spec: Any) -> bool:
    return isinstance(spec, SliceSpec) and not (spec.start or spec.stop or spec.step)


def _core_untouched(idx_list: Sequence[Any], ndim: int) -> bool:
    """Whether the index entries that reach the last two axes are all ``:``."""
    n_core = max(0, len(idx_list) - (ndim - 2))
    return all(_is_full(idx_list[-(i + 1)]) for i in range(n_core))


def subtensor_propagates_matrix_property(key: Any, op: Subtensor, feature: Any, fgraph: Any,
                                         node: Apply, input_states: Sequence[FactState]
                                         ) -> list[FactState]:
    """TRUE when the input has the fact and only batch axes are indexed."""
    if input_states[0] is not FactState.TRUE or node.inputs[0].type.ndim < 2:
        return [FactState.UNKNOWN]
    return true_if(_core_untouched(op.idx_spec, node.inputs[0].type.ndim))


def incsubtensor_propagates_matrix_property(key: Any, op: IncSubtensor, feature: Any,
                                            fgraph: Any, node: Apply,
                                            input_states: Sequence[FactState]
                                            ) -> list[FactState]:
    """A write into batch axes only: ``set`` over everything is the value's fact; a partial
    ``set`` needs both base and value to have it; ``inc`` also needs a fact closed under
    addition (not orthogonal or permutation)."""
    ndim = node.inputs[0].type.ndim
    if ndim < 2 or not _core_untouched(op.idx_spec, ndim):
        return [FactState.UNKNOWN]
    base, value = input_states[0], input_states[1]
    if op.set_instead_of_inc:
        if op.idx_spec and all(_is_full(s) for s in op.idx_spec):
            return [value]
        return true_if(base is FactState.TRUE and value is FactState.TRUE)
    if key not in _ADDITIVE:
        return [FactState.UNKNOWN]
    return true_if(base is FactState.TRUE and value is FactState.TRUE)


for _key in BUILTIN_KEYS:
    register_assumption(_key, Subtensor)(subtensor_propagates_matrix_property)
    register_assumption(_key, IncSubtensor)(incsubtensor_propagates_matrix_property)
