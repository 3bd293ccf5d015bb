"""The plugin system's exceptions and warning, and how failures are summarised."""

from __future__ import annotations

import traceback

__all__ = [
    "OpgraphPluginWarning",
    "PluginConflictError",
    "PluginError",
    "PluginHookError",
    "PluginLoadError",
    "short_error",
    "short_traceback",
]

_TB_LIMIT = 4


class OpgraphPluginWarning(UserWarning):
    """A plugin failed to load or raised inside a hook and was skipped."""


class PluginError(RuntimeError):
    """Base class of plugin errors."""


class PluginLoadError(PluginError):
    """A plugin failed to load in strict mode."""


class PluginHookError(PluginError):
    """A plugin raised inside a hook (or returned a bad result) in strict mode."""


class PluginConflictError(PluginError, ValueError):
    """Two plugins claim the same linker, mode, module path or plugin name."""


def short_error(exc: BaseException) -> str:
    """``"TypeError: message"``: one line for listings and warnings."""
    return f"{type(exc).__name__}: {exc}"


def short_traceback(exc: BaseException) -> str:
    """The last few frames of ``exc``'s traceback, for ``opgraph plugins --json``."""
    return "".join(traceback.format_exception(exc, limit=-_TB_LIMIT)).rstrip()
