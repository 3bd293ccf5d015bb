"""``pydotprint``: draw a graph with Graphviz (needs the optional ``pydot`` package).

Apart from the text printers so that the optional dependency and its drawing
code stay out of ``opgraph.printing``, which re-exports ``pydotprint``.
"""

from __future__ import annotations

import shutil
from typing import Any

from opgraph.graph.basic import Constant, Variable, io_toposort
from opgraph.graph.printer import _leaf_text, _roots

__all__ = ["pydotprint"]


def _require_pydot() -> Any:
    try:
        import pydot
    except ImportError as err:
        raise ImportError(
            "pydotprint needs the Python package 'pydot' (pip install pydot) and Graphviz's "
            "'dot' program (e.g. apt install graphviz); 'pydot' is not installed"
        ) from err
    if shutil.which("dot") is None:
        raise ImportError(
            "pydotprint needs Graphviz's 'dot' program on PATH (e.g. apt install graphviz); "
            "the Python package 'pydot' is installed but 'dot' was not found"
        )
    return pydot


def pydotprint(
    fct: Any,
    outfile: str | None = None,
    compact: bool = True,
    format: str = "png",
    with_ids: bool = False,
    high_contrast: bool = True,
    max_label_size: int = 70,
    var_with_name_simple: bool = False,
    print_output_file: bool = True,
    return_image: bool = False,
) -> Any:
    """Draw the graph of a variable, list of variables, FunctionGraph or function with Graphviz.

    Apply nodes are boxes; inputs green, outputs blue, constants grey.
    ``return_image=True`` returns the image bytes instead of writing ``outfile``.
    """
    pydot = _require_pydot()
    roots, fgraph = _roots(fct)
    inputs = list(fgraph.inputs) if fgraph is not None else []
    nodes = io_toposort(inputs, roots)
    graph = pydot.Dot("opgraph", graph_type="digraph")
    names: dict[Any, str] = {}

    def short(text: str) -> str:
        return text if len(text) <= max_label_size else text[: max_label_size - 3] + "..."

    def var_node(v: Variable) -> str:
        key = names.get(v)
        if key is not None:
            return key
        key = names[v] = f"v{len(names)}"
        if isinstance(v, Constant):
            color, label = "SeaGreen" if not high_contrast else "lightgrey", _leaf_text(v)
        elif v.owner is None:
            color, label = "limegreen", v.name or str(v.type)
        else:
            color, label = ("dodgerblue" if v in roots else "white"), v.name or str(v.type)
        if not var_with_name_simple:
            label = f"{label} {v.type}" if v.name else label
        if with_ids:
            label = f"{key} {label}"
        graph.add_node(pydot.Node(key, label=short(label), shape="ellipse",
                                  style="filled", fillcolor=color))
        return key

    for i, node in enumerate(nodes):
        key = names[node] = f"n{i}"
        label = str(node.op) if not with_ids else f"{key} {node.op}"
        graph.add_node(pydot.Node(key, label=short(label), shape="box"))
        for j, x in enumerate(node.inputs):
            edge_label = str(j) if len(node.inputs) > 1 else ""
            graph.add_edge(pydot.Edge(var_node(x), key, label=edge_label))
        for o in node.outputs:
            if compact and o.name is None and o not in roots:
                names[o] = key  # draw the edge straight from the op
            else:
                graph.add_edge(pydot.Edge(key, var_node(o)))
    for r in roots:
        var_node(r)
    if return_image:
        return graph.create(format=format)
    if outfile is None:
        outfile = f"opgraph_graph.{format}"
    graph.write(outfile, format=format)
    if print_output_file:
        print("The output file is available at", outfile)
    return None
