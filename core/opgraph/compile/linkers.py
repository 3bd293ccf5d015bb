"""Linker resolution: a linker preference (name, tuple of names, Linker) to a Linker.

Linker names come from the plugins' ``opgraph_linkers`` records, plus the
Linker objects registered by name (:data:`NAMED_LINKERS`, PyTensor's
``predefined_linkers``).  For a preference tuple the first usable linker
wins; when a better one was skipped, one warning per process says why.
PyTensor's linker spellings (``"c|py"``, ``"vm_nogc"``) map through
:data:`LINKER_ALIASES`; its backend names (``"jax"``, ``"numba"``) that no
installed plugin serves raise :class:`BackendNotInstalledError`.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence
from typing import Any

from opgraph.compile.flags import flag
from opgraph.config import config
from opgraph.graph.table import NameTable
from opgraph.link.basic import Linker
from opgraph.plugins.loading import current_plugin_manager
from opgraph.plugins.records import LinkerRecord
from opgraph.plugins.registry import linker_records
from opgraph.plugins.report import provider_hint

__all__ = [
    "BACKEND_PLUGINS",
    "LINKER_ALIASES",
    "NAMED_LINKERS",
    "BackendNotInstalledError",
    "LinkerUnavailableError",
    "UnknownModeError",
    "backend_error",
    "hint",
    "manager",
    "reset_caches",
    "resolve_linker",
    "warn_link_fallback",
]

BACKEND_PLUGINS: dict[str, str] = {
    "JAX": "opgraph-jax",
    "NUMBA": "opgraph-numba",
    "PYTORCH": "opgraph-pytorch",
    "MLX": "opgraph-mlx",
    "jax": "opgraph-jax",
    "numba": "opgraph-numba",
    "pytorch": "opgraph-pytorch",
    "mlx": "opgraph-mlx",
}
"""PyTensor backend modes and linkers that opgraph leaves to separate backend plugins."""

LINKER_ALIASES: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "c|py": (("cvm", "vm"), {}),
    "c|py_nogc": (("cvm", "vm"), {"allow_gc": False}),
    "vm_nogc": (("vm",), {"allow_gc": False}),
    "cvm_nogc": (("cvm",), {"allow_gc": False}),
    "py_nogc": (("py",), {"allow_gc": False}),
    "c_nogc": (("c",), {"allow_gc": False}),
}
"""PyTensor linker names that map onto opgraph linkers (with options)."""

NAMED_LINKERS: NameTable[Linker] = NameTable(
    "named_linkers", "Linker objects by name (register_linker; PyTensor's predefined_linkers)")
"""Linker objects registered by name (``register_linker``); plugins use ``opgraph_linkers``."""


class UnknownModeError(ValueError):
    """A mode name that no built-in record or installed plugin declares."""


class LinkerUnavailableError(ValueError):
    """No linker of a mode's preference list is installed and usable here."""


class BackendNotInstalledError(UnknownModeError):
    """A PyTensor backend mode or linker (JAX, Numba, ...) whose plugin is not installed."""


def backend_error(name: str, what: str) -> BackendNotInstalledError:
    """The error for PyTensor backend ``name`` (a mode or linker) no plugin serves."""
    plugin = BACKEND_PLUGINS[name]
    return BackendNotInstalledError(
        f"{what} {name!r} needs the {plugin} backend plugin, which is not installed: "
        f"opgraph's own backends are the Python linkers (opgraph-numpy) and C "
        f"(opgraph-c). Install a plugin that provides {name!r}, or use mode='FAST_RUN'"
    )


def manager(pm: Any) -> Any:
    """``pm``, else the manager of the compile in progress, else the global one."""
    return current_plugin_manager() if pm is None else pm


def hint(name: str, pm: Any) -> str:
    """" <which plugin would provide name>." or ""."""
    text = provider_hint(name, pm)
    return f" {text}." if text else ""


_WARNED: set[tuple[str, str]] = set()
_RESOLVED: dict[tuple[int, tuple[str, ...]], tuple[str, Any]] = {}
_LOCK = threading.Lock()


def _linker_reasons(names: Sequence[str], table: dict[str, LinkerRecord],
                    pm: Any) -> tuple[str | None, list[str]]:
    """The first usable linker name, and why each one before it was skipped."""
    reasons: list[str] = []
    for name in names:
        record = table.get(name)
        if record is None:
            reasons.append(f"linker {name!r} is not available.{hint(name, pm)}".rstrip("."))
            continue
        reason = record.unavailable_reason()
        if reason is not None:
            reasons.append(f"linker {name!r} cannot run here: {reason}")
            continue
        return name, reasons
    return None, reasons


