"""Helpers around the engine: rewrite a bare graph, compare graphs, inspect clients."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from opgraph.graph.basic import Variable, equal_computations
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.replace import graph_replace

__all__ = ["get_clients_at_depth", "is_same_graph", "rewrite_graph"]


def rewrite_graph(
    graph: Variable | Sequence[Variable] | Any,
    include: Sequence[str] = ("canonicalize",),
    custom_rewrite: Any = None,
    clone: bool = False,
    exclude: Sequence[str] = (),
    **kwargs: Any,
) -> Any:
    """Rewrite ``graph`` (a Variable, list of Variables or FunctionGraph) with a DB query.

    The query runs against the rewrite database of the opgraph-rewrites
    plugin; ``custom_rewrite`` (a GraphRewriter) runs after it.
    """
    return_fgraph = isinstance(graph, FunctionGraph)
    single = isinstance(graph, Variable)
    if return_fgraph:
        fgraph = graph.clone() if clone else graph
    else:
        outputs = [graph] if single else list(graph)
        fgraph = FunctionGraph(outputs=outputs, clone=clone)
    if include:
        try:
            from opgraph_rewrites.db import RewriteDatabaseQuery
            from opgraph_rewrites.registry import get_database
        except ImportError as exc:
            raise ImportError(
                "rewrite_graph needs the rewrite database: install the 'opgraph-rewrites' "
                f"plugin ({exc})"
            ) from exc
        query = RewriteDatabaseQuery(include=tuple(include), exclude=tuple(exclude), **kwargs)
        get_database().query(query).rewrite(fgraph)
    if custom_rewrite is not None:
        custom_rewrite.rewrite(fgraph)
    if return_fgraph:
        return fgraph
    if single:
        return fgraph.outputs[0]
    return list(fgraph.outputs)


def is_same_graph(var1: Variable, var2: Variable, givens: dict | None = None) -> bool:
    """Whether two variables compute the same thing (structurally)."""
    if givens:
        var1, var2 = graph_replace([var1, var2], givens, strict=False)
    return equal_computations([var1], [var2])


def get_clients_at_depth(fgraph: Any, node: Any, depth: int) -> Iterator[Any]:
    """Nodes ``depth`` client-steps below ``node`` (outputs pseudo-clients skipped)."""
    frontier = [node]
    for _ in range(depth):
        nxt = []
        for n in frontier:
            for out in n.outputs:
                for client, _i in fgraph.clients.get(out, ()):
                    if not isinstance(client, str):
                        nxt.append(client)
        frontier = nxt
    yield from frontier
