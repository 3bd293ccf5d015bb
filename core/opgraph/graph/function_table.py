"""Tables of functions that a lower module calls by name and a higher one defines.

Inside a library the modules form an order (in ``opgraph.tensor``: type ->
variable -> elemwise -> ufuncs -> shape -> reduction -> ...).  A few lower
modules need a function defined above them: ``TensorVariable.__getitem__``
needs ``get_item``, the scalar gradient helpers need ``add``.  Rather than an
import inside the function, the lower module owns a :class:`FunctionTable` and
the module that defines the function fills it at import, as a lower layer
owns a per-op table that the layer defining the ops fills.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["FunctionTable"]


class FunctionTable:
    """Functions by name (``table.add``), filled by the modules that define them.

    ``register(*namespaces, **functions)`` adds named functions and whole
    namespaces (modules): a name not registered on its own is looked up in the
    namespaces, in registration order, then asked of ``fallback(name)`` (which
    raises AttributeError for a name it does not serve either).  A name nobody registered raises
    AttributeError naming the table and the package whose import fills it.
    """

    __slots__ = ("fallback", "filled_by", "functions", "namespaces")

    def __init__(self, filled_by: str, fallback: Callable[[str], Any] | None = None) -> None:
        self.functions: dict[str, Any] = {}
        self.namespaces: list[Any] = []
        self.filled_by = filled_by
        self.fallback = fallback

    def register(self, *namespaces: Any, **functions: Any) -> None:
        """Add ``functions`` by name and ``namespaces`` (each once)."""
        self.functions.update(functions)
        self.namespaces.extend(n for n in namespaces if n not in self.namespaces)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.functions[name]
        except KeyError:
            pass
        for namespace in self.namespaces:
            try:
                return getattr(namespace, name)
            except AttributeError:
                continue
        if self.fallback is not None and not name.startswith("__"):
            try:
                value = self.fallback(name)
            except AttributeError:
                pass  # it serves no such name either
            else:
                self.functions[name] = value
                return value
        raise AttributeError(
            f"no {self.filled_by} function {name!r} is registered (the modules of "
            f"{self.filled_by} register theirs when it is imported)"
        )
