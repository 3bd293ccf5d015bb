"""An interactive HTML view of a graph or a compiled function (PyTensor's ``d3viz``).

``d3viz(f, "graph.html")`` writes one self-contained file (no network access
needed to open it): boxes for the nodes, inputs and outputs with their types
and shapes, inner graphs of OpFromGraph/Scan/fused Composites opened by
double-click, and each node's time when ``f`` was compiled with
``profile=True`` and called.  ``d3write`` writes the same graph as DOT text.
"""

from __future__ import annotations

from opgraph.d3viz.d3viz import d3viz, d3write
from opgraph.d3viz.model import graph_document
from opgraph.d3viz.page import render_page

__all__ = ["d3viz", "d3write", "graph_document", "render_page"]
