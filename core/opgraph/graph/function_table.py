"""Tables of functions that a lower module calls by name and a higher one defines.

Inside a library the modules form an order (in ``opgraph.tensor``: type ->
variable -> elemwise -> ufuncs -> shape -> reduction -> ...).  A few lower
modules need a function defined above them: ``TensorVariable.__getitem__``
needs ``get_item``, the scalar gradient helpers need ``add``.  Rather than an
import inside the function, the lower module owns a :class:`FunctionTable` and
the module that defines the function fills it at import, as a lower layer
owns a per-op table that the layer defining the ops fills.  It is the table
idiom (:mod:`opgraph.graph.table`) with attribute access: each function is a
``NameTable`` entry that names the module that registered it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opgraph.graph.table import NameTable, caller_module

__all__ = ["FunctionTable"]


_MISSING = object()


class FunctionTable:
    """Functions by name (``table.add``), filled by the modules that define them.

    ``register(*namespaces, **functions)`` adds named functions and every public
    name of whole namespaces (a module's ``__all__``); a name registered on its own
    wins over a namespace's, and of two namespaces the first registered wins.  The
    entries live in a :class:`~opgraph.graph.table.NameTable` (listed as
    ``functions:<package>`` by ``opgraph plugins --tables``, with the module that
    registered each).  A name nobody registered is asked of ``fallback(name)``
    (which raises AttributeError for a name it does not serve either), else it
    raises AttributeError naming the table and the package whose import fills it.
    """

    __slots__ = ("fallback", "filled_by", "namespaces", "table")

    def __init__(self, filled_by: str, fallback: Callable[[str], Any] | None = None, *,
                 listed: bool = True) -> None:
        self.table: NameTable[Any] = NameTable(
            f"functions:{filled_by}", f"functions the lower modules of {filled_by} call by "
            "name, defined above them", listed=listed)
        self.namespaces: list[Any] = []
        self.filled_by = filled_by
        self.fallback = fallback

    def register(self, *namespaces: Any, **functions: Any) -> None:
        """Add ``functions`` by name and the public names of ``namespaces`` (each once)."""
        origin = caller_module(1)
        for namespace in namespaces:
            if namespace in self.namespaces:
                continue
            self.namespaces.append(namespace)
            names = getattr(namespace, "__all__", None) or [
                n for n in vars(namespace) if not n.startswith("_")]
            where = getattr(namespace, "__name__", origin)
            for name in names:
                if name not in self.table:
                    self.table.register(name, getattr(namespace, name), origin=where)
        for name, function in functions.items():
            self.table.register(name, function, origin=origin)

    def __getattr__(self, name: str) -> Any:
        value = self.table.lookup(name, _MISSING)
        if value is not _MISSING:
            return value
        if self.fallback is not None and not name.startswith("__"):
            try:
                value = self.fallback(name)
            except AttributeError:
                pass  # it serves no such name either
            else:
                origin = getattr(self.fallback, "__module__", None) or "?"
                self.table.register(name, value, origin=f"{origin} (fallback)")
                return value
        raise AttributeError(
            f"no {self.filled_by} function {name!r} is registered (the modules of "
            f"{self.filled_by} register theirs when it is imported)"
        )
