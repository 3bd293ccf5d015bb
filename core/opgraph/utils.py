"""Small helpers PyTensor exposes as ``pytensor.utils``: platform facts and hashing.

Only the pieces user code and tests import are here; the subprocess and
compiler helpers of PyTensor belong to the C plugin in opgraph.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import struct
import types
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from opgraph.factcache import cached_machine_fact, uname_key

__all__ = [
    "LOCAL_BITWIDTH",
    "PYTHON_INT_BITWIDTH",
    "cached_machine_fact",
    "difference",
    "flatten",
    "from_return_values",
    "get_unbound_function",
    "hash_from_code",
    "lazy_module",
    "lazy_scipy_module",
    "maybe_add_to_os_environ_pathlist",
    "to_return_values",
    "uname_key",
    "uniq",
]

LOCAL_BITWIDTH: int = struct.calcsize("P") * 8
"""Pointer width of this interpreter: 32 or 64."""

PYTHON_INT_BITWIDTH: int = np.dtype(int).itemsize * 8
"""Width of the NumPy integer that a Python ``int`` becomes (``np.array(1).dtype``)."""


def hash_from_code(msg: str | bytes) -> str:
    """A stable hex digest of ``msg`` (sha256), for cache keys."""
    data = msg.encode() if isinstance(msg, str) else bytes(msg)
    return "m" + hashlib.sha256(data).hexdigest()


def flatten(items: Any) -> list[Any]:
    """Nested lists/tuples as one flat list (anything else is a leaf)."""
    if not isinstance(items, list | tuple):
        return [items]
    out: list[Any] = []
    for item in items:
        out.extend(flatten(item))
    return out


def uniq(seq: Iterable[Any]) -> list[Any]:
    """The items of ``seq`` without repeats, first occurrence kept."""
    return list(dict.fromkeys(seq))


def difference(seq1: Iterable[Any], seq2: Iterable[Any]) -> list[Any]:
    """The items of ``seq1`` not in ``seq2``, in order."""
    exclude = list(seq2)
    try:
        excluded = set(exclude)
        return [x for x in seq1 if x not in excluded]
    except TypeError:  # unhashable items
        return [x for x in seq1 if x not in exclude]


def get_unbound_function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The plain function behind a bound method (``fn`` itself otherwise)."""
    return getattr(fn, "__func__", fn)


def maybe_add_to_os_environ_pathlist(var: str, newpath: str) -> None:
    """Prepend ``newpath`` to the path list in environment variable ``var`` if absent."""
    current = os.environ.get(var, "")
    parts = [p for p in current.split(os.pathsep) if p]
    if newpath not in parts:
        os.environ[var] = os.pathsep.join([newpath, *parts])


def to_return_values(values: list[Any]) -> Any:
    """A function's results as callers get them: the one value alone, else the list."""
    return values[0] if len(values) == 1 else values


def from_return_values(values: Any) -> list[Any]:
    """The inverse of :func:`to_return_values`: always a list."""
    return list(values) if isinstance(values, list | tuple) else [values]


class _LazyModule(types.ModuleType):
    """A module object that imports the real module on first attribute access.

    SciPy's submodules cost hundreds of milliseconds to import; a plugin that only
    names them in ``perform`` or a rewrite should not pay that at load time.
    """

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_lazy_target"] = None

    def _load(self) -> types.ModuleType:
        target = self.__dict__["_lazy_target"]
        if target is None:
            target = importlib.import_module(self.__name__)
            self.__dict__["_lazy_target"] = target
        return target

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._load(), attr)

    def __dir__(self) -> list[str]:
        return dir(self._load())

    def __repr__(self) -> str:
        state = "loaded" if self.__dict__["_lazy_target"] is not None else "not loaded yet"
        return f"<lazy module {self.__name__!r} ({state})>"


def lazy_module(name: str) -> types.ModuleType:
    """``name`` as a module that is imported the first time one of its attributes is read."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"lazy_module: name must be a module name (str), got {name!r}")
    return _LazyModule(name)


def lazy_scipy_module(submodule: str) -> types.ModuleType:
    """``scipy.<submodule>`` imported on first use (PyTensor's ``lazy_scipy_module``)."""
    return lazy_module(f"scipy.{submodule}")
