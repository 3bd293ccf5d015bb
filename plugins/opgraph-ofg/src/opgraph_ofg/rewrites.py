"""Rewrites for OpFromGraph nodes: inline, drop unused inputs/outputs, inplace on inputs.

=====================  ========  ===============================  ===========================
entry                  phase            tags                            what
=====================  ===============  ==============================  =====================
inline_ofg_expansion   inline           fast_compile, fast_run, inline  inline=True: node->body
ofg_remove_unused_io   post_specialize  fast_run                        fewer inputs / outputs
ofg_inplace            inplace          fast_run, inplace               overwrite dead inputs
=====================  ===============  ==============================  =====================
"""

from __future__ import annotations

import time
from typing import Any

from opgraph.graph.basic import Apply, Constant, io_toposort
from opgraph.graph.destroyhandler import ensure_destroy_handler
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats, node_rewriter
from opgraph.graph.rewriting.walking import in2out
from opgraph.graph.utils import InconsistencyError
from opgraph_ofg.inner import depends_on_inputs
from opgraph_ofg.op import OpFromGraph

__all__ = [
    "OpFromGraphInplace",
    "inline_ofg_expansion",
    "register_rewrites",
    "remove_unused_ofg_io",
]


@node_rewriter([OpFromGraph])
def inline_ofg_expansion(fgraph: Any, node: Apply) -> Any:
    """op(x) -> its inner graph on x, for an OpFromGraph built with inline=True."""
    op = node.op
    if not isinstance(op, OpFromGraph) or not op.is_inline:
        return None
    return op.inline_outputs(node)


@node_rewriter([OpFromGraph])
def remove_unused_ofg_io(fgraph: Any, node: Apply) -> Any:
    """op(x, y)[0, 1] with only [0] used and y unused by it -> op'(x)[0].

    Ops with gradient overrides are left alone: the smaller Op could not
    keep their meaning.
    """
    op = node.op
    if not isinstance(op, OpFromGraph) or op.is_inline or op.has_overrides:
        return None
    keep_out = [j for j, o in enumerate(node.outputs) if fgraph.clients[o]]
    if not keep_out:
        return None
    used = depends_on_inputs(op.inner_inputs, [op.inner_outputs[j] for j in keep_out])
    keep_in = [i for i, u in enumerate(used) if u]
    if len(keep_out) == len(node.outputs) and len(keep_in) == len(node.inputs):
        return None
    new_op = op.restricted(keep_in, keep_out)
    new_outs = new_op(*[node.inputs[i] for i in keep_in], return_list=True)
    return {node.outputs[j]: new for j, new in zip(keep_out, new_outs)}


class OpFromGraphInplace(GraphRewriter):
    """Lets non-inlined OpFromGraph nodes overwrite inputs nobody needs afterwards.

    Each candidate goes through replace_all_validate, so the DestroyHandler
    refuses what is unsafe (graph inputs, constants, values still read
    later); inside, the compiled body may then reuse those buffers.
    """

    name = "ofg_inplace"

    def add_requirements(self, fgraph: Any) -> None:
        super().add_requirements(fgraph)
        ensure_destroy_handler(fgraph)

    def apply(self, fgraph: Any) -> RewriterStats:
        t0 = time.perf_counter()
        ensure_destroy_handler(fgraph)
        nodes = [n for n in io_toposort(fgraph.inputs, fgraph.outputs)
                 if isinstance(n.op, OpFromGraph) and not n.op.is_inline
                 and not n.op.destroy_map]
        # Inputs read by this node alone are almost always safe to destroy: offer them
        # all in one validation (linear), and only fall back to node by node on refusal.
        batch = []
        for node in nodes:
            single = [i for i in self._candidates(fgraph, node)
                      if len(fgraph.clients[node.inputs[i]]) == 1]
            if single:
                batch.append((node, single))
        count = 0
        if batch and self._replace_batch(fgraph, batch):
            count += len(batch)
        for node in nodes:
            if node in fgraph.apply_nodes:
                count += self._make_inplace(fgraph, node)
        return RewriterStats.single_pass(self.name, count, time.perf_counter() - t0)

    @staticmethod
    def _candidates(fgraph: Any, node: Apply) -> list[int]:
        dh = fgraph.destroy_handler
        explicit = node.inputs[: node.op.n_explicit_inputs]
        return [
            i for i, x in enumerate(explicit)
            if not isinstance(x, Constant) and not dh.is_protected(x)
            and node.inputs.count(x) == 1
        ]

    def _replace_batch(self, fgraph: Any, batch: list[tuple[Apply, list[int]]]) -> bool:
        remap: dict[Any, Any] = {}
        pairs = []
        for node, indices in batch:
            op: OpFromGraph = node.op
            explicit = [remap.get(x, x) for x in node.inputs[: op.n_explicit_inputs]]
            new_node = op.inplace_on_inputs(indices).make_node(*explicit)
            for old, new in zip(node.outputs, new_node.outputs):
                remap[old] = new
                pairs.append((old, new))
        try:
            fgraph.replace_all_validate(pairs, reason=self.name)
        except InconsistencyError:
            return False
        return True

    def _make_inplace(self, fgraph: Any, node: Apply) -> int:
        op: OpFromGraph = node.op
        explicit = node.inputs[: op.n_explicit_inputs]
        candidates = self._candidates(fgraph, node)
        if not candidates:
            return 0
        current = node

        def attempt(indices: list[int]) -> bool:
            nonlocal current
            new_node = op.inplace_on_inputs(indices).make_node(*explicit)
            try:
                fgraph.replace_all_validate(list(zip(current.outputs, new_node.outputs)),
                                            reason=self.name)
            except InconsistencyError:
                return False
            current = new_node
            return True

        if attempt(candidates):
            return 1
        accepted: list[int] = []
        for i in candidates:
            if attempt([*accepted, i]):
                accepted.append(i)
        return int(bool(accepted))


def register_rewrites(db: Any) -> None:
    """Add the three rewrites to the rewrite database (see the module table)."""
    db.register("inline_ofg_expansion", in2out(inline_ofg_expansion),
                "fast_compile", "fast_run", "inline", phase="inline")
    db.register("ofg_remove_unused_io", in2out(remove_unused_ofg_io), "fast_run",
                phase="post_specialize")
    db.register("ofg_inplace", OpFromGraphInplace(), "fast_run", "inplace", phase="inplace",
                after=("inplace_elemwise",))  # inner graphs see their inputs' final owners
