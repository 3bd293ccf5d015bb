"""``TypeTable``: the one shape of a registry keyed by class.

Where a lower layer needs something per Op or per Type (a batching rule, a
gradient arithmetic, a constant-folding rule), it owns a ``TypeTable`` and
the module that defines the class fills it next to the class.  A table
looks a value up along an object's MRO (a subclass inherits its base's
entry), remembers which module registered each entry, and may take loaders
that fill it on first lookup (for entries a module cannot import at load).
Every table is listed in :data:`TABLES`, so ``opgraph plugins --tables``
answers "who fills this table?" from the code.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import Any, Generic, TypeVar

__all__ = ["TABLES", "TypeTable", "caller_module", "table_rows"]

V = TypeVar("V")

TABLES: dict[str, TypeTable[Any]] = {}
"""Every TypeTable by name, in creation order."""


def caller_module(depth: int = 1) -> str:
    """The ``__name__`` of the module ``depth`` frames above the caller of this function."""
    try:
        return sys._getframe(depth + 1).f_globals.get("__name__", "?")
    except ValueError:  # pragma: no cover - shallower stack than asked
        return "?"


class TypeTable(MutableMapping[type, V], Generic[V]):
    """Values by class, found along an MRO, each with the module that registered it.

    ``table.register(cls, value)`` (or ``table[cls] = value``) adds an entry;
    ``table.lookup(obj)`` returns the value of the first class of
    ``type(obj).__mro__`` (or of ``obj`` itself when it is a class) that has
    one, else ``default``.  ``table.origin(cls)`` names the registering module.
    """

    def __init__(self, name: str, description: str = "") -> None:
        if name in TABLES:
            raise ValueError(f"a TypeTable named {name!r} already exists")
        self.name = name
        self.description = description
        self._values: dict[type, V] = {}
        self._origins: dict[type, str] = {}
        self._loaders: list[Callable[[], Mapping[type, V]]] = []
        TABLES[name] = self

    # -- filling ------------------------------------------------------------------------
    def register(self, cls: type, value: V, *, stacklevel: int = 1,
                 origin: str | None = None) -> None:
        """Give ``cls`` (and its subclasses without their own entry) ``value``.

        The entry remembers ``origin``, by default the registering module:
        ``stacklevel`` counts frames up to it (2 from a helper that registers on
        its caller's behalf).
        """
        if not isinstance(cls, type):
            raise TypeError(f"{self.name}: entries are keyed by class, got {cls!r}")
        self._values[cls] = value
        self._origins[cls] = origin or caller_module(stacklevel)

    def add_loader(self, loader: Callable[[], Mapping[type, V]]) -> None:
        """A callable returning ``{class: value}``, called on the next lookup."""
        self._loaders.append(loader)

    def _load(self) -> None:
        while self._loaders:
            loader = self._loaders.pop(0)
            origin = getattr(loader, "__module__", None) or "?"
            for cls, value in loader().items():
                self._values[cls] = value
                self._origins[cls] = origin

    # -- lookup -------------------------------------------------------------------------
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

    def origin(self, cls: type) -> str:
        """The module that registered the entry of ``cls``."""
        if self._loaders:
            self._load()
        return self._origins[cls]

    @contextlib.contextmanager
    def saved(self) -> Iterator[TypeTable[V]]:
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

    # -- the mapping protocol (code and tests read tables as dicts) ------------------------
    def __getitem__(self, cls: type) -> V:
        if self._loaders:
            self._load()
        return self._values[cls]

    def __setitem__(self, cls: type, value: V) -> None:
        self.register(cls, value, stacklevel=2)

    def __delitem__(self, cls: type) -> None:
        del self._values[cls]
        self._origins.pop(cls, None)

    def __iter__(self) -> Iterator[type]:
        if self._loaders:
            self._load()
        return iter(dict(self._values))

    def __len__(self) -> int:
        if self._loaders:
            self._load()
        return len(self._values)

    def __repr__(self) -> str:
        return f"TypeTable({self.name!r}, {len(self._values)} entries)"


def _describe(value: Any) -> str:
    describe = getattr(value, "describe", None)
    if callable(describe) and not isinstance(value, type):
        return str(describe())
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    return name or type(value).__name__


def table_rows() -> list[tuple[str, str, str, str]]:
    """(table, class, value, registered by) for every entry of every table."""
    rows = []
    for table in TABLES.values():
        for cls in table:
            value = table[cls]
            rows.append((table.name, cls.__qualname__, _describe(value), table.origin(cls)))
    return rows
