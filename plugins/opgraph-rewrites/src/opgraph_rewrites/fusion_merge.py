"""Second fusion step: merge neighbouring elementwise nodes the first one left apart.

:class:`~opgraph_rewrites.fusion.FusionOptimizer`'s linear pass grows
single-output clusters toward the inputs and stops at an output that is also
read by a node earlier than the cluster's root.  A gradient reads the same
intermediate from several places (PyMC: ``(y - mu) / sigma`` feeds the logp
and three partial derivatives, each summed apart), so each read left one
small C node.  This step merges pairs of fusible Elemwise nodes (multi-output
Composites included) into one multi-output Composite while the graph
allows it:

* a producer and its consumer, or two consumers of one variable (siblings),
  when every output has the same broadcastable pattern as that variable, so
  the fused loop has the shape each node had (lengths known only at run time
  are tied to it: a mismatch raises in the fused node as it did before);
* when no other path joins the two (merging them would make a cycle): the
  ancestors of every node are kept as bitsets, rebuilt after each merge.

The bitsets cost ``n^2/8`` bytes, so the step only runs on graphs of up to
``MAX_NODES`` nodes (PyMC models have hundreds) and stops after
``MAX_MERGES`` merges: larger graphs keep the linear pass's result.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable, io_toposort
from opgraph.graph.rewriting.basic import is_output_client
from opgraph.graph.utils import InconsistencyError
from opgraph.scalar.composite import Composite
from opgraph.scalar.type import ScalarType
from opgraph.tensor.elemwise import Elemwise
from opgraph_rewrites.utils import keep_type

__all__ = ["MAX_MERGES", "MAX_NODES", "merge_elemwise_neighbours"]

#: Graphs with more nodes keep the linear fusion's clusters.
MAX_NODES = 2000
#: Merges per graph (each rebuilds the ancestor bitsets: O(n) big-int operations).
MAX_MERGES = 400
#: Outputs of one merged Composite.
MAX_OUTPUTS = 16


def _mergeable(node: Any) -> bool:
    if not isinstance(node, Apply) or not isinstance(node.op, Elemwise):
        return False
    if node.op.inplace_pattern:
        return False
    bcast = node.outputs[0].type.broadcastable
    return all(o.type.broadcastable == bcast for o in node.outputs)


def _inlinable(v: Variable) -> bool:
    return isinstance(v, Constant) and np.asarray(v.data).size == 1


class _Reach:
    """Ancestor bitsets of the graph's nodes (bit k: the node at topological position k)."""

    def __init__(self, fgraph: Any) -> None:
        self.order = io_toposort(fgraph.inputs, fgraph.outputs)
        self.pos = {node: k for k, node in enumerate(self.order)}
        anc: dict[Apply, int] = {}
        pos = self.pos
        for node in self.order:
            bits = 0
            for i in node.inputs:
                owner = i.owner
                if owner is not None:
                    bits |= anc[owner] | (1 << pos[owner])
            anc[node] = bits
        self.anc = anc

    def other_path(self, fgraph: Any, a: Apply, b: Apply) -> bool:
        """A path from ``a`` to ``b`` through some other node."""
        anc_b = self.anc[b]
        if not anc_b >> self.pos[a] & 1:
            return False
        clients = fgraph.clients
        for out in a.outputs:
            for client, _k in clients.get(out, ()):
                if client is b or is_output_client(client):
                    continue
                if client is a or anc_b >> self.pos[client] & 1:
                    return True
        return False


def _candidates(fgraph: Any, node: Apply) -> Iterator[tuple[Apply, Variable]]:
    """(neighbour, the variable that ties their shapes): producers, consumers, then
    siblings."""
    clients = fgraph.clients
    seen = {node}
    for i in node.inputs:
        owner = i.owner
        if owner is not None and owner not in seen and _mergeable(owner):
            seen.add(owner)
            yield owner, i
    for out in node.outputs:
        for client, _k in clients.get(out, ()):
            if client not in seen and _mergeable(client):
                seen.add(client)
                yield client, out
    for i in node.inputs:
        if isinstance(i, Constant):
            continue
        for client, _k in clients.get(i, ()):
            if client not in seen and _mergeable(client):
                seen.add(client)
                yield client, i


def _members_scalar_graph(
    first: Apply, second: Apply
) -> tuple[list[Variable], list[Variable], dict[Variable, Variable]]:
    """(outer inputs, inner inputs, outer output -> inner scalar) of the two nodes."""
    smap: dict[Variable, Variable] = {}
    outer_inputs: list[Variable] = []
    inner_inputs: list[Variable] = []
    for node in (first, second):
        ins = []
        for i in node.inputs:
            if i not in smap:
                if _inlinable(i):
                    value = np.asarray(i.data).reshape(())
                    smap[i] = ScalarType(i.type.dtype).make_constant(value)
                else:
                    s = ScalarType(i.type.dtype)()
                    smap[i] = s
                    outer_inputs.append(i)
                    inner_inputs.append(s)
            ins.append(smap[i])
        sop = node.op.scalar_op
        outs = sop.inline(ins) if isinstance(sop, Composite) else sop.make_node(*ins).outputs
        smap.update(zip(node.outputs, outs))
    return outer_inputs, inner_inputs, smap


def _merge(fgraph: Any, first: Apply, second: Apply, max_inputs: int) -> bool:
    """Replace ``first`` and ``second`` (``first`` not after ``second``) by one node."""
    outer_inputs, inner_inputs, smap = _members_scalar_graph(first, second)
    if not outer_inputs or len(outer_inputs) > max_inputs:
        return False
    members = (first, second)
    clients = fgraph.clients
    olds = [o for node in members for o in node.outputs
            if any(is_output_client(c) or c not in members for c, _k in clients.get(o, ()))]
    if not olds or len(olds) > MAX_OUTPUTS:
        return False
    try:
        comp = Composite(inner_inputs, [smap[o] for o in olds])
        news = Elemwise(comp).make_node(*outer_inputs).outputs
    except (TypeError, ValueError):
        return False
    pairs = []
    for old, new in zip(olds, news):
        fixed = keep_type(old, new, refs=outer_inputs)
        if fixed is None:
            return False
        pairs.append((old, fixed))
    try:
        replace = getattr(fgraph, "replace_all_validate", None) or fgraph.replace_all
        replace(pairs, reason="elemwise_fusion_merge")
    except InconsistencyError:
        return False
    return True


def _try_node(fgraph: Any, reach: _Reach, node: Apply, max_inputs: int) -> bool:
    bcast = node.outputs[0].type.broadcastable
    for other, tie in _candidates(fgraph, node):
        if tie.type.broadcastable != bcast or other.outputs[0].type.broadcastable != bcast:
            continue
        first, second = sorted((node, other), key=reach.pos.__getitem__)
        if reach.other_path(fgraph, first, second):
            continue
        if _merge(fgraph, first, second, max_inputs):
            return True
    return False


def merge_elemwise_neighbours(fgraph: Any, max_inputs: int) -> int:
    """Merge fusible neighbours of ``fgraph`` until none is left; the number of merges."""
    merges = 0
    skip: set[Apply] = set()  # nodes with no neighbour to merge (still valid: unchanged)
    while merges < MAX_MERGES:
        if len(fgraph.apply_nodes) > MAX_NODES:
            break
        reach = _Reach(fgraph)
        for node in reach.order:
            if node in skip or not _mergeable(node):
                continue
            if _try_node(fgraph, reach, node, max_inputs):
                merges += 1
                break
            skip.add(node)
        else:
            break
    return merges
