"""The configuration flags the compile package reads, with PyTensor's defaults.

PyTensor's flag names are used (``on_unused_input``, ``allow_gc``,
``profile``, ``DebugMode__patience``, ``NanGuardMode__nan_is_error``, ...).
``flag(name)`` is ``config.<name>``; a flag the configuration does not
define falls back to PyTensor's default here, so compiling never fails for
a missing flag.
"""

from __future__ import annotations

from typing import Any

from opgraph.config import config

__all__ = ["DEFAULTS", "flag"]

DEFAULTS: dict[str, Any] = {
    "on_unused_input": "raise",
    "allow_gc": True,
    "profile": False,
    "DebugMode__patience": 10,
    "DebugMode__check_c": True,
    "DebugMode__check_py": True,
    "DebugMode__check_finite": True,
    "DebugMode__check_strides": 0,
    "DebugMode__check_preallocated_output": "",
    "DebugMode__check_preallocated_output_ndim": 4,
    "DebugMode__warn_input_not_reused": True,
    "NanGuardMode__nan_is_error": True,
    "NanGuardMode__inf_is_error": True,
    "NanGuardMode__big_is_error": True,
    "NanGuardMode__action": "raise",
    "on_opt_error": "warn",
    "profile_memory": False,
    "profiling__min_peak_memory": False,
}


def flag(name: str) -> Any:
    """``config.<name>``, or PyTensor's default when the configuration lacks the flag."""
    try:
        return getattr(config, name)
    except AttributeError:
        return DEFAULTS[name]
