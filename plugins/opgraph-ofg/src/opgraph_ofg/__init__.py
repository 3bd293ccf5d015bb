"""opgraph-ofg: OpFromGraph, a graph used as one Op, and the rewrites that serve it.

``from opgraph_ofg import OpFromGraph`` or, as in PyTensor,
``from opgraph.compile.builders import OpFromGraph``.  Imported on first
use, so loading the plugin's entry point stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opgraph_ofg.op import OpFromGraph

__all__ = ["OpFromGraph"]


def __getattr__(name: str) -> Any:
    if name == "OpFromGraph":
        from opgraph_ofg.op import OpFromGraph

        globals()[name] = OpFromGraph
        return OpFromGraph
    raise AttributeError(f"module 'opgraph_ofg' has no attribute {name!r}")
