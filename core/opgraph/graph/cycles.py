"""Would rewiring some nodes to read a new variable make the graph cyclic?

``FunctionGraph.replace(var, new)`` makes the clients of ``var`` read ``new``.
That closes a cycle exactly when one of those clients is an ancestor of
``new`` (``new`` is computed from the client's own result).  The check runs
two searches in turn, forward from the clients (their descendants) and
backward from ``new`` (its ancestors), one step each, and stops as soon as
either search is exhausted or they meet, so it costs about the smaller of the
two regions: little near the outputs and little near the inputs, the places
most rewrites touch.  Duck-typed on ``owner``/``inputs``/``outputs`` and a
client map, like traversal.py, so it sits below basic.py.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from typing import Any

__all__ = ["cycle_through"]


def cycle_through(
    targets: Iterable[Any],
    new_var: Any,
    clients: Mapping[Any, Sequence[tuple[Any, int]]],
    graph_nodes: Container[Any],
) -> Any | None:
    """A node of ``targets`` that ``new_var`` depends on (the rewiring would close a
    cycle through it), or None.

    ``targets`` are Apply nodes about to read ``new_var``; ``clients`` maps a
    variable to its ``(node, input index)`` users (``"output"`` entries ignored);
    ``graph_nodes`` holds the graph's nodes (``new_var`` may be built from nodes
    not in the graph yet).

    A cycle means a path target -> ... -> ``new_var``; every node on it that is
    in the graph descends from the target.  So once the forward search has
    found every descendant, the backward search only needs to continue through
    descendants and through nodes not in the graph.
    """
    start_nodes = [t for t in targets if not isinstance(t, str)]
    if not start_nodes:
        return None
    down: dict[Any, Any] = {n: n for n in start_nodes}  # descendant -> the target above it
    forward = list(start_nodes)
    up_seen: set[Any] = set()
    backward = [new_var]
    while backward:
        var = backward.pop()
        node = getattr(var, "owner", None)
        if node is not None and node not in up_seen:
            up_seen.add(node)
            if node in down:
                return down[node]
            if forward or node not in graph_nodes:
                backward.extend(node.inputs)
            # else: a graph node that is no descendant of any target; no path through it
        if forward:
            node = forward.pop()
            for out in node.outputs:
                for user, _ in clients.get(out, ()):
                    if isinstance(user, str) or user in down:
                        continue
                    down[user] = down[node]
                    if user in up_seen:
                        return down[user]
                    forward.append(user)
    return None
