"""``local_useless_composite_outputs`` (PyTensor's ``tensor.rewriting.elemwise``): an
Elemwise of a Composite drops the outputs nobody reads and the inputs the remaining
outputs do not depend on. One loop computes less and reads fewer arrays; the kept
outputs are computed by the same scalar program, so their values are unchanged.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.graph.traversal import ancestors
from opgraph.scalar.composite import Composite
from opgraph.tensor.elemwise import Elemwise

__all__ = ["composite_outputs_rewriters", "local_useless_composite_outputs"]


@node_rewriter([Elemwise], name="local_useless_composite_outputs")
def local_useless_composite_outputs(fgraph: Any, node: Apply) -> Any:
    """Elemwise(Composite) without its unread outputs and its unused inputs."""
    comp = node.op.scalar_op
    if not isinstance(comp, Composite) or fgraph is None or node.op.inplace_pattern:
        return None
    kept = [k for k, out in enumerate(node.outputs) if fgraph.clients.get(out)]
    if not kept:
        return None
    inner_outs = [comp.inner_outputs[k] for k in kept]
    needed = set(ancestors(inner_outs))
    used = [k for k, v in enumerate(comp.inner_inputs) if v in needed]
    if len(kept) == len(node.outputs) and len(used) == len(node.inputs):
        return None
    new_comp = Composite([comp.inner_inputs[k] for k in used], inner_outs)
    if not used:
        return None  # every kept output is a constant: constant folding's job
    new_outs = Elemwise(scalar_op=new_comp)(*[node.inputs[k] for k in used],
                                            return_list=True)
    replacements = {}
    for k, new in zip(kept, new_outs):
        if new.type != node.outputs[k].type:
            return None
        replacements[node.outputs[k]] = new
    return replacements


def composite_outputs_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags): canonicalize and specialize, with PyTensor's
    short tag ``local_useless_composite``."""
    entry = ("local_useless_composite_outputs", local_useless_composite_outputs,
             ("local_useless_composite",))
    return {"canonicalize": [(entry[0], entry[1], ("fast_compile", *entry[2]))],
            "specialize": [entry]}
