"""PyTensor's ``d3viz.d3viz`` path: ``d3viz`` (the HTML page), ``d3write`` (DOT text) and two
text helpers."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from opgraph.compile.function.types import Function
from opgraph.d3viz.layout import layout_document
from opgraph.d3viz.model import graph_document
from opgraph.d3viz.page import render_page
from opgraph.graph.basic import Variable
from opgraph.graph.fg import FunctionGraph

__all__ = ["d3viz", "d3write", "replace_patterns", "safe_json"]

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


def replace_patterns(x: str, replace: dict[Any, Any]) -> str:
    """``x`` with each key of ``replace`` (as text) replaced by its value (as text), in order."""
    for old, new in replace.items():
        x = x.replace(str(old), str(new))
    return x


def safe_json(obj: Any) -> str:
    """``obj`` as JSON that can sit inside an HTML ``<script>`` (no ``<`` left in it)."""
    return json.dumps(obj).replace("<", "\\u003c")
