"""Rewrites stated as miniKanren relations (needs the ``opgraph[kanren]`` extra).

``KanrenRelationSub(relation)`` asks ``relation(in_term, out_lvar)`` for the
terms a node's output may be rewritten to and uses the first (or the one
``results_filter`` picks). Relations see graphs as terms through
``opgraph.graph.rewriting.logic``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import NodeRewriter
from opgraph.graph.rewriting.logic import eval_if_etuple

try:  # third-party, optional: the "kanren" extra
    from kanren import run
    from unification import var
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"KanrenRelationSub needs the optional package minikanren ({exc}); install it with "
        "`pip install opgraph[kanren]`"
    ) from exc

__all__ = ["KanrenRelationSub"]


def _first(results: Iterator[Any]) -> Any:
    return next(iter(results), None)


class KanrenRelationSub(NodeRewriter):
    """Replace a node's output(s) by a solution of ``kanren_relation(input, output)``.

    A node with several outputs is the list of its outputs (the relation
    answers with a list of replacements). ``node_filter(node)`` returning
    False skips the node; ``results_filter(results)`` chooses among the
    solutions (default: the first; None: no rewrite).
    """

    reentrant = True

    def __init__(
        self,
        kanren_relation: Callable[[Any, Any], Any],
        results_filter: Callable[[Iterator[Any]], Any] | None = None,
        node_filter: Callable[[Apply], bool] = lambda node: True,
    ) -> None:
        if not callable(kanren_relation):
            raise TypeError(
                f"KanrenRelationSub: kanren_relation must be callable, got {kanren_relation!r}"
            )
        self.kanren_relation = kanren_relation
        self.results_filter = results_filter or _first
        self.node_filter = node_filter

    def transform(self, fgraph: Any, node: Apply) -> Any:
        if self.node_filter(node) is False:
            return False
        outputs = node.outputs
        term: Any = outputs[0] if len(outputs) == 1 else list(outputs)
        q = var()
        chosen = self.results_filter(run(None, q, self.kanren_relation(term, q)))
        if chosen is None or chosen is False:
            return False
        if isinstance(chosen, list | tuple) and len(outputs) > 1:
            new = [eval_if_etuple(v) for v in chosen]
        else:
            new = [eval_if_etuple(chosen)]
        if not all(isinstance(v, Variable) for v in new):
            return False
        if all(a is b for a, b in zip(new, outputs, strict=False)) and len(new) == len(outputs):
            return new if len(outputs) > 1 else False
        return new

    def __str__(self) -> str:
        name = getattr(self.kanren_relation, "__name__", self.kanren_relation)
        return f"KanrenRelationSub({name})"
