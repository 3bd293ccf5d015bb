"""How facts flow through the tensor Ops every graph has (Blockwise, Eye, ...).

Ops of other modules register their own rules with ``register_assumption``
next to their definition.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.assumptions.core import BUILTIN_KEYS, FactState, find_rule
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
