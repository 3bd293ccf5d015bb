"""The graph document the viewer shows: nodes, edges, and nested inner graphs.

A document is plain JSON-able data, built from a compiled function, a
FunctionGraph or output variables.  Apply nodes and the graph's inputs,
outputs and constants are boxes; an edge is a variable flowing from its
producer to a consumer.  An Op with a graph of its own (OpFromGraph, Scan,
a fused Composite) carries that graph as a nested document, so the viewer
can open it.  When the function was profiled, each node carries its time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opgraph.compile.function.types import Function
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.op import HasInnerGraph
from opgraph.graph.traversal import graph_inputs, io_toposort

__all__ = ["graph_document"]

MAX_DEPTH = 4  # nested inner graphs shown (Scan of OpFromGraph of Composite ...)


def _shape(var: Variable) -> str:
    shape = getattr(var.type, "shape", None)
    if shape is None:
        return ""
    return "(" + ", ".join("?" if s is None else str(s) for s in shape) + ("," if len(
        shape) == 1 else "") + ")"


def _var_label(var: Variable, fallback: str) -> str:
    if var.name:
        return var.name
    if isinstance(var, Constant):
        text = str(var)
        return text if len(text) <= 24 else text[:21] + "..."
    return fallback


def _variable_info(var: Variable) -> dict[str, Any]:
    return {"type": str(var.type), "shape": _shape(var), "dtype": str(getattr(var.type,
                                                                                "dtype", ""))}


def _inner_graph(op: Any) -> tuple[list[Variable], list[Variable]] | None:
    if not isinstance(op, HasInnerGraph):
        return None
    try:
        return list(op.inner_inputs), list(op.inner_outputs)
    except (NotImplementedError, AttributeError):
        return None


def _document(
    inputs: Sequence[Variable], outputs: Sequence[Variable], times: Mapping[Apply, float],
    depth: int,
) -> dict[str, Any]:
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    ids: dict[Any, str] = {}

    def var_box(var: Variable, kind: str, label: str) -> str:
        key = ("var", id(var))
        if key not in ids:
            ids[key] = f"v{len(ids)}"
            nodes.append({"id": ids[key], "kind": kind, "label": label,
                          **_variable_info(var)})
        return ids[key]

    for k, var in enumerate(inputs):
        var_box(var, "shared" if _is_shared(var) else "input", _var_label(var, f"input {k}"))
    order = io_toposort(list(inputs), list(outputs))
    for node in order:
        sources = []
        for i, var in enumerate(node.inputs):  # boxes of constants/inputs before their user
            if var.owner is not None and ("node", id(var.owner)) in ids:
                sources.append(ids[("node", id(var.owner))])
            elif isinstance(var, Constant):
                sources.append(var_box(var, "constant", _var_label(var, "constant")))
            else:
                sources.append(var_box(var, "input", _var_label(var, f"input {i}")))
        nid = f"n{len(ids)}"
        ids[("node", id(node))] = nid
        entry: dict[str, Any] = {
            "id": nid,
            "kind": "apply",
            "label": str(node.op),
            "op_class": type(node.op).__name__,
            "outputs": [dict(_variable_info(o), name=o.name or "") for o in node.outputs],
        }
        if node in times:
            entry["time"] = float(times[node])
        inner = _inner_graph(node.op) if depth < MAX_DEPTH else None
        if inner is not None:
            entry["inner"] = _document(inner[0], inner[1], {}, depth + 1)
        nodes.append(entry)
        for src, var in zip(sources, node.inputs):
            edges.append({"source": src, "target": nid, "label": var.name or "",
                          **_variable_info(var)})
    for k, var in enumerate(outputs):
        out_id = f"o{k}"
        nodes.append({"id": out_id, "kind": "output", "label": _var_label(var, f"output {k}"),
                      **_variable_info(var)})
        if var.owner is not None and ("node", id(var.owner)) in ids:
            src = ids[("node", id(var.owner))]
        else:
            src = var_box(var, "constant" if isinstance(var, Constant) else "input",
                          _var_label(var, f"input of output {k}"))
        edges.append({"source": src, "target": out_id, "label": "", **_variable_info(var)})
    return {"nodes": nodes, "edges": edges}


def _is_shared(var: Variable) -> bool:
    return getattr(var, "container", None) is not None and hasattr(var, "get_value")


def graph_document(
    graph: Function | FunctionGraph | Variable | Sequence[Variable],
    title: str | None = None,
) -> dict[str, Any]:
    """The document of a compiled function (its rewritten graph, with profile times
    when it was profiled), a FunctionGraph, or the graph of some output variables."""
    times: Mapping[Apply, float] = {}
    if isinstance(graph, Function):
        fgraph = graph.maker.fgraph
        profile = getattr(graph, "profile", None)
        if profile is not None and hasattr(profile, "apply_time"):
            times = profile.apply_time
        inputs, outputs = list(fgraph.inputs), list(fgraph.outputs)
        name = title or graph.name or "compiled function"
    elif isinstance(graph, FunctionGraph):
        inputs, outputs = list(graph.inputs), list(graph.outputs)
        name = title or "FunctionGraph"
    else:
        outs = [graph] if isinstance(graph, Variable) else list(graph)
        for k, v in enumerate(outs):
            if not isinstance(v, Variable):
                raise TypeError(
                    f"d3viz: expected a compiled function, a FunctionGraph or Variables, got "
                    f"{type(v).__name__} at position {k}"
                )
        inputs = [v for v in graph_inputs(outs) if not isinstance(v, Constant)]
        outputs = outs
        name = title or "graph"
    doc = _document(inputs, outputs, times, 0)
    doc["title"] = name
    doc["profiled"] = bool(times)
    return doc
