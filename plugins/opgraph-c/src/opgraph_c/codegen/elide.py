"""Expansions of 0-d values read by C Elemwise nodes are not materialised.

``DimShuffle{x}(s)`` of a 0-d ``s`` gives a length-1 array the C Elemwise
kernel reads as one scalar (its "scalar" input kind: every axis of static
length 1, only the data pointer is read).  The 0-d ``s`` has the same data
pointer, so such a node's input slot takes ``s`` itself, and a DimShuffle
whose every reader is rewired so runs no more: PyMC's graphs broadcast each
scalar parameter with one, a view object built on every call.  An input the
node writes in place is never rewired (it would write into ``s``).  The
profiling build runs every node (the profile lists each one's time).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Variable
from opgraph.tensor.elemwise import DimShuffle, Elemwise

__all__ = ["Elision", "elide_scalar_expansions"]


class Elision:
    """``subst[(k, i)]``: the variable node k reads as its input i; ``skip``: the nodes
    that need not run."""

    def __init__(self, subst: dict[tuple[int, int], Variable], skip: set[int]) -> None:
        self.subst = subst
        self.skip = skip

    def inputs(self, k: int, node: Any) -> list[Variable]:
        return [self.subst.get((k, i), v) for i, v in enumerate(node.inputs)]


def _expanded_scalar(var: Variable) -> Variable | None:
    node = var.owner
    if node is None or not isinstance(node.op, DimShuffle):
        return None
    src = node.inputs[0]
    if src.type.ndim != 0 or any(s != 1 for s in var.type.shape):
        return None
    return src


def elide_scalar_expansions(order: Sequence[Any], node_code: Sequence[Any],
                            keep: set[Variable]) -> Elision:
    """The rewiring for ``order`` (``keep``: variables that must hold their value: graph
    outputs and what the caller keeps live)."""
    subst: dict[tuple[int, int], Variable] = {}
    readers: dict[Variable, list[tuple[int, int]]] = {}
    here = set(order)  # a DimShuffle of another module (the CVM's per-node ones) is its input
    for k, node in enumerate(order):
        for i, v in enumerate(node.inputs):
            readers.setdefault(v, []).append((k, i))
        if node_code[k] is None or not isinstance(node.op, Elemwise):
            continue
        destroyed = set((getattr(node.op, "inplace_pattern", None) or {}).values())
        for i, v in enumerate(node.inputs):
            src = _expanded_scalar(v) if i not in destroyed and v.owner in here else None
            if src is not None:
                subst[(k, i)] = src
    skip = set()
    for k, node in enumerate(order):
        if not isinstance(node.op, DimShuffle) or node.outputs[0] in keep:
            continue
        uses = readers.get(node.outputs[0], [])
        if uses and all(use in subst for use in uses):
            skip.add(k)
    return Elision(subst, skip)
