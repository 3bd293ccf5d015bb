"""Decompositions computed in their input's buffer when nothing needs the input afterwards.

LAPACK's Schur and QZ overwrite their inputs with the factors; SciPy exposes
that as ``overwrite_a`` / ``overwrite_b``.  In the ``inplace`` phase (after
``local_useless_blockwise`` has unwrapped unbatched nodes), each such node is
offered the inputs the DestroyHandler may let it destroy; it refuses anything
unsafe (a graph input not marked mutable, a constant, a buffer read later).
"""

from __future__ import annotations

import time
from typing import Any

from opgraph.graph.basic import Apply, Constant, io_toposort
from opgraph.graph.destroyhandler import ensure_destroy_handler
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats
from opgraph.graph.utils import InconsistencyError
from opgraph_linalg.schur_decomp import QZ, Schur

__all__ = ["LinalgInplace"]

#: core Ops with an ``inplace_on_inputs`` that sets ``overwrite_*`` and a destroy_map
INPLACE_OPS: tuple[type, ...] = (QZ, Schur)


class LinalgInplace(GraphRewriter):
    """Schur and QZ nodes switched to overwrite their inputs where that is safe."""

    name = "linalg_inplace"

    def add_requirements(self, fgraph: Any) -> None:
        super().add_requirements(fgraph)
        ensure_destroy_handler(fgraph)

    def apply(self, fgraph: Any) -> RewriterStats:
        t0 = time.perf_counter()
        ensure_destroy_handler(fgraph)
        count = 0
        nodes = [n for n in io_toposort(fgraph.inputs, fgraph.outputs)
                 if isinstance(n.op, INPLACE_OPS) and not n.op.destroy_map]
        for node in nodes:
            if node in fgraph.apply_nodes:
                count += self._make_inplace(fgraph, node)
        return RewriterStats.single_pass(self.name, count, time.perf_counter() - t0)

    @staticmethod
    def _make_inplace(fgraph: Any, node: Apply) -> int:
        dh = fgraph.destroy_handler
        candidates = [i for i, x in enumerate(node.inputs)
                      if not isinstance(x, Constant) and not dh.is_protected(x)
                      and node.inputs.count(x) == 1]
        # all candidates at once, then each alone when the DestroyHandler refuses
        for indices in [candidates, *([i] for i in candidates)] if candidates else []:
            new_op = node.op.inplace_on_inputs(indices)
            if new_op is node.op:
                continue
            new_node = new_op.make_node(*node.inputs)
            try:
                fgraph.replace_all_validate(list(zip(node.outputs, new_node.outputs)),
                                            reason="linalg_inplace")
            except InconsistencyError:
                continue
            return 1
        return 0
