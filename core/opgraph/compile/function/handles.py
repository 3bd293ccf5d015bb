"""What a compiled Function shows of itself: ``fn.vm`` and ``fn._finder``."""

from __future__ import annotations

from typing import Any

__all__ = ["Finder", "VMHandle"]


class VMHandle:
    """``fn.vm``: calling it runs the linked graph once (no input or output handling).

    It also shows what PyTensor's VM object shows: ``storage_map``,
    ``thunks``, ``nodes`` and the linker's ``allow_gc`` (setting it relinks
    the function; ``fn.vm`` is then a new handle).
    """

    __slots__ = ("_relink", "_run", "linker", "nodes", "storage_map", "thunks")

    def __init__(self, run: Any, storage_map: dict, thunks: list, nodes: list,
                 linker: Any, relink: Any = None) -> None:
        self._run = run
        self.storage_map = storage_map
        self.thunks = thunks
        self.nodes = nodes
        self.linker = linker
        self._relink = relink

    @property
    def allow_gc(self) -> bool:
        return bool(getattr(self.linker, "allow_gc", True))

    @allow_gc.setter
    def allow_gc(self, value: bool) -> None:
        """Relink the function so intermediates are freed after each call (True) or kept."""
        if self._relink is None:
            raise AttributeError("this function cannot be relinked")
        self._relink(allow_gc=bool(value))

    @property
    def jit_fn(self) -> Any:
        """The raw compiled callable of a JIT linker (PyTensor's ``fn.vm.jit_fn``)."""
        fn = getattr(self.linker, "jit_fn", None)
        if fn is None:
            raise AttributeError(f"{type(self.linker).__name__} compiles no JIT function")
        return fn

    def __call__(self) -> Any:
        return self._run()


class Finder:
    """``fn._finder[key]``: the Container of an input, by variable, name or position."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def _position(self, key: Any) -> int | None:
        inputs = self.fn.maker.inputs
        for k, item in enumerate(inputs):
            if key is item.variable:
                return k
        if isinstance(key, str):
            for k, item in enumerate(inputs):
                if item.name == key:
                    return k
        if isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(inputs):
            return key
        return None

    def __getitem__(self, key: Any) -> Any:
        k = self._position(key)
        if k is None:
            raise KeyError(f"function {self.fn.name!r} has no input {key!r}")
        return self.fn._container(k)

    def __contains__(self, key: Any) -> bool:
        return self._position(key) is not None
