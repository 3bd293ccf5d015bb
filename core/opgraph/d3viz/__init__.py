"""An interactive HTML view of a graph or a compiled function (PyTensor's ``d3viz``).

``d3viz(f, "graph.html")`` writes one self-contained file (no network access
needed to open it): boxes for the nodes, inputs and outputs with their types
and shapes, inner graphs of OpFromGraph/Scan/fused Composites opened by
double-click, and each node's time when ``f`` was compiled with
``profile=True`` and called.  ``d3write`` writes the same graph as DOT text.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from opgraph.compile.function.types import Function
from opgraph.d3viz.layout import layout_document
from opgraph.d3viz.model import graph_document
from opgraph.d3viz.page import render_page
from opgraph.graph.basic import Variable
from opgraph.graph.fg import FunctionGraph

__all__ = ["d3viz", "d3write", "graph_document", "render_page"]

Graph = Function | FunctionGraph | Variable | Sequence[Variable]


def d3viz(fct: Graph, outfile: str | os.PathLike[str], copy_deps: bool = True,
          *args: Any, **kwargs: Any) -> str:
    """Write the interactive HTML view of ``fct`` to ``outfile``; returns its path.

    ``copy_deps`` is accepted for PyTensor compatibility: the page has no
    dependencies to copy.  ``title=`` names the top level.
    """
    doc = layout_document(graph_document(fct, title=kwargs.get("title")))
    path = os.fspath(outfile)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(render_page(doc))
    return path


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def d3write(fct: Graph, path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> str:
    """Write the graph of ``fct`` as DOT text (Graphviz) to ``path``; returns the path."""
    doc = graph_document(fct, title=kwargs.get("title"))
    shapes = {"apply": "box", "input": "ellipse", "shared": "ellipse", "constant": "plaintext",
              "output": "ellipse"}
    lines = ["digraph opgraph {", "  rankdir=TB;"]
    for n in doc["nodes"]:
        lines.append(f"  {n['id']} [label={_dot_quote(n['label'])}, "
                     f"shape={shapes.get(n['kind'], 'box')}];")
    for e in doc["edges"]:
        label = f"{e['type']}"
        lines.append(f"  {e['source']} -> {e['target']} [label={_dot_quote(label)}];")
    lines.append("}")
    target = os.fspath(path)
    with open(target, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return target
