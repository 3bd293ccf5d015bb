"""Decompositions computed in their input's buffer when nothing needs the input afterwards.

LAPACK's Schur and QZ overwrite their inputs with the factors; SciPy exposes
that as ``overwrite_a`` / ``overwrite_b``.  In the ``inplace`` phase (after
``local_useless_blockwise`` has unwrapped unbatched nodes), each such node is
offered the inputs the DestroyHandler may let it destroy; it refuses anything
unsafe (a graph input not marked mutable, a constant, a buffer read later).
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Constant
from opgraph.graph.rewriting.inplace_inputs import InplaceOnInputs
from opgraph_linalg.schur_decomp import QZ, Schur

__all__ = ["LinalgInplace"]

#: core Ops with an ``inplace_on_inputs`` that sets ``overwrite_*`` and a destroy_map
INPLACE_OPS: tuple[type, ...] = (QZ, Schur)


class LinalgInplace(InplaceOnInputs):
    """Schur and QZ nodes switched to overwrite their inputs where that is safe."""

    name = "linalg_inplace"

    def wants(self, node: Apply) -> bool:
        return isinstance(node.op, INPLACE_OPS) and not node.op.destroy_map

    def candidates(self, fgraph: Any, node: Apply) -> list[int]:
        """Inputs that are neither constants nor protected, each given once."""
        dh = fgraph.destroy_handler
        return [i for i, x in enumerate(node.inputs)
                if not isinstance(x, Constant) and not dh.is_protected(x)
                and node.inputs.count(x) == 1]
