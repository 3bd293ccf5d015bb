"""Matrix facts of Alloc (a filled or broadcast matrix), and PyTensor's rule bodies for
``eye`` and ``alloc_diag`` (opgraph registers its own rules for those two Ops, with the
same answers, next to the Ops)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.assumptions.core import (
    BUILTIN_KEYS,
    DIAGONAL,
    LOWER_TRIANGULAR,
    SYMMETRIC,
    UPPER_TRIANGULAR,
    FactState,
    register_assumption,
    true_if,
)
from opgraph.graph.basic import Apply, Constant
from opgraph.tensor.constant_value import get_underlying_scalar_constant_value
from opgraph.tensor.creation import Alloc
from opgraph.tensor.exceptions import NotScalarConstantError

__all__ = ["alloc_diag_at_offset_zero", "alloc_is_symmetric", "alloc_of_zero",
           "alloc_propagates_matrix_property", "eye_identity_rule"]


def _square(node: Apply) -> bool:
    shape = node.outputs[0].type.shape
    return len(shape) >= 2 and shape[-1] is not None and shape[-2] == shape[-1]


def alloc_of_zero(key: Any, op: Any, feature: Any, fgraph: Any, node: Apply,
                  input_states: Sequence[FactState]) -> list[FactState]:
    """DIAGONAL / triangular of a square Alloc: TRUE for a fill of 0, FALSE for a known
    non-zero fill (the off-diagonal entries are not 0)."""
    if not _square(node):
        return [FactState.UNKNOWN]
    try:
        value = get_underlying_scalar_constant_value(node.inputs[0])
    except NotScalarConstantError:
        return [FactState.UNKNOWN]
    return true_if(value == 0, else_false=True)


def alloc_is_symmetric(key: Any, op: Any, feature: Any, fgraph: Any, node: Apply,
                       input_states: Sequence[FactState]) -> list[FactState]:
    """SYMMETRIC of a square Alloc of a scalar: every entry is the same value."""
    return true_if(_square(node) and node.inputs[0].type.ndim == 0)


def eye_identity_rule(key: Any, op: Any, feature: Any, fgraph: Any, node: Apply,
                      input_states: Sequence[FactState]) -> list[FactState]:
    """``eye(n, m, k)``: TRUE when it is the identity (k == 0, n == m), FALSE for another
    constant offset or known different sizes."""
    n, m, k = node.inputs
    if not isinstance(k, Constant):
        return [FactState.UNKNOWN]
    if int(k.data) != 0:
        return [FactState.FALSE]
    if n is m:
        return [FactState.TRUE]
    if isinstance(n, Constant) and isinstance(m, Constant):
        return true_if(int(n.data) == int(m.data), else_false=True)
    return [FactState.UNKNOWN]


def alloc_diag_at_offset_zero(key: Any, op: Any, feature: Any, fgraph: Any, node: Apply,
                              input_states: Sequence[FactState]) -> list[FactState]:
    """``alloc_diag`` on the main diagonal: TRUE; on another diagonal: FALSE."""
    return [FactState.TRUE if op.offset == 0 else FactState.FALSE]


def alloc_propagates_matrix_property(key: Any, op: Any, feature: Any, fgraph: Any,
                                     node: Apply, input_states: Sequence[FactState]
                                     ) -> list[FactState]:
    """A matrix value broadcast along new leading axes keeps its facts (its last two axes
    are not broadcast)."""
    value = node.inputs[0]
    if value.type.ndim >= 2 and not any(s == 1 for s in value.type.shape[-2:]):
        return [input_states[0]]
    return [FactState.UNKNOWN]


def _first_known(*rules: Any) -> Any:
    def rule(key: Any, op: Any, feature: Any, fgraph: Any, node: Apply,
             input_states: Sequence[FactState]) -> list[FactState]:
        states = [FactState.UNKNOWN]
        for r in rules:
            states = r(key, op, feature, fgraph, node, input_states)
            if any(s is not FactState.UNKNOWN for s in states):
                return states
        return states
    return rule


for _key in BUILTIN_KEYS:
    extra = ((alloc_of_zero,) if _key in (DIAGONAL, LOWER_TRIANGULAR, UPPER_TRIANGULAR)
             else (alloc_is_symmetric,) if _key == SYMMETRIC else ())
    register_assumption(_key, Alloc)(_first_known(alloc_propagates_matrix_property, *extra))
