"""Small shared pieces of the graph layer: errors, scratchpads, trace tags."""

from __future__ import annotations

import importlib.util
import io
import os
import sys
import traceback
from abc import ABCMeta
from collections.abc import Callable, Mapping
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

from opgraph.config import config

T = TypeVar("T")


class InconsistencyError(Exception):
    """A change would leave a FunctionGraph in an invalid state; the change is refused."""


class MissingInputError(Exception):
    """A graph needs a variable that is neither an input, a constant nor computed."""

    def __init__(self, *args: Any, variable: Any = None) -> None:
        super().__init__(*args)
        self.variable = variable


class MethodNotDefined(Exception):
    """An optional method (C code, shape inference, ...) is not provided by this Op."""


class TestValueError(Exception):
    """Kept for PyTensor compatibility: test values are not computed by opgraph."""


class MetaType(ABCMeta):
    """PyTensor's metaclass of Ops and Types: checks that ``__props__`` is a tuple of names.

    opgraph's Op and Type derive equality and hashing from ``__props__``
    without a metaclass; this one exists for code that annotates or builds
    classes with it (PyMC's ``rv_type: MetaType``).
    """

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        props = namespace.get("__props__")
        if props is not None and (
            not isinstance(props, tuple) or not all(isinstance(p, str) for p in props)
        ):
            raise TypeError(
                f"{name}.__props__ must be a tuple of attribute names, got {props!r}"
            )
        return super().__new__(mcs, name, bases, namespace)


class MetaObject(metaclass=MetaType):
    """A base whose equality, hash and str come from ``__props__`` (PyTensor's name)."""

    __slots__: list = []
    __props__: tuple[str, ...] | None = None

    def _props(self) -> tuple:
        return tuple(getattr(self, a) for a in self.__props__ or ())

    def __eq__(self, other: object) -> bool:
        if self.__props__ is None:
            return self is other
        return type(self) is type(other) and self._props() == other._props()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        if self.__props__ is None:
            return id(self)
        return hash((type(self), self._props()))

    def __str__(self) -> str:
        if not self.__props__:
            return type(self).__name__
        args = ", ".join(f"{p}={getattr(self, p)!r}" for p in self.__props__)
        return f"{type(self).__name__}{{{args}}}"


class AssocList:
    """A mapping that also takes unhashable keys (kept in a list, found by ``==``)."""

    def __init__(self) -> None:
        self._dict: dict = {}
        self._list: list[tuple[Any, Any]] = []

    def _index(self, item: Any) -> int | None:
        return next((i for i, (key, _) in enumerate(self._list) if key is item or key == item),
                    None)

    def __getitem__(self, item: Any) -> Any:
        return self.get(item, None)

    def __setitem__(self, item: Any, value: Any) -> None:
        try:
            self._dict[item] = value
            return
        except TypeError:  # unhashable: the list
            pass
        i = self._index(item)
        if i is None:
            self._list.append((item, value))
        else:
            self._list[i] = (item, value)

    def discard(self, item: Any) -> bool:
        """Remove ``item`` if present; whether it was."""
        try:
            if item in self._dict:
                del self._dict[item]
                return True
        except TypeError:
            pass
        i = self._index(item)
        if i is not None:
            del self._list[i]
        return i is not None

    def __delitem__(self, item: Any) -> None:
        if not self.discard(item):
            raise KeyError(item)

    def get(self, item: Any, default: Any) -> Any:
        try:
            return self._dict[item]
        except (KeyError, TypeError):
            pass
        i = self._index(item)
        return default if i is None else self._list[i][1]

    def clear(self) -> None:
        self._dict, self._list = {}, []

    def __repr__(self) -> str:
        return f"AssocList({self._dict}, {self._list})"


def get_variable_trace_string(v: Any) -> str:
    """Where ``v`` was created (its ``tag.trace``), as text for an error message; "" if unknown."""
    trace = getattr(v.tag, "trace", [])
    if not isinstance(trace, list) or not trace:
        return ""
    out = io.StringIO()
    print(" \nBacktrace when that variable is created:\n", file=out)
    if isinstance(trace[0], tuple):
        traceback.print_list(trace, out)
    else:
        for i, sub in enumerate(trace):
            if len(trace) > 1:
                print(f"trace {i}", file=out)
            traceback.print_list(sub, out)
    return out.getvalue()


class Scratchpad:
    """Free-form attribute holder used as ``Variable.tag`` and ``Apply.tag``."""

    if TYPE_CHECKING:  # any attribute may be set and read (for the type checker only)
        def __getattr__(self, name: str) -> Any: ...
        def __setattr__(self, name: str, value: Any) -> None: ...

    def clear(self) -> None:
        self.__dict__.clear()

    def update(self, other: Any) -> Scratchpad:
        self.__dict__.update(other.__dict__ if isinstance(other, Scratchpad) else other)
        return self

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.__dict__ == other.__dict__

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"scratchpad{{{inner}}}"

    def copy(self) -> Scratchpad:
        new = type(self)()
        new.__dict__.update(self.__dict__)
        return new


