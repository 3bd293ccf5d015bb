"""How facts flow through the tensor Ops every graph has (Blockwise, Eye, ...).

Ops of other modules register their own rules with ``register_assumption``
next to their definition.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.assumptions.core import (
    BUILTIN_KEYS,
    DIAGONAL,
    LOWER_TRIANGULAR,
    SYMMETRIC,
    UPPER_TRIANGULAR,
    FactState,
    find_rule,
    register_constant_inference,
)
from opgraph.assumptions.core import register_assumption as _register
from opgraph.graph.basic import Apply
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.creation import Eye
from opgraph.tensor.shape import static_int

__all__: list[str] = []


def _blockwise(key: Any, op: Blockwise, feature: Any, fgraph: Any, node: Apply,
               input_states: Sequence[FactState]) -> list[FactState]:
    """A Blockwise has, batch by batch, the facts of its core Op."""
    rule = find_rule(key, op.core_op)
    if rule is None:
        return [FactState.UNKNOWN] * len(node.outputs)
    return list(rule(key, op.core_op, feature, fgraph, node, input_states))


for _key in BUILTIN_KEYS:
    _register(_key, Blockwise)(_blockwise)


def _eye(key: Any, op: Eye, feature: Any, fgraph: Any, node: Apply,
         input_states: Sequence[FactState]) -> list[FactState]:
    """``eye(n, n, 0)`` is the identity: diagonal, so triangular and symmetric, positive
    definite and orthogonal. Other offsets or shapes: nothing is claimed."""
    n, m, k = node.inputs
    square = n is m or (static_int(n) is not None and static_int(n) == static_int(m))
    return [FactState.TRUE if square and static_int(k) == 0 else FactState.UNKNOWN]


for _key in BUILTIN_KEYS:
    _register(_key, Eye)(_eye)


def _constant_facts(key: Any) -> Any:
    """What a constant matrix's value shows: zero pattern and symmetry, checked exactly
    (a folded ``eye(n)`` stays diagonal). Non-square or non-numeric values: nothing."""

    def infer(const: Any) -> FactState:
        data = np.asarray(const.data)
        if data.ndim < 2 or data.shape[-1] != data.shape[-2] or data.dtype.kind not in "biufc":
            return FactState.UNKNOWN
        if key is SYMMETRIC:
            return FactState.TRUE if np.array_equal(data, np.swapaxes(data, -1, -2)) \
                else FactState.FALSE
        n = data.shape[-1]
        below = np.tril(np.ones((n, n), dtype=bool), -1)
        zero = {DIAGONAL: below | below.T, LOWER_TRIANGULAR: below.T,
                UPPER_TRIANGULAR: below}[key]
        return FactState.TRUE if not np.any(data[..., zero]) else FactState.FALSE

    return infer


for _key in (DIAGONAL, LOWER_TRIANGULAR, UPPER_TRIANGULAR, SYMMETRIC):
    register_constant_inference(_key, _constant_facts(_key))
