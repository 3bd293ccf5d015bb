"""Checking that a FunctionGraph's bookkeeping matches its edges.

``check_integrity`` first runs a linear-time test that only says yes or no;
only when it fails does the slower diagnosis run, to name what disagrees.
"""

from __future__ import annotations

import itertools
from typing import Any

from opgraph.graph.basic import AtomicVariable, Variable
from opgraph.graph.traversal import _postorder_nodes
from opgraph.graph.utils import InconsistencyError

__all__ = ["check_integrity"]

OUTPUT = "output"


def check_integrity(fgraph: Any) -> None:
    """Raise InconsistencyError if ``fgraph``'s clients, nodes or variables are wrong."""
    input_set = set(fgraph.inputs)
    nodes = _postorder_nodes(input_set, fgraph.outputs)
    if not _integrity_holds(fgraph, nodes, input_set):
        _diagnose_integrity(fgraph, nodes)


def _node_label(node: Any) -> str:
    return "output" if node == OUTPUT else str(node)


def _integrity_holds(self: Any, nodes: list[Any], input_set: set[Any]) -> bool:
    """True when the bookkeeping matches the graph reachable from the outputs.

    Each edge ``(node, i)`` must be found in ``clients[node.inputs[i]]``;
    distinct edges find distinct entries, so with as many entries as edges
    every entry is an edge. Likewise every expected variable must be in
    ``variables`` and ``clients``, and the sizes must agree.
    """
    apply_nodes = self.apply_nodes
    if len(nodes) != len(apply_nodes) or not apply_nodes.issuperset(nodes):
        return False
    variables = self.variables
    clients = self.clients
    get = clients.get
    big: dict[Variable, set] = {}  # client sets of widely used variables
    extra: set[Variable] = set()  # ownerless non-inputs: constants
    n_vars = len(input_set)
    n_edges = 0
    for node in nodes:
        k = 0
        for o in node.outputs:
            if o.owner is not node or o.index != k or o not in variables or o not in clients:
                return False
            k += 1
        n_vars += k
        i = 0
        for x in node.inputs:
            cl = get(x)
            if cl is None:
                return False
            if len(cl) <= 8:
                if (node, i) not in cl:
                    return False
            else:
                s = big.get(x)
                if s is None:
                    s = big[x] = set(cl)
                if (node, i) not in s:
                    return False
            if x.owner is None and x not in input_set:
                if not isinstance(x, AtomicVariable):
                    return False
                extra.add(x)
            i += 1
        n_edges += i
    outputs = self.outputs
    for j, o in enumerate(outputs):
        cl = get(o)
        if cl is None or (OUTPUT, j) not in cl:
            return False
        if o.owner is None and o not in input_set:
            if not isinstance(o, AtomicVariable):
                return False
            extra.add(o)
    n_edges += len(outputs)
    n_vars += len(extra)
    for v in itertools.chain(input_set, extra):
        if v not in variables or v not in clients:
            return False
    return (
        len(variables) == n_vars
        and len(clients) == n_vars
        and sum(map(len, clients.values())) == n_edges
    )

def _diagnose_integrity(self: Any, nodes: list[Any]) -> None:
    """Raise an InconsistencyError naming what disagrees (the slow, thorough check)."""

    apply_nodes = self.apply_nodes
    if len(nodes) != len(apply_nodes) or not apply_nodes.issuperset(nodes):
        found = set(nodes)
        extra = apply_nodes - found
        lost = found - apply_nodes
        if lost:
            raise InconsistencyError(
                f"The following nodes are in the graph but missing from apply_nodes: "
                f"{sorted(map(str, lost))[:5]}"
            )
        raise InconsistencyError(
            f"The following nodes are in apply_nodes but unreachable from the outputs: "
            f"{sorted(map(str, extra))[:5]}"
        )
    input_set = set(self.inputs)  # an input may be listed twice (as in PyTensor)
    clients = self.clients
    expected_vars = set(input_set)
    n_edges = 0
    get = clients.get

    def undeclared(x: Variable) -> bool:
        return x.owner is None and x not in input_set and not isinstance(x, AtomicVariable)

    for node in nodes:
        outs = node.outputs
        for k, o in enumerate(outs):
            if o.owner is not node or o.index != k:
                raise InconsistencyError(f"{o} is output {k} of {node} but its owner differs")
        expected_vars.update(outs)
        ins = node.inputs
        n_edges += len(ins)
        for i, x in enumerate(ins):
            cl = get(x)
            if cl is None or (node, i) not in cl:
                raise InconsistencyError(
                    f"Inconsistent clients list: wrong clients for {x}: recorded "
                    f"{_fmt_clients(cl)}, missing ({node}, {i})"
                )
            if x not in expected_vars:
                if undeclared(x):
                    raise InconsistencyError(f"Undeclared input {x} used by {node} (input {i})")
                expected_vars.add(x)
    for j, o in enumerate(self.outputs):
        if undeclared(o):
            raise InconsistencyError(f"Undeclared input {o} used as output {j}")
        cl = get(o)
        if cl is None or (OUTPUT, j) not in cl:
            raise InconsistencyError(
                f"Inconsistent clients list: wrong clients for {o}: recorded "
                f"{_fmt_clients(cl)}, missing (output, {j})"
            )
        expected_vars.add(o)
    n_edges += len(self.outputs)
    if expected_vars != self.variables:
        extra = self.variables - expected_vars
        lost = expected_vars - self.variables
        raise InconsistencyError(
            "The following variables are inconsistent with the graph: "
            f"recorded but unused {sorted(map(str, extra))[:5]}, "
            f"used but not recorded {sorted(map(str, lost))[:5]}"
        )
    if len(clients) != len(expected_vars) or sum(map(len, clients.values())) != n_edges:
        for var, cl in clients.items():
            if var not in expected_vars:
                raise InconsistencyError(
                    f"{var} is not in the graph but has a clients entry {_fmt_clients(cl)}"
                )
            if len(set(cl)) != len(cl):
                raise InconsistencyError(f"Duplicate clients for {var}: {_fmt_clients(cl)}")
            for c, i in cl:
                if c != OUTPUT and c not in apply_nodes:
                    raise InconsistencyError(
                        f"Client not in FunctionGraph: Inconsistent clients list for {var}: "
                        f"({_node_label(c)}, {i}) is not a node of this graph"
                    )
                ok = (
                    self.outputs[i] is var if c == OUTPUT and i < len(self.outputs)
                    else c != OUTPUT and c.inputs[i] is var
                )
                if not ok:
                    raise InconsistencyError(
                        f"Inconsistent clients list: wrong clients for {var}: "
                        f"({_node_label(c)}, {i}) does not use it"
                    )
        raise InconsistencyError("clients hold more entries than the graph has edges")
    raise InconsistencyError(
        "clients do not match the graph's edges (a variable of the graph has no clients "
        "entry, or an entry belongs to a variable outside it)"
    )


def _fmt_clients(cl: Any) -> str:
    if cl is None:
        return "nothing"
    return "[" + ", ".join(f"({_node_label(n)}, {i})" for n, i in cl) + "]"


