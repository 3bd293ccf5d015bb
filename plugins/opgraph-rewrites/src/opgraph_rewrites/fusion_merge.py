"""Second fusion step: merge neighbouring elementwise nodes the first one left apart.

:class:`~opgraph_rewrites.fusion.FusionOptimizer`'s linear pass grows
single-output clusters toward the inputs and stops at an output that is also
read by a node earlier than the cluster's root.  A gradient reads the same
intermediate from several places (PyMC: ``(y - mu) / sigma`` feeds the logp
and three partial derivatives, each summed apart), so each read left one
small C node.  This step groups fusible Elemwise nodes (multi-output
Composites included) into clusters, each replaced by one multi-output
Composite:

* two groups join through a producer and its consumer, or two consumers of
  one variable (siblings), when every output has the broadcastable pattern of
  that variable, so the fused loop has the shape each node had (lengths known
  only at run time are tied to it: a mismatch raises in the fused node as it
  did before);
* only when no other path joins them (the merged node would be on a cycle).
  Reachability is kept as ancestor bitsets over the graph's nodes, updated as
  groups merge (a merged group is reached from whatever reached a member and
  reaches whatever a member reached), so the plan is made on one snapshot and
  each cluster's Composite is built once.

The bitsets cost ``n^2/8`` bytes and each merge ``O(n)`` big-int operations,
so the step runs on graphs of up to ``MAX_NODES`` nodes (PyMC models have
hundreds) and stops after ``MAX_MERGES`` merges.
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
#: Merges per graph.
MAX_MERGES = 1000
#: Outputs of one merged Composite.
MAX_OUTPUTS = 16
#: A variable read by more nodes offers them no sibling merges (each would be tried).
MAX_SIBLINGS = 32


def _mergeable(node: Any) -> bool:
    if not isinstance(node, Apply) or not isinstance(node.op, Elemwise):
        return False
    if node.op.inplace_pattern:
        return False
    bcast = node.outputs[0].type.broadcastable
    return all(o.type.broadcastable == bcast for o in node.outputs)


def _inlinable(v: Variable) -> bool:
    return isinstance(v, Constant) and np.asarray(v.data).size == 1


class _Plan:
    """Groups of mergeable nodes and the reachability between groups (see the module).

    Every member of a group holds the group's entries: its member list, its bits,
    its ancestors and the bits of the nodes reading its outputs from outside.
    """

    def __init__(self, fgraph: Any, order: list[Apply]) -> None:
        self.fgraph = fgraph
        self.pos = {node: k for k, node in enumerate(order)}
        anc: dict[Apply, int] = {}
        for node in order:
            bits = 0
            for i in node.inputs:
                owner = i.owner
                if owner is not None:
                    bits |= anc[owner] | (1 << self.pos[owner])
            anc[node] = bits
        self.anc = anc  # node -> its ancestors (kept up to date as groups merge)
        self.group: dict[Apply, list[Apply]] = {}  # member -> its group's member list
        self.mask: dict[Apply, int] = {}  # member -> its group's bits
        self.ext: dict[Apply, int] = {}  # member -> bits of the nodes reading it
        # member -> the group's outer inputs and outputs read outside
        self.io: dict[Apply, tuple[set[Variable], list[Variable]]] = {}

    def members(self, node: Apply) -> list[Apply]:
        return self.group.get(node) or [node]

    def bits(self, node: Apply) -> int:
        return self.mask.get(node, 1 << self.pos[node])

    def readers(self, node: Apply) -> int:
        bits = self.ext.get(node)
        if bits is None:
            bits = 0
            pos = self.pos
            for out in node.outputs:
                for client, _k in self.fgraph.clients.get(out, ()):
                    if not is_output_client(client) and client in pos:
                        bits |= 1 << pos[client]
            self.ext[node] = bits
        return bits

    def can_merge(self, a: Apply, b: Apply, max_inputs: int) -> bool:
        ma, mb = self.bits(a), self.bits(b)
        if ma & mb:
            return False  # one group already
        own = ma | mb
        # a path out of one group into the other through a node of neither
        if self.readers(a) & ~own & self.anc[b] or self.readers(b) & ~own & self.anc[a]:
            return False
        return self._sizes_ok(a, b, max_inputs)

    def _io(self, node: Apply) -> tuple[set[Variable], list[Variable]]:
        """(outer inputs, outputs read outside) of ``node``'s group."""
        io = self.io.get(node)
        if io is None:
            io = ({i for i in node.inputs if not _inlinable(i)},
                  _outputs_used_outside(self.fgraph, [node], {node}))
            self.io[node] = io
        return io

    def _merged_io(self, a: Apply, b: Apply, max_inputs: int = -1
                   ) -> tuple[set[Variable], list[Variable]] | None:
        """The merged group's inputs and outputs read outside (None: more than
        ``max_inputs`` inputs, when given)."""
        (ins_a, outs_a), (ins_b, outs_b) = self._io(a), self._io(b)
        inside = {*self.members(a), *self.members(b)}
        ins = {i for i in ins_a | ins_b if i.owner not in inside}
        if 0 <= max_inputs < len(ins):
            return None
        return ins, _outputs_used_outside_of(self.fgraph, [*outs_a, *outs_b], inside)

    def _sizes_ok(self, a: Apply, b: Apply, max_inputs: int) -> bool:
        io = self._merged_io(a, b, max_inputs)
        return io is not None and len(io[1]) <= MAX_OUTPUTS

    def merge(self, a: Apply, b: Apply) -> None:
        members = sorted([*self.members(a), *self.members(b)], key=self.pos.__getitem__)
        own = self.bits(a) | self.bits(b)
        anc = (self.anc[a] | self.anc[b]) & ~own
        readers = (self.readers(a) | self.readers(b)) & ~own
        io = self._merged_io(a, b)
        assert io is not None
        for m in members:
            self.io[m] = io
            self.group[m] = members
            self.mask[m] = own
            self.anc[m] = anc
            self.ext[m] = readers
        new = anc | own
        for node, bits in self.anc.items():  # what reached one member reaches all
            if bits & own and not self.bits(node) & own:
                self.anc[node] = bits | new


