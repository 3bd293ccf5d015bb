"""PyTensor's ``tensor.random.rewriting.numba`` path.

PyTensor's Numba backend wraps each RandomVariable with its core shape
(``RandomVariableWithCoreShape``) through ``introduce_explicit_core_shape_rv``.
opgraph has no Numba backend and its linkers draw with NumPy's Generator,
which needs no explicit core shape, so the rewrite leaves every node as it is;
it exists so that code naming it (to include, exclude or apply it) ports.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.random.op import RandomVariable

__all__ = ["introduce_explicit_core_shape_rv"]


@node_rewriter([RandomVariable])
def introduce_explicit_core_shape_rv(fgraph: Any, node: Apply) -> Any:
    """Leaves the node unchanged: no opgraph backend needs the core shape made explicit."""
    return False
