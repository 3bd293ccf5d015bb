"""Helpers around the engine: rewrite a bare graph, compare graphs, inspect clients."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from opgraph.graph.basic import Variable, equal_computations
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.replace import graph_replace
from opgraph.graph.utils import lazy_exports

__all__ = ["check_stack_trace", "get_clients_at_depth", "is_same_graph", "rewrite_graph"]


def rewrite_graph(
    graph: Variable | Sequence[Variable] | Any,
    include: Sequence[str] = ("canonicalize",),
    custom_rewrite: Any = None,
    clone: bool = False,
    exclude: Sequence[str] = (),
    **kwargs: Any,
) -> Any:
    """Rewrite ``graph`` (a Variable, list of Variables or FunctionGraph) with a DB query.

    The query runs against the rewrite database a plugin provides (hook
    ``opgraph_rewrite_database``; opgraph-rewrites does); ``custom_rewrite``
    (a GraphRewriter) runs after it.
    """
    return_fgraph = isinstance(graph, FunctionGraph)
    single = isinstance(graph, Variable)
    if return_fgraph:
        fgraph = graph.clone() if clone else graph
    else:
        outputs = [graph] if single else list(graph)
        fgraph = FunctionGraph(outputs=outputs, clone=clone)
    if include:
        from opgraph.plugins.registry import current_plugin_manager, rewrite_database_record

        pm = current_plugin_manager()
        record = rewrite_database_record(pm)
        if record is None:
            raise ImportError(
                "rewrite_graph needs the rewrite database 'optdb', which no installed plugin "
                "provides: install the 'opgraph-rewrites' plugin"
            )
        db = record.get_database(pm)
        db.query(include=tuple(include), exclude=tuple(exclude), **kwargs).rewrite(fgraph)
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


def _node_selector(ops_to_check: Any) -> Any:
    """A predicate on Apply nodes for ``check_stack_trace``'s ``ops_to_check``."""
    if isinstance(ops_to_check, list | tuple):
        preds = [_node_selector(o) for o in ops_to_check]
        return lambda node: any(p(node) for p in preds)
    if isinstance(ops_to_check, type):
        return lambda node: isinstance(node.op, ops_to_check)
    if callable(ops_to_check) and not hasattr(ops_to_check, "make_node"):
        return lambda node: bool(ops_to_check(node.op))
    return lambda node: node.op == ops_to_check


def check_stack_trace(
    f_or_fgraph: Any, ops_to_check: Any = "last", bug_print: str = "raise"
) -> bool:
    """Whether the outputs of the selected nodes carry a creation trace (``tag.trace``).

    ``f_or_fgraph`` is a FunctionGraph or a compiled function (its ``maker.fgraph``).
    ``ops_to_check`` is ``"last"`` (the nodes producing the graph outputs), ``"all"``,
    an Op class, an Op instance, a predicate on ops, or a list/tuple of those.
    ``bug_print`` says what to do when no node matches: ``"raise"`` (ValueError),
    ``"warn"`` or ``"ignore"``; the answer is then True.
    Rewrites should keep the trace of the variable they replace, so that errors
    raised at run time point at the user's line.
    """
    fgraph = getattr(getattr(f_or_fgraph, "maker", None), "fgraph", f_or_fgraph)
    if not hasattr(fgraph, "apply_nodes"):
        raise TypeError(
            "check_stack_trace: f_or_fgraph must be a FunctionGraph or a compiled "
            f"function, got {type(f_or_fgraph).__name__}"
        )
    if bug_print not in ("raise", "warn", "ignore"):
        raise ValueError(
            f"check_stack_trace: bug_print must be 'raise', 'warn' or 'ignore', got {bug_print!r}"
        )
    if ops_to_check == "last":
        nodes = [o.owner for o in fgraph.outputs if o.owner is not None]
    elif ops_to_check == "all":
        nodes = list(fgraph.apply_nodes)
    else:
        select = _node_selector(ops_to_check)
        nodes = [n for n in fgraph.apply_nodes if select(n)]
    if not nodes:
        msg = f"check_stack_trace: no node of the graph matches ops_to_check={ops_to_check!r}"
        if bug_print == "raise":
            raise ValueError(msg)
        if bug_print == "warn":
            warnings.warn(msg, UserWarning, stacklevel=2)
        return True
    return all(
        bool(getattr(getattr(out, "tag", None), "trace", None))
        for node in nodes
        for out in node.outputs
    )


# merge imports the rewriting base, which imports this module: loaded on first use
__getattr__, __dir__ = lazy_exports(__name__, {
    "is_same_graph_with_merge": "opgraph.graph.rewriting.merge"})
