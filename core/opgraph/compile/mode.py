"""``opgraph.compile.mode``: the compile front door, under PyTensor's module path.

A mode name becomes a linker and a rewriter in three steps, each one module:

- :mod:`opgraph.compile.resolver`: name -> entry of the one mode table
  (the core's standard ModeRecords, the plugins' ModeRecords, the debugging
  Mode classes, registered Mode objects) -> :class:`Mode` (``get_mode``);
- :mod:`opgraph.compile.moderecord`: the immutable :class:`Mode` record
  (linker preference, rewrite query, extra rewriters by phase, plugin
  manager); ``mode.linker`` resolves the preference through
  :mod:`opgraph.compile.linkers`;
- :mod:`opgraph.compile.query`: the rewrite query and ``get_rewriter``, the
  seam to the rewrite database a plugin provides.

PyTensor's other names (``OPT_*``, ``predefined_*``, ``register_*``, the
backend Mode objects) are in :mod:`opgraph.compile.modecompat`.  This module
only gathers them; ``FAST_RUN`` / ``FAST_COMPILE`` are Mode objects built on
first access (building them at import would load every plugin).
"""

from __future__ import annotations

from typing import Any

from opgraph.compile.database import optdb
from opgraph.compile.linkers import (
    BACKEND_PLUGINS,
    LINKER_ALIASES,
    BackendNotInstalledError,
    LinkerUnavailableError,
    UnknownModeError,
    reset_caches,
    resolve_linker,
    warn_link_fallback,
)
from opgraph.compile.modecompat import (
    CVM,
    EXTRA_BEFORE_POSITION,
    JAX,
    JAX_EXCLUDE,
    MLX,
    NUMBA,
    OPT_FAST_COMPILE,
    OPT_FAST_RUN,
    OPT_FAST_RUN_STABLE,
    OPT_MERGE,
    OPT_MINIMUM,
    OPT_NONE,
    OPT_O2,
    OPT_O3,
    OPT_STABILIZE,
    OPT_UNSAFE,
    PYTORCH,
    VM,
    AddDestroyHandler,
    AddFeatureOptimizer,
    C,
    PrintCurrentFunctionGraph,
    fast_run_linkers_to_mode,
    predefined_linkers,
    predefined_mode,
    predefined_modes,
    predefined_optimizers,
    register_linker,
    register_mode,
    register_optimizer,
)
from opgraph.compile.moderecord import EXTRA_PHASES, Mode
from opgraph.compile.query import RewriteQuery, get_rewriter
from opgraph.compile.resolver import (
    PREDEFINED_MODE_TARGETS,
    STANDARD_MODES,
    available_modes,
    get_default_mode,
    get_mode,
    mode_table,
)

BUILTIN_MODES = STANDARD_MODES
"""The standard mode records (the name this table had before it held FAST_COMPILE too)."""

__all__ = [
    "BACKEND_PLUGINS",
    "BUILTIN_MODES",
    "CVM",
    "EXTRA_BEFORE_POSITION",
    "EXTRA_PHASES",
    "FAST_COMPILE",  # noqa: F822 (module __getattr__)
    "FAST_RUN",  # noqa: F822
    "JAX",
    "JAX_EXCLUDE",
    "LINKER_ALIASES",
    "MLX",
    "NUMBA",
    "OPT_FAST_COMPILE",
    "OPT_FAST_RUN",
    "OPT_FAST_RUN_STABLE",
    "OPT_MERGE",
    "OPT_MINIMUM",
    "OPT_NONE",
    "OPT_O2",
    "OPT_O3",
    "OPT_STABILIZE",
    "OPT_UNSAFE",
    "PREDEFINED_MODE_TARGETS",
    "PYTORCH",
    "STANDARD_MODES",
    "VM",
    "AddDestroyHandler",
    "AddFeatureOptimizer",
    "BackendNotInstalledError",
    "C",
    "LinkerUnavailableError",
    "Mode",
    "PrintCurrentFunctionGraph",
    "RewriteQuery",
    "UnknownModeError",
    "available_modes",
    "fast_run_linkers_to_mode",
    "get_default_mode",
    "get_mode",
    "get_rewriter",
    "mode_table",
    "optdb",
    "predefined_linkers",
    "predefined_modes",
    "predefined_optimizers",
    "register_linker",
    "register_mode",
    "register_optimizer",
    "reset_caches",
    "resolve_linker",
    "warn_link_fallback",
]


def __getattr__(name: str) -> Any:
    """``FAST_RUN`` / ``FAST_COMPILE``: Mode objects, as in PyTensor (built on first access).

    Code writes ``mode=compile.mode.FAST_COMPILE`` or
    ``FAST_COMPILE.excluding("canonicalize")``.
    """
    if name not in ("FAST_RUN", "FAST_COMPILE"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return predefined_mode(name)
