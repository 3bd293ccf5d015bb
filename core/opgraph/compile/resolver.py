"""The mode resolver: a mode name to a :class:`Mode`, out of one table.

:func:`mode_table` is the one table of mode names.  Its entries, later ones
replacing earlier ones of the same name:

1. :data:`STANDARD_MODES`, the core's :class:`ModeRecord` s (FAST_RUN and
   FAST_COMPILE);
2. the plugins' ``opgraph_modes`` hook results: ModeRecords too (C, CVM, JAX,
   DASK, NUMBA, ...), so a plugin may replace a standard mode;
3. :data:`PREDEFINED_MODE_TARGETS`, the debugging Mode classes as import
   strings (loaded on first use);
4. :data:`REGISTERED_MODES`, Mode objects registered by name
   (``register_mode``; PyTensor's ``predefined_modes``).

:func:`get_mode` looks the name up there and makes a Mode of the entry; the
Mode turns into a Linker (``mode.linker``) and a rewriter
(``get_rewriter(mode)``).  docs/modes.md shows the path.
"""

from __future__ import annotations

from typing import Any

from opgraph.compile.linkers import (
    BACKEND_PLUGINS,
    UnknownModeError,
    backend_error,
    hint,
    manager,
)
from opgraph.compile.moderecord import FAST_RUN_LINKERS, Mode, configured_linker
from opgraph.compile.query import RewriteQuery
from opgraph.config import config
from opgraph.graph.table import NameTable
from opgraph.plugins.records import ModeRecord, load_target
from opgraph.plugins.registry import mode_records

__all__ = [
    "PREDEFINED_MODE_TARGETS",
    "REGISTERED_MODES",
    "STANDARD_MODES",
    "available_modes",
    "get_default_mode",
    "get_mode",
    "mode_from_record",
    "mode_table",
]

STANDARD_MODES: dict[str, ModeRecord] = {
    "FAST_RUN": ModeRecord(
        "FAST_RUN",
        linkers=FAST_RUN_LINKERS,
        include=("fast_run",),
        description="All standard rewrites; the C linker if usable, else the Python VM",
    ),
    "FAST_COMPILE": ModeRecord(
        "FAST_COMPILE",
        linkers=("vm", "py"),
        include=("fast_compile",),
        description="Few rewrites, Python VM: quickest to compile",
    ),
}
"""The standard modes: records like the plugins' (a plugin may replace one by name)."""

PREDEFINED_MODE_TARGETS: dict[str, str] = {
    "DebugMode": "opgraph.compile.debug.debugmode:DebugMode",
    "DEBUG_MODE": "opgraph.compile.debug.debugmode:DebugMode",
    "NanGuardMode": "opgraph.compile.debug.nanguardmode:NanGuardMode",
}
"""Mode classes defined in the compile package's debug modules, as import strings.

They are loaded on first use (``get_mode("DebugMode")``), so importing this
module never imports the debugging machinery.
"""

REGISTERED_MODES: NameTable[Mode] = NameTable(
    "registered_modes", "Mode objects by name (register_mode; PyTensor's predefined_modes)")
"""Mode objects registered by name with ``register_mode`` (PyTensor's ``predefined_modes``)."""

ModeEntry = ModeRecord | str | Mode
"""An entry of the mode table: a record, a Mode class's import string, or a Mode."""


def mode_table(pm: Any = None) -> dict[str, ModeEntry]:
    """Every mode name with ``pm``'s plugins, mapped to its entry (see the module doc)."""
    return {**STANDARD_MODES, **mode_records(manager(pm)), **PREDEFINED_MODE_TARGETS,
            **REGISTERED_MODES}


def available_modes(pm: Any = None) -> list[str]:
    """Names of the mode records (standard and plugins') ``get_mode`` accepts."""
    return sorted({**STANDARD_MODES, **mode_records(manager(pm))})


def mode_from_record(record: ModeRecord, pm: Any) -> Mode:
    """The Mode of a record: its linker preference (or the ``linker`` flag) and its query."""
    linkers: Any = configured_linker() or record.linkers
    query = RewriteQuery(record.include, record.exclude, record.require)
    return Mode(linkers, query, name=record.name, plugin_manager=pm)


def get_mode(mode: Any = None, pm: Any = None) -> Mode:
    """A Mode from a name (``"FAST_RUN"``), a Mode (returned as is), or None (config.mode).

    A name is looked up in :func:`mode_table` (as given, then upper-cased).
    PyTensor's backend modes (``"JAX"``, ``"NUMBA"``, ...) that no plugin
    declares raise an error naming the plugin needed.
    """
    if mode is None:
        mode = config.mode  # a name or, as in PyTensor, a Mode instance
    if isinstance(mode, Mode):
        return mode
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a mode name, a Mode or None, got {mode!r}")
    if mode in REGISTERED_MODES:  # the common user path needs no plugin manager
        return REGISTERED_MODES[mode]
    pm = manager(pm)
    table = mode_table(pm)
    entry = table.get(mode, table.get(mode.upper()))
    if entry is None and mode.upper() in BACKEND_PLUGINS:
        raise backend_error(mode, "mode")
    if entry is None:
        raise UnknownModeError(
            f"unknown mode {mode!r}; available modes: {', '.join(sorted(table)) or 'none'}."
            f"{hint(mode, pm)}"
        )
    if isinstance(entry, Mode):
        return entry
    if isinstance(entry, str):
        return load_target(entry)()
    return mode_from_record(entry, pm)


def get_default_mode() -> Mode:
    """The Mode named by ``config.mode``."""
    return get_mode(None)
