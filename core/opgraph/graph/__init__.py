"""The graph layer: nodes, Types, Ops, FunctionGraph and Features.

Names are imported on first access (like ``pytensor.graph``'s exports), so
``import opgraph.graph`` costs almost nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opgraph.graph.utils import lazy_exports

if TYPE_CHECKING:
    from opgraph.graph.basic import (
        Apply,
        Constant,
        Node,
        Variable,
        ancestors,
        applys_between,
        clone,
        clone_get_equiv,
        clone_replace,
        equal_computations,
        general_toposort,
        graph_inputs,
        io_toposort,
        orphans_between,
        vars_between,
        walk,
    )
    from opgraph.graph.destroyhandler import DestroyHandler
    from opgraph.graph.features import Feature, ReplaceValidate
    from opgraph.graph.fg import FunctionGraph
    from opgraph.graph.null_type import DisconnectedType, NullType
    from opgraph.graph.op import HasInnerGraph, Op
    from opgraph.graph.replace import graph_replace, vectorize_graph
    from opgraph.graph.rewriting.basic import graph_rewriter, node_rewriter
    from opgraph.graph.rewriting.utils import rewrite_graph
    from opgraph.graph.traversal import explicit_graph_inputs, toposort
    from opgraph.graph.type import Type
    from opgraph.graph.utils import InconsistencyError, MissingInputError

_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
            "Apply",
            "Constant",
            "Node",
            "Variable",
            "ancestors",
            "applys_between",
            "clone",
            "clone_get_equiv",
            "clone_replace",
            "equal_computations",
            "general_toposort",
            "graph_inputs",
            "io_toposort",
            "orphans_between",
            "vars_between",
            "walk",
        ),
        "opgraph.graph.basic",
    ),
    "Op": "opgraph.graph.op",
    "HasInnerGraph": "opgraph.graph.op",
    "Type": "opgraph.graph.type",
    "FunctionGraph": "opgraph.graph.fg",
    "Feature": "opgraph.graph.features",
    "ReplaceValidate": "opgraph.graph.features",
    "DestroyHandler": "opgraph.graph.destroyhandler",
    "NullType": "opgraph.graph.null_type",
    "DisconnectedType": "opgraph.graph.null_type",
    "graph_replace": "opgraph.graph.replace",
    "vectorize_graph": "opgraph.graph.replace",
    "rewrite_graph": "opgraph.graph.rewriting.utils",
    "graph_rewriter": "opgraph.graph.rewriting.basic",
    "node_rewriter": "opgraph.graph.rewriting.basic",
    "RewriteDatabaseQuery": "opgraph.graph.rewriting.db",  # served by opgraph-rewrites
    "explicit_graph_inputs": "opgraph.graph.traversal",
    "toposort": "opgraph.graph.traversal",
    "InconsistencyError": "opgraph.graph.utils",
    "MissingInputError": "opgraph.graph.utils",
}

__all__ = [
    "Apply",
    "Constant",
    "DestroyHandler",
    "DisconnectedType",
    "Feature",
    "FunctionGraph",
    "HasInnerGraph",
    "InconsistencyError",
    "MissingInputError",
    "Node",
    "NullType",
    "Op",
    "ReplaceValidate",
    "RewriteDatabaseQuery",
    "Type",
    "Variable",
    "ancestors",
    "applys_between",
    "clone",
    "clone_get_equiv",
    "clone_replace",
    "equal_computations",
    "explicit_graph_inputs",
    "general_toposort",
    "graph_inputs",
    "graph_replace",
    "graph_rewriter",
    "io_toposort",
    "node_rewriter",
    "orphans_between",
    "rewrite_graph",
    "toposort",
    "vars_between",
    "vectorize_graph",
    "walk",
]
assert set(__all__) == set(_LAZY)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