def _names(spec: Any) -> tuple[str, ...]:
    names: tuple[Any, ...] = ((spec,) if isinstance(spec, str)
                              else tuple(spec) if isinstance(spec, Sequence) else ())
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError(
            f"a linker must be a Linker instance, a linker name or a sequence of names, "
            f"got {spec!r}"
        )
    return names


def _factory(names: tuple[str, ...], pm: Any, mode_name: str | None) -> tuple[str, Any]:
    """(chosen name, loaded target) for a preference list, cached per manager."""
    key = (id(pm), names)
    cached = _RESOLVED.get(key)
    if cached is not None:
        return cached
    table = linker_records(pm)
    chosen, reasons = _linker_reasons(names, table, pm)
    label = f"mode {mode_name!r}" if mode_name else "linker"
    if chosen is None:
        installed = ", ".join(sorted(table)) or "none"
        raise LinkerUnavailableError(
            f"{label}: no usable linker among {list(names)}: " + "; ".join(reasons)
            + f". Installed linkers: {installed}"
        )
    cached = (chosen, table[chosen].load())
    with _LOCK:
        _RESOLVED[key] = cached
    if reasons and len(names) > 1:
        _warn_fallback(label, names[0], chosen, reasons[0])
    return cached


def resolve_linker(spec: Any, pm: Any = None, mode_name: str | None = None) -> Linker:
    """A fresh unbound Linker for ``spec``: a Linker, a name, or a preference tuple."""
    if isinstance(spec, Linker):
        return spec
    if isinstance(spec, type) and issubclass(spec, Linker):
        return spec()
    if isinstance(spec, str) and spec in NAMED_LINKERS:
        return NAMED_LINKERS[spec]
    pm = manager(pm)
    if isinstance(spec, str) and spec in LINKER_ALIASES and spec not in linker_records(pm):
        names_, options = LINKER_ALIASES[spec]
        base = resolve_linker(names_, pm, mode_name)
        return base.clone(**options) if options else base
    if isinstance(spec, str) and spec in BACKEND_PLUGINS and spec not in linker_records(pm):
        raise backend_error(spec, "linker")
    chosen, factory = _factory(_names(spec), pm, mode_name)
    linker = factory() if callable(factory) and not isinstance(factory, Linker) else factory
    if flag("allow_gc") is False and getattr(linker, "allow_gc", False):
        linker = linker.clone(allow_gc=False)  # config.allow_gc=False keeps intermediates
    if not isinstance(linker, Linker) and not hasattr(linker, "accept"):
        raise TypeError(
            f"linker {chosen!r} target produced {linker!r}, which is not a Linker "
            "(it needs accept() and make_thunk())"
        )
    if not config.allow_gc and getattr(linker, "allow_gc", False):
        linker = linker.clone(allow_gc=False)  # config.allow_gc=False: a linker named keeps all
    return linker


def _warn_fallback(label: str, wanted: str, chosen: str, reason: str) -> None:
    key = (label, reason)
    if key in _WARNED:
        return
    _WARNED.add(key)
    warnings.warn(
        f"{label}: {reason}; falling back to linker {chosen!r} (slower). "
        f"Install the missing plugin/compiler, or select mode='FAST_COMPILE' or "
        f"linker={chosen!r} explicitly to silence this warning.",
        UserWarning,
        stacklevel=5,
    )


def warn_link_fallback(mode_name: str | None, failed: str, chosen: Linker,
                       exc: BaseException) -> None:
    """The one warning for a graph one linker failed to build and the next one runs.

    Gives the reason (the first lines of the error) and the file that keeps
    the backend's full output (``exc.log_path``), when there is one.
    """
    label = f"mode {mode_name!r}" if mode_name else "function()"
    text = str(exc).strip()
    lines = text.splitlines()
    reason = "\n".join(lines[:12]) + ("\n..." if len(lines) > 12 else "")
    log = getattr(exc, "log_path", None)
    where = f"; full output kept in {log}" if log and log not in reason else ""
    name = getattr(chosen, "name", "") or type(chosen).__name__
    warnings.warn(
        f"{label}: linker {failed!r} could not build this graph ({reason}){where}. "
        f"Running it with linker {name!r} instead (slower).",
        UserWarning,
        stacklevel=5,
    )


def reset_caches() -> None:
    """Forget resolved linkers and emitted warnings (tests)."""
    with _LOCK:
        _RESOLVED.clear()
        _WARNED.clear()
