"""The rewrite database, built on first use from every plugin's registration hook.

The standard phases (:data:`opgraph.plugins.phases.STANDARD_PHASES`) and
their databases exist before any plugin is asked, so a plugin may register
into ``db["canonicalize"]`` (or ``phase="fusion"``) whatever the hook order:

=================  ============  =============================================
phase              entry         what
=================  ============  =============================================
inline             (plugins)     OpFromGraph inlining
initial_merge      merge1        MergeOptimizer (tags fast_run, fast_compile)
canonicalize       canonicalize  EquilibriumDB: normal forms (fast_run, fast_compile)
stabilize          stabilize     EquilibriumDB: numerically stable forms (fast_run)
specialize         specialize    EquilibriumDB: faster forms (fast_run)
post_specialize    (plugins)     clean-ups after specialize
fusion             (standard)    Elemwise fusion (fast_run)
post_fusion_merge  merge2        MergeOptimizer after fusion
inplace            (standard)    inplace Elemwise (fast_run, needs DestroyHandler)
final_merge        merge3        final MergeOptimizer
=================  ============  =============================================

Building checks the phase constraints (cycles, unknown phases) and collects
duplicate rewrite names from all plugins before raising one error naming
every pair of registrations.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

from opgraph.config import config
from opgraph.graph.rewriting.basic import GraphRewriter
from opgraph.graph.rewriting.merge import MergeOptimizer
from opgraph.plugins import STANDARD_PHASES, call_hook_safely, get_plugin_manager
from opgraph_rewrites.db import (
    DuplicateRewriteError,
    EquilibriumDB,
    RewriteDatabaseQuery,
    SequenceDB,
    as_graph_rewriter,
    collecting_duplicates,
)

__all__ = [
    "build_database",
    "get_database",
    "get_query_rewriter",
    "make_query",
    "reset_database",
]

_LOCK = threading.RLock()
_DATABASES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_REWRITERS: dict[tuple[int, RewriteDatabaseQuery], GraphRewriter] = {}


def _phase(name: str) -> EquilibriumDB:
    """An equilibrium phase that re-visits nodes whose inputs a rewrite changed."""
    return EquilibriumDB(name=name, tracks_on_change_inputs=True)


def standard_skeleton() -> SequenceDB:
    """The top SequenceDB with the standard phases and merges, no rewrites yet."""
    db = SequenceDB(name="optdb", phases=STANDARD_PHASES)
    db.register("merge1", MergeOptimizer(), "fast_run", "fast_compile", "merge",
                phase="initial_merge", use_db_name_as_tag=False)
    db.register("canonicalize", _phase("canonicalize"), "fast_run", "fast_compile",
                phase="canonicalize", use_db_name_as_tag=False)
    db.register("stabilize", _phase("stabilize"), "fast_run", phase="stabilize",
                use_db_name_as_tag=False)
    db.register("specialize", _phase("specialize"), "fast_run", phase="specialize",
                use_db_name_as_tag=False)
    db.register("merge2", MergeOptimizer(), "fast_run", "merge", phase="post_fusion_merge",
                use_db_name_as_tag=False)
    db.register("merge3", MergeOptimizer(), "fast_run", "merge", phase="final_merge",
                use_db_name_as_tag=False)
    return db


def build_database(pm: Any = None) -> SequenceDB:
    """A fresh database: the skeleton plus every plugin's ``opgraph_register_rewrites``.

    Raises :class:`DuplicateRewriteError` (after every plugin has registered)
    when names repeat, and PhaseError/PhaseCycleError when phases cannot be ordered.
    """
    pm = get_plugin_manager() if pm is None else pm
    db = standard_skeleton()
    with collecting_duplicates() as duplicates:
        call_hook_safely(pm, "opgraph_register_rewrites", db=db)
    if duplicates:
        raise DuplicateRewriteError(
            f"{len(duplicates)} rewrite name(s) registered twice by the installed plugins: "
            + "; ".join(duplicates)
        )
    db.check()
    return db


def get_database(pm: Any = None) -> SequenceDB:
    """The database of plugin manager ``pm`` (default: the global one), built once."""
    pm = get_plugin_manager() if pm is None else pm
    with _LOCK:
        db = _DATABASES.get(pm)
        if db is None:
            db = _DATABASES[pm] = build_database(pm)
        return db


def reset_database(pm: Any = None) -> None:
    """Forget built databases (all, or ``pm``'s) so the next use rebuilds them."""
    with _LOCK:
        if pm is None:
            _DATABASES.clear()
        else:
            _DATABASES.pop(pm, None)
        _REWRITERS.clear()


def _config_tags() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    try:
        return (tuple(config.optimizer_including), tuple(config.optimizer_excluding),
                tuple(config.optimizer_requiring))
    except Exception:
        return (), (), ()


def make_query(include: Sequence[str] = (), exclude: Sequence[str] = (),
               require: Sequence[str] = (), use_config: bool = True) -> RewriteDatabaseQuery:
    """A query from a mode's tags plus the ``optimizer_*`` config flags (OPGRAPH_FLAGS)."""
    inc, exc, req = _config_tags() if use_config else ((), (), ())
    return RewriteDatabaseQuery(include=(*include, *inc), exclude=(*exclude, *exc),
                                require=(*require, *req))


def get_query_rewriter(include: Sequence[str] = (), exclude: Sequence[str] = (),
                       require: Sequence[str] = (), pm: Any = None,
                       use_config: bool = True) -> GraphRewriter:
    """One GraphRewriter for the query (cached per database and query)."""
    db = get_database(pm)
    q = make_query(include, exclude, require, use_config)
    key = (id(db), q)
    with _LOCK:
        rw = _REWRITERS.get(key)
        if rw is None:
            rw = _REWRITERS[key] = as_graph_rewriter(db.query(q))
        return rw
