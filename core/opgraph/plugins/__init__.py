"""opgraph's plugin system: hook markers, records and the plugin manager.

Plugins write ``from opgraph.plugins import hookimpl`` and declare an entry
point in the group ``opgraph.plugins``.  Importing this package is cheap: the
manager (entry point discovery) is imported on first use of its names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opgraph.graph.utils import lazy_exports
from opgraph.plugins.hookspecs import (
    ENTRY_POINT_GROUP,
    HOOK_NAMES,
    PROJECT_NAME,
    hookimpl,
    hookspec,
)

if TYPE_CHECKING:
    from opgraph.plugins.manager import (
        KNOWN_PROVIDERS,
        HookFailure,
        OpgraphPluginManager,
        OpgraphPluginWarning,
        PluginConflictError,
        PluginError,
        PluginHookError,
        PluginInfo,
        PluginLoadError,
        PluginRegistry,
        PluginStatus,
        call_hook_safely,
        get_plugin_manager,
        iter_hook_results,
        linker_records,
        make_plugin_manager,
        mode_records,
        plugin_registry,
        plugin_report,
        provider_hint,
        public_module_records,
        reset_plugin_manager,
    )
    from opgraph.plugins.records import (
        CommandRecord,
        LinkerRecord,
        ModeRecord,
        PublicModule,
        TargetLoadError,
        load_target,
    )

_LAZY = {
    **dict.fromkeys(
        (
            "KNOWN_PROVIDERS",
            "HookFailure",
            "OpgraphPluginManager",
            "OpgraphPluginWarning",
            "PluginConflictError",
            "PluginError",
            "PluginHookError",
            "PluginInfo",
            "PluginLoadError",
            "PluginRegistry",
            "PluginStatus",
            "call_hook_safely",
            "get_plugin_manager",
            "iter_hook_results",
            "linker_records",
            "make_plugin_manager",
            "mode_records",
            "plugin_registry",
            "plugin_report",
            "provider_hint",
            "public_module_records",
            "reset_plugin_manager",
        ),
        "opgraph.plugins.manager",
    ),
    **dict.fromkeys(
        (
            "CommandRecord",
            "LinkerRecord",
            "ModeRecord",
            "PublicModule",
            "TargetLoadError",
            "load_target",
        ),
        "opgraph.plugins.records",
    ),
}

__all__ = [
    "ENTRY_POINT_GROUP",
    "HOOK_NAMES",
    "KNOWN_PROVIDERS",
    "PROJECT_NAME",
    "CommandRecord",
    "HookFailure",
    "LinkerRecord",
    "ModeRecord",
    "OpgraphPluginManager",
    "OpgraphPluginWarning",
    "PluginConflictError",
    "PluginError",
    "PluginHookError",
    "PluginInfo",
    "PluginLoadError",
    "PluginRegistry",
    "PluginStatus",
    "PublicModule",
    "TargetLoadError",
    "call_hook_safely",
    "get_plugin_manager",
    "hookimpl",
    "hookspec",
    "iter_hook_results",
    "linker_records",
    "load_target",
    "make_plugin_manager",
    "mode_records",
    "plugin_registry",
    "plugin_report",
    "provider_hint",
    "public_module_records",
    "reset_plugin_manager",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
