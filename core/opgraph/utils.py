"""Small helpers PyTensor exposes as ``pytensor.utils``: platform facts and hashing.

Only the pieces user code and tests import are here; the subprocess and
compiler helpers of PyTensor belong to the C plugin in opgraph.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import struct
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

__all__ = [
    "LOCAL_BITWIDTH",
    "PYTHON_INT_BITWIDTH",
    "difference",
    "flatten",
    "from_return_values",
    "get_unbound_function",
    "hash_from_code",
    "lazy_scipy_module",
    "maybe_add_to_os_environ_pathlist",
    "to_return_values",
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


class LazyModule:
    """A module imported on first attribute access (``scipy.stats`` costs ~0.3 s to import).

    Code that needs a heavy module only at run time (an Op's ``perform``)
    binds the proxy at import time and pays for the import when first used.
    """

    __slots__ = ("_module", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: Any = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        state = "loaded" if self._module is not None else "not loaded yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_scipy_module(submodule: str) -> LazyModule:
    """``scipy.<submodule>`` as a :class:`LazyModule` (PyTensor's ``pytensor.utils`` helper)."""
    if not isinstance(submodule, str) or not submodule:
        raise TypeError(f"lazy_scipy_module expects a scipy submodule name, got {submodule!r}")
    return LazyModule(f"scipy.{submodule}")
