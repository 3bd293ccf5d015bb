"""opgraph-rewrites: the rewrite database (tags, phases, queries) and the standard rewrites.

Importing this package is cheap; the database is built on first use by
:func:`opgraph_rewrites.registry.get_database`.
"""

from opgraph_rewrites.db import (
    EquilibriumDB,
    LocalGroupDB,
    RewriteDatabase,
    RewriteDatabaseQuery,
    SequenceDB,
)
from opgraph_rewrites.registry import get_database, get_query_rewriter, reset_database

__all__ = [
    "EquilibriumDB",
    "LocalGroupDB",
    "RewriteDatabase",
    "RewriteDatabaseQuery",
    "SequenceDB",
    "get_database",
    "get_query_rewriter",
    "reset_database",
]
