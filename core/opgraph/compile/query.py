"""Rewrite queries and the rewrite seam: which database rewrites a mode asks for.

A :class:`RewriteQuery` is three tuples of database tags.  :data:`STANDARD_QUERIES`
names the queries ``Mode(optimizer="fast_run")`` and friends accept (PyTensor's
``predefined_optimizers`` is this dict).  :func:`get_rewriter` turns a mode's
query into the GraphRewriter of the rewrite database some plugin provides
(hook ``opgraph_rewrite_database``; opgraph-rewrites does), or None when no
database is installed: then graphs compile unrewritten.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from opgraph.graph.table import NameTable
from opgraph.plugins.loading import current_plugin_manager
from opgraph.plugins.registry import rewrite_database_record

__all__ = [
    "STANDARD_QUERIES",
    "RewriteQuery",
    "as_optimizer",
    "database_rewriter",
    "get_rewriter",
]


def _merge(old: Sequence[str], new: Iterable[str]) -> tuple[str, ...]:
    for tag in new:
        if not isinstance(tag, str) or not tag:
            raise TypeError(f"rewrite tags must be non-empty strings, got {tag!r}")
    return tuple(dict.fromkeys((*old, *new)))


@attrs.frozen
class RewriteQuery:
    """Rewrite database tags: any of ``include``, all of ``require``, none of ``exclude``."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    require: tuple[str, ...] = ()

    def including(self, *tags: str) -> RewriteQuery:
        return attrs.evolve(self, include=_merge(self.include, tags))

    def excluding(self, *tags: str) -> RewriteQuery:
        return attrs.evolve(self, exclude=_merge(self.exclude, tags))

    def requiring(self, *tags: str) -> RewriteQuery:
        return attrs.evolve(self, require=_merge(self.require, tags))

    def rewrite(self, fgraph: Any, *args: Any, **kwargs: Any) -> None:
        """Apply this query's rewrites from the database to ``fgraph``, in place.

        PyTensor's ``mode.optimizer`` is a rewriter; PyMC's JAX samplers call
        ``pytensor.compile.mode.JAX.optimizer.rewrite(fgraph)``.
        """
        rewriter = database_rewriter(self, current_plugin_manager())
        if rewriter is not None:
            rewriter.rewrite(fgraph)


_FAST_RUN = RewriteQuery(include=("fast_run",))
_FAST_COMPILE = RewriteQuery(include=("fast_compile",))

_QUERIES: dict[str, RewriteQuery | None] = {
    "None": None,
    "unsafe": RewriteQuery(include=("unsafe",)),
    "fast_run": _FAST_RUN,
    "fast_run_stable": _FAST_RUN.requiring("stable"),
    "fast_compile": _FAST_COMPILE,
    "merge": RewriteQuery(include=("merge",)),
    "minimum_compile": RewriteQuery(include=("merge", "minimum_compile")),
    "stabilize": RewriteQuery(include=("fast_run",), exclude=("specialize",)),
    "o1": _FAST_COMPILE,
    "o2": _FAST_COMPILE.including("fusion"),
    "o3": _FAST_RUN.excluding("inplace"),
    "o4": _FAST_RUN,
}
STANDARD_QUERIES: NameTable[RewriteQuery | None] = NameTable(
    "rewrite_queries", "rewrite queries by optimizer name (PyTensor's predefined_optimizers, "
    "register_optimizer)")
"""Optimizer names ``Mode(optimizer=...)`` accepts; any other name becomes a one-tag query.

``register_optimizer`` (PyTensor's name) adds to this table."""
for _name, _query in _QUERIES.items():
    STANDARD_QUERIES.register(_name, _query)


def as_optimizer(optimizer: Any, default: str) -> Any:
    """What ``Mode(optimizer=...)`` stores: a query, a rewriter, or None.

    ``"default"`` means ``default`` (the ``optimizer`` flag); a name of
    :data:`STANDARD_QUERIES` its query; another name a one-tag query.
    """
    if isinstance(optimizer, str) and optimizer.lower() == "default":
        optimizer = default
    if optimizer is None or optimizer == "None":
        return None
    if isinstance(optimizer, str):
        name = optimizer.lower() if optimizer.lower() in ("default", "o1") else optimizer
        if name == "default":
            name = "fast_run"
        if name in STANDARD_QUERIES:
            return STANDARD_QUERIES[name]
        return RewriteQuery(include=(name,))
    return optimizer


def get_rewriter(mode: Any) -> Any:
    """The GraphRewriter to run for ``mode``, or None (no rewrites).

    An optimizer that is already a rewriter (has ``rewrite``) is used as is.
    A query goes to the rewrite database that a plugin of the mode's manager
    provides; with none there is nothing to run.
    """
    opt = mode.optimizer
    if opt is None:
        return None
    if not isinstance(opt, RewriteQuery) and (
            hasattr(opt, "rewrite") or (callable(opt) and not hasattr(opt, "include"))):
        return opt
    pm = mode.plugin_manager
    return database_rewriter(opt, current_plugin_manager() if pm is None else pm)


def database_rewriter(opt: Any, pm: Any) -> Any:
    """The rewrite database's rewriter for the query ``opt``, or None without a database."""
    record = rewrite_database_record(pm)
    if record is None:
        return None
    return record.get_rewriter(
        include=tuple(opt.include),
        exclude=tuple(getattr(opt, "exclude", ())),
        require=tuple(getattr(opt, "require", ())),
        pm=pm,
    )
