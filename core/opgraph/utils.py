"""Small helpers PyTensor exposes as ``pytensor.utils``: platform facts, hashing,
subprocesses without a console window, lazy dispatch fallbacks.

The compiler helpers of PyTensor belong to the C plugin in opgraph.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import logging
import os
import struct
import subprocess
import types
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from opgraph.factcache import cached_machine_fact, uname_key

__all__ = [
    "LOCAL_BITWIDTH",
    "NDARRAY_C_VERSION",
    "NPY_RAVEL_AXIS",
    "PYTHON_INT_BITWIDTH",
    "NoDuplicateOptWarningFilter",
    "add_lazy_dispatcher",
    "apply_across_args",
    "cached_machine_fact",
    "call_subprocess_Popen",
    "difference",
    "flatten",
    "from_return_values",
    "get_unbound_function",
    "hash_from_code",
    "lazy_module",
    "lazy_scipy_module",
    "maybe_add_to_os_environ_pathlist",
    "output_subprocess_Popen",
    "subprocess_Popen",
    "to_return_values",
    "uname_key",
    "uniq",
]

LOCAL_BITWIDTH: int = struct.calcsize("P") * 8
"""Pointer width of this interpreter: 32 or 64."""

PYTHON_INT_BITWIDTH: int = np.dtype(int).itemsize * 8
"""Width of the NumPy integer that a Python ``int`` becomes (``np.array(1).dtype``)."""

NPY_RAVEL_AXIS: int = np.iinfo(np.int32).min
"""The ``axis`` value NumPy's C API uses for "ravel first" (NumPy 2)."""

NDARRAY_C_VERSION: int = np._core._multiarray_umath._get_ndarray_c_version()
"""The C API version of the NumPy this process runs (what compiled extensions check)."""


class NoDuplicateOptWarningFilter(logging.Filter):
    """A logging filter that lets each "Optimization Warning: ..." message through once."""

    prev_msgs: set = set()

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        if not msg.startswith("Optimization Warning: "):
            return True
        if msg in self.prev_msgs:
            return False
        self.prev_msgs.add(msg)
        return True


def subprocess_Popen(command: list[str], **params: Any) -> subprocess.Popen:
    """``subprocess.Popen`` that opens no console window on Windows."""
    startupinfo = None
    if os.name == "nt":
        startupinfo = subprocess.STARTUPINFO()  # type: ignore[attr-defined]
        startupinfo.dwFlags |= subprocess.STARTF_USESHOWWINDOW  # type: ignore[attr-defined]
        if isinstance(command, list):  # arguments with spaces: one string on Windows
            command = " ".join(command)  # type: ignore[assignment]
    return subprocess.Popen(command, startupinfo=startupinfo, **params)


def call_subprocess_Popen(command: list[str], **params: Any) -> int:
    """Run ``command`` with its output discarded; its exit code."""
    if "stdout" in params or "stderr" in params:
        raise TypeError("call_subprocess_Popen discards the output: do not pass stdout/stderr")
    with open(os.devnull, "wb") as null:
        params.setdefault("stdin", null)
        proc = subprocess_Popen(command, stdout=null, stderr=null, **params)
        return proc.wait()


def output_subprocess_Popen(command: list[str], **params: Any) -> tuple[bytes, bytes, int]:
    """Run ``command``; ``(stdout bytes, stderr bytes, exit code)``."""
    if "stdout" in params or "stderr" in params:
        raise TypeError("output_subprocess_Popen captures the output: do not pass "
                        "stdout/stderr")
    if "encoding" in params:
        raise TypeError("output_subprocess_Popen returns bytes: do not pass encoding")
    proc = subprocess_Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **params)
    out, err = proc.communicate()
    return out, err, proc.returncode


def add_lazy_dispatcher(dispatcher: Any) -> Any:
    """Give a ``functools.singledispatch`` function ``register_lazy(fallback)``.

    A fallback ``fallback(obj) -> handler | None`` is tried, in order, when
    dispatch reaches the ``object`` default; the first handler it returns is
    registered for ``type(obj)`` and called.  It lets a package handle a
    third-party type without importing that package until an instance shows up.
    A second call on the same dispatcher changes nothing.
    """
    if hasattr(dispatcher, "register_lazy"):
        return dispatcher
    fallbacks: list[Callable[[Any], Any]] = []
    default = dispatcher.registry[object]

    def lazy_default(arg: Any, *args: Any, **kwargs: Any) -> Any:
        for fallback in fallbacks:
            handler = fallback(arg)
            if handler is not None and handler is not lazy_default:
                dispatcher.register(type(arg))(handler)
                return handler(arg, *args, **kwargs)
        return default(arg, *args, **kwargs)

    dispatcher.register(object)(lazy_default)

    def register_lazy(fallback: Callable[[Any], Any]) -> Callable[[Any], Any]:
        fallbacks.append(fallback)
        return fallback

    dispatcher.register_lazy = register_lazy
    return dispatcher


def apply_across_args(*fns: Callable[[Any], Any]) -> Any:
    """``fn`` (or each of ``fns``) mapped over its arguments: ``f("x", "y") == [f("x"), f("y")]``.

    One argument gives one result; a leading int ``n`` gives ``n`` results of ``f()``.
    """
    def across(fn: Callable[..., Any], *names: Any) -> Any:
        if names and isinstance(names[0], int):
            return [fn() for _ in range(names[0])]
        if len(names) == 1:
            names = names[0]
        if len(names) == 1:
            return fn(names)
        return [fn(name) for name in names]

    if len(fns) == 1:
        return functools.partial(across, fns[0])
    return [functools.partial(across, fn) for fn in fns]


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
