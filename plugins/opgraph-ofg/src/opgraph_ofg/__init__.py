"""opgraph-ofg: OpFromGraph, a graph used as one Op, and the rewrites that serve it.

``from opgraph_ofg import OpFromGraph`` or, as in PyTensor,
``from opgraph.compile.builders import OpFromGraph``.  Imported on first
use, so loading the plugin's entry point stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opgraph.graph.utils import lazy_exports

if TYPE_CHECKING:
    from opgraph_ofg.op import OpFromGraph

__all__ = ["OpFromGraph"]

_LAZY = {"OpFromGraph": "opgraph_ofg.op"}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
