"""``Table``: the one shape of a registry, keyed by class (``TypeTable``) or name (``NameTable``).

Where a lower layer needs something per Op or per Type (a batching rule, a
gradient arithmetic, a constant-folding rule), it owns a ``TypeTable`` and
the module that defines the class fills it next to the class; a ``TypeTable``
looks a value up along an object's MRO (a subclass inherits its base's
entry).  A registry keyed by a name (the scalar functions, the shared-variable
constructors) is a ``NameTable``.  Both remember which module registered each
entry and may take loaders that fill them on first lookup (for entries a
module cannot import at load).  Every table is listed in :data:`TABLES`, so
``opgraph plugins --tables`` answers "who fills this table?" from the code.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import Any, Generic, TypeVar

__all__ = ["TABLES", "NameTable", "Table", "TypeTable", "caller_module", "table_rows"]

K = TypeVar("K")
V = TypeVar("V")

TABLES: dict[str, Table[Any, Any]] = {}
"""Every listed table by name, in creation order."""


def caller_module(depth: int = 1) -> str:
    """The ``__name__`` of the module ``depth`` frames above the caller of this function."""
    try:
        return sys._getframe(depth + 1).f_globals.get("__name__", "?")
    except ValueError:  # pragma: no cover - shallower stack than asked
        return "?"


class Table(MutableMapping[K, V], Generic[K, V]):
    """Entries by key, each with the module that registered it; listed in :data:`TABLES`.

    ``table.register(key, value)`` (or ``table[key] = value``) adds an entry;
    ``table.origin(key)`` names the registering module.  Entries keep their
    registration order.  Loaders (callables returning ``{key: value}``) fill the
    table on first use, for entries a module cannot build at import.  The kinds
    differ only in how they look a value up: :class:`TypeTable` along a class's
    MRO, :class:`NameTable` by name.  ``listed=False`` keeps a private table (a
    copy) out of :data:`TABLES`.
    """

    def __init__(self, name: str, description: str = "", *, listed: bool = True) -> None:
        if listed and name in TABLES:
            raise ValueError(f"a table named {name!r} already exists")
        self.name = name
        self.description = description
        self._values: dict[K, V] = {}
        self._origins: dict[K, str] = {}
        self._loaders: list[Callable[[], Mapping[K, V]]] = []
        if listed:
            TABLES[name] = self

    # -- filling ------------------------------------------------------------------------
    def _check_key(self, key: Any) -> None:
        """Raise TypeError for a key this kind of table does not take."""

    def register(self, key: K, value: V, *, stacklevel: int = 1,
                 origin: str | None = None) -> None:
        """Give ``key`` the entry ``value``.

        The entry remembers ``origin``, by default the registering module:
        ``stacklevel`` counts frames up to it (2 from a helper that registers on
        its caller's behalf).
        """
        self._check_key(key)
        self._values[key] = value
        self._origins[key] = origin or caller_module(stacklevel)

    def add_loader(self, loader: Callable[[], Mapping[K, V]]) -> None:
        """A callable returning ``{key: value}``, called on the next lookup."""
        self._loaders.append(loader)

    def _load(self) -> None:
        while self._loaders:
            loader = self._loaders.pop(0)
            origin = getattr(loader, "__module__", None) or "?"
            for key, value in loader().items():
                self._values[key] = value
                self._origins[key] = origin

    def origin(self, key: K) -> str:
        """The module that registered the entry of ``key``."""
        if self._loaders:
            self._load()
        return self._origins[key]

    def copy(self, name: str | None = None) -> Table[K, V]:
        """An unlisted table with the same entries (and who registered them)."""
        if self._loaders:
            self._load()
        new = type(self)(name or self.name, self.description, listed=False)
        new._values.update(self._values)
        new._origins.update(self._origins)
        return new

    @contextlib.contextmanager
    def saved(self) -> Iterator[Table[K, V]]:
        """Restore every entry (and who registered it) when the block ends (tests)."""
        if self._loaders:
            self._load()
        values, origins = dict(self._values), dict(self._origins)
        try:
            yield self
        finally:
            self._values.clear()
            self._values.update(values)
            self._origins.clear()
            self._origins.update(origins)

    def key_label(self, key: K) -> str:
        """How ``opgraph plugins --tables`` names ``key``."""
        return str(key)

    # -- the mapping protocol (code and tests read tables as dicts) ------------------------
    def __getitem__(self, key: K) -> V:
        if self._loaders:
            self._load()
        return self._values[key]

    def __setitem__(self, key: K, value: V) -> None:
        self.register(key, value, stacklevel=2)

    def __delitem__(self, key: K) -> None:
        del self._values[key]
        self._origins.pop(key, None)

    def __iter__(self) -> Iterator[K]:
        if self._loaders:
            self._load()
        return iter(dict(self._values))

    def __len__(self) -> int:
        if self._loaders:
            self._load()
        return len(self._values)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {len(self._values)} entries)"


class TypeTable(Table[type, V]):
    """Values by class, found along an MRO, each with the module that registered it.

    ``table.register(cls, value)`` gives ``cls`` and its subclasses without their
    own entry ``value``; ``table.lookup(obj)`` returns the value of the first
    class of ``type(obj).__mro__`` (or of ``obj`` itself when it is a class) that
    has one, else ``default``.
    """

    def _check_key(self, key: Any) -> None:
        if not isinstance(key, type):
            raise TypeError(f"{self.name}: entries are keyed by class, got {key!r}")

    def lookup(self, obj: Any, default: Any = None, *, skip: tuple[type, ...] = ()) -> Any:
        """The value for ``obj`` (an instance or a class) along its MRO, else ``default``.

        Classes in ``skip`` are passed over (``skip=(object,)``: only a specific entry,
        not the table-wide fallback registered for ``object``).
        """
        if self._loaders:
            self._load()
        mro = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
        for cls in mro:
            if cls in self._values and cls not in skip:
                return self._values[cls]
        return default

    def key_label(self, key: type) -> str:
        return key.__qualname__


class NameTable(Table[str, V]):
    """Values by name, in registration order (``table.lookup(name)``).

    For registries keyed by a name (the scalar functions lower modules call,
    PyTensor's ordered list of shared-variable constructors, printers chosen by a
    predicate).  Registering a name again replaces its entry and moves it last.
    """

    def _check_key(self, key: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(f"{self.name}: entries are keyed by name, got {key!r}")

    def register(self, key: str, value: V, *, stacklevel: int = 1,
                 origin: str | None = None) -> None:
        self._check_key(key)
        self._values.pop(key, None)  # a new registration is the newest
        super().register(key, value, stacklevel=stacklevel + 1, origin=origin)

    def lookup(self, name: str, default: Any = None) -> Any:
        """The value registered under ``name``, else ``default``."""
        if self._loaders:
            self._load()
        return self._values.get(name, default)


def _describe(value: Any) -> str:
    describe = getattr(value, "describe", None)
    if callable(describe) and not isinstance(value, type):
        return str(describe())
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    return name or type(value).__name__


def table_rows() -> list[tuple[str, str, str, str]]:
    """(table, key, value, registered by) for every entry of every listed table."""
    rows = []
    for table in TABLES.values():
        for key in table:
            rows.append((table.name, table.key_label(key), _describe(table[key]),
                         table.origin(key)))
    return rows