def _outputs_used_outside(fgraph: Any, members: list[Apply], inside: set) -> list[Variable]:
    return _outputs_used_outside_of(fgraph, [o for m in members for o in m.outputs], inside)


def _outputs_used_outside_of(fgraph: Any, outs: list[Variable], inside: set) -> list[Variable]:
    clients = fgraph.clients
    return [o for o in outs
            if any(is_output_client(c) or c not in inside for c, _k in clients.get(o, ()))]


def _candidates(fgraph: Any, node: Apply) -> Iterator[tuple[Apply, Variable]]:
    """(neighbour, the variable that ties their shapes): producers, consumers, then
    siblings."""
    clients = fgraph.clients
    for i in node.inputs:
        if i.owner is not None and _mergeable(i.owner):
            yield i.owner, i
    for out in node.outputs:
        for client, _k in clients.get(out, ()):
            if _mergeable(client):
                yield client, out
    for i in node.inputs:
        readers = clients.get(i, ())
        if not isinstance(i, Constant) and len(readers) <= MAX_SIBLINGS:
            for client, _k in readers:
                if client is not node and _mergeable(client):
                    yield client, i


def _plan_groups(fgraph: Any, order: list[Apply], max_inputs: int) -> list[list[Apply]]:
    plan = _Plan(fgraph, order)
    merges = 0
    nodes = [node for node in order if _mergeable(node)]
    for _sweep in range(2):  # a second sweep sees the groups the first one grew
        before = merges
        for node in nodes:
            bcast = node.outputs[0].type.broadcastable
            for other, tie in _candidates(fgraph, node):
                if merges >= MAX_MERGES:
                    break
                if (tie.type.broadcastable != bcast
                        or other.outputs[0].type.broadcastable != bcast):
                    continue
                if plan.can_merge(node, other, max_inputs):
                    plan.merge(node, other)
                    merges += 1
        if merges == before:
            break
    groups = {id(g): g for g in plan.group.values()}
    return list(groups.values())


def _scalar_graph(
    members: list[Apply],
) -> tuple[list[Variable], list[Variable], dict[Variable, Variable]]:
    """(outer inputs, inner inputs, outer variable -> inner scalar) of ``members`` (in
    topological order)."""
    inside = set(members)
    smap: dict[Variable, Variable] = {}
    outer_inputs: list[Variable] = []
    inner_inputs: list[Variable] = []
    for node in members:
        ins = []
        for i in node.inputs:
            if i not in smap:
                if i.owner in inside:
                    raise ValueError("members out of order")
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


def _replace_group(fgraph: Any, members: list[Apply]) -> bool:
    """Replace ``members`` (topologically ordered) by one Elemwise of a Composite."""
    if any(m not in fgraph.apply_nodes for m in members):
        return False
    try:
        outer_inputs, inner_inputs, smap = _scalar_graph(members)
    except ValueError:
        return False
    olds = _outputs_used_outside(fgraph, members, set(members))
    if not outer_inputs or not olds:
        return False
    return replace_by_composite(fgraph, outer_inputs, inner_inputs, smap, olds,
                                "elemwise_fusion_merge")


def replace_by_composite(fgraph: Any, outer_inputs: list[Variable],
                         inner_inputs: list[Variable], smap: dict, olds: list[Variable],
                         reason: str) -> bool:
    """Replace ``olds`` by the outputs of one Elemwise of a Composite over the scalar
    graph ``smap`` (tensor variable -> scalar); False, graph untouched, when it cannot."""
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
        replace(pairs, reason=reason)
    except InconsistencyError:
        return False
    return True


def merge_elemwise_neighbours(fgraph: Any, max_inputs: int) -> int:
    """Merge fusible neighbours of ``fgraph`` (see the module); the nodes removed."""
    if len(fgraph.apply_nodes) > MAX_NODES:
        return 0
    order = io_toposort(fgraph.inputs, fgraph.outputs)
    removed = 0
    for members in _plan_groups(fgraph, order, max_inputs):
        if _replace_group(fgraph, members):
            removed += len(members) - 1
    return removed
