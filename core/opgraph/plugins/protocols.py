"""What the core expects of the objects a plugin hands it, as Protocols.

The rewrite database lives in a plugin (opgraph-rewrites), but its interface
is the core's: hooks receive a :class:`RewriteDatabaseProtocol` and any
plugin may provide one (``opgraph_rewrite_database``).  A mode, as
``opgraph_compile_features`` sees it, is a :class:`CompileModeProtocol`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from opgraph.plugins.phases import Phase

__all__ = ["CompileModeProtocol", "RewriteDatabaseProtocol"]


@runtime_checkable
class RewriteDatabaseProtocol(Protocol):
    """Named rewriters with tags, run phase by phase; queries pick them by tag.

    ``register(name, rewriter, *tags, phase=...)`` adds an entry (a float
    ``position=`` as in PyTensor also works); ``after=``/``before=`` name
    entries of the same phase it runs after/before, where several plugins
    meet in one phase (absent names are ignored); ``db[name]`` is a registered
    entry, e.g. the ``"canonicalize"`` sub-database; ``query(*tags)`` the
    rewriter(s) for a query (``"a"``/``"+a"`` include, ``"-b"`` exclude,
    ``"&c"`` require).  ``phases`` is the run order; ``add_phase`` declares a
    phase; ``check`` raises if phases cannot be ordered or an entry names an
    unknown phase.
    """

    def register(self, name: str, rewriter: Any, *tags: str, **options: Any) -> Any: ...

    def query(self, *tags: Any, **options: Any) -> Any: ...

    def __getitem__(self, name: str) -> Any: ...

    def __contains__(self, name: object) -> bool: ...

    def add_tags(self, name: str, *tags: str) -> None: ...

    def remove_tags(self, name: str, *tags: str) -> None: ...

    def tags_of(self, name: str) -> frozenset[str]: ...

    @property
    def phases(self) -> list[Phase]: ...

    def add_phase(self, phase: Phase | str, *, after: Iterable[str] | str = (),
                  before: Iterable[str] | str = (), description: str = "") -> Phase: ...

    def check(self) -> None: ...


@runtime_checkable
class CompileModeProtocol(Protocol):
    """A compilation mode as hooks see it: its name and the plugin manager it compiles with."""

    name: str | None
    plugin_manager: Any