_ROOTS: tuple[int, tuple[str, ...]] = (-1, ())


def library_roots() -> tuple[str, ...]:
    """The directories of opgraph and of its loaded plugin packages (``opgraph_*``).

    A frame is the library's when its file lies in one of them: decided by where
    the packages really are, never by a path substring, so a user's checkout
    named ``opgraph/`` or a path with spaces is still the user's.  Recomputed
    only when the set of loaded modules changes.
    """
    global _ROOTS
    count = len(sys.modules)
    if _ROOTS[0] == count:
        return _ROOTS[1]
    roots: set[str] = set()
    for name, module in list(sys.modules.items()):
        if name != "opgraph" and not (name.startswith("opgraph_") and "." not in name):
            continue
        path = getattr(module, "__file__", None)
        if not path:
            continue
        for variant in (os.path.abspath(path), os.path.realpath(path)):
            roots.add(os.path.join(os.path.dirname(variant), ""))
    _ROOTS = (count, tuple(sorted(roots)))
    return _ROOTS[1]


def is_library_frame(filename: str) -> bool:
    """Whether a stack frame's file belongs to opgraph or one of its plugins."""
    return filename.startswith(library_roots())


def simple_extract_stack(limit: int | None = None, skip: int = 1) -> list[tuple]:
    """Stack frames outside opgraph and its plugins: where the user built the node."""
    frames = traceback.extract_stack()[:-skip]
    roots = library_roots()
    kept = [
        (f.filename, f.lineno, f.name, f.line)
        for f in frames
        if not f.filename.startswith(roots)
    ]
    if limit is not None and limit >= 0:
        kept = kept[-limit:] if limit else []
    return kept


def creation_frames(limit: int, max_depth: int = 16) -> list[tuple[str, int, str, None]]:
    """The user's frames calling into opgraph now (outermost first, at most ``limit``).

    Cheap enough to run for every node built (a walk of at most ``max_depth``
    frames; PyTensor's ``(file, line, function, source)`` entries with the source
    left None, read only when shown): it is what lets errors and
    warnings of compiled code name the user's line.  Nodes made deeper inside the
    library than ``max_depth`` frames (rewrites during ``function()``) get no
    frames: they inherit the trace of the variable they replace.
    """
    roots = library_roots()
    frame: FrameType | None = sys._getframe(2)
    kept: list[tuple[str, int, str, None]] = []
    depth = 0
    while frame is not None and len(kept) < limit:
        code = frame.f_code
        if not code.co_filename.startswith(roots):
            kept.append((code.co_filename, frame.f_lineno, code.co_name, None))
        elif kept:
            break  # back inside the library (a callback): the user's part is complete
        depth += 1
        if not kept and depth >= max_depth:
            return []
        frame = frame.f_back
    kept.reverse()
    return kept


def add_tag_trace(thing: Any, user_line: int | None = None) -> Any:
    """Record in ``thing.tag.trace`` the user's stack lines that created it."""
    if user_line is None:
        try:
            user_line = config.traceback__limit
        except Exception:  # config is optional at this layer
            user_line = 8
    if user_line == -1:
        user_line = None
    tr = simple_extract_stack(limit=user_line)
    thing.tag.trace = [tr] if tr else []
    return thing


def type_name(value: Any) -> str:
    """A short, readable name of a value's type for error messages."""
    return type(value).__qualname__


def _is_submodule(package: str, name: str) -> bool:
    """``package`` is a package (not a plain module) with a submodule ``name``."""
    if name.startswith("_") or not hasattr(sys.modules.get(package), "__path__"):
        return False
    try:
        return importlib.util.find_spec(f"{package}.{name}") is not None
    except (ImportError, ValueError):
        return False


def lazy_exports(
    package: str, table: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's module ``__getattr__`` and ``__dir__`` that import each name of
    ``table`` (name -> defining module) on first access, so importing it stays cheap.

    Usage: ``__getattr__, __dir__ = lazy_exports(__name__, _LAZY)``.
    """
    import importlib
    import sys

    def __getattr__(name: str) -> Any:
        module_name = table.get(name)
        if module_name is None:
            # a submodule not imported yet (``opgraph.compile.mode``), as after PyTensor's
            # eager imports
            if not _is_submodule(package, name):
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            return importlib.import_module(f"{package}.{name}")
        value = getattr(importlib.import_module(module_name), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__
