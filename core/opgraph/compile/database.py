"""``opgraph.compile.optdb``: the standard rewrite database, as PyTensor code reaches it.

PyTensor code writes ``from pytensor.compile import optdb`` and then
``optdb.query(...)`` or ``optdb.register(...)``.  In opgraph the database
belongs to a plugin (hook ``opgraph_rewrite_database``; opgraph-rewrites
provides it) and is built per plugin manager, on first use.  :data:`optdb`
is a proxy: every attribute and item access goes to the database of the
current plugin manager, so the core names no plugin and importing it builds
nothing.
"""

from __future__ import annotations

from typing import Any

from opgraph.plugins.loading import current_plugin_manager
from opgraph.plugins.registry import STANDARD_DATABASE, rewrite_database_record

__all__ = ["RewriteDatabaseProxy", "optdb"]


class RewriteDatabaseProxy:
    """Forwards to the rewrite database named ``name`` of the current plugin manager."""

    __slots__ = ("_name",)

    def __init__(self, name: str = STANDARD_DATABASE) -> None:
        self._name = name

    def resolve(self) -> Any:
        """The database object itself (built on first use)."""
        pm = current_plugin_manager()
        record = rewrite_database_record(pm, self._name)
        if record is None:
            raise LookupError(
                f"no installed plugin provides the rewrite database {self._name!r}: "
                "install opgraph-rewrites (hook opgraph_rewrite_database)"
            )
        return record.get_database(pm)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.resolve(), attr)

    def __getitem__(self, name: str) -> Any:
        return self.resolve()[name]

    def __contains__(self, name: object) -> bool:
        return name in self.resolve()

    def __iter__(self) -> Any:
        return iter(self.resolve())

    def __len__(self) -> int:
        return len(self.resolve())

    def __repr__(self) -> str:
        return f"<rewrite database {self._name!r} of the installed plugins>"


optdb = RewriteDatabaseProxy()
"""The standard rewrite database (PyTensor's ``pytensor.compile.optdb``)."""
