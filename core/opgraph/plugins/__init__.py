"""opgraph's plugin system: hook markers, records and the plugin manager.

Plugins write ``from opgraph.plugins import hookimpl`` and declare an entry
point in the group ``opgraph.plugins``.  Importing this package is cheap: the
manager (entry point discovery) is imported on first use of its names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opgraph.faces import MissingPluginName
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
        command_records,
        current_plugin_manager,
        find_op_impl,
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
        rewrite_database_record,
        use_plugin_manager,
    )
    from opgraph.plugins.phases import (
        STANDARD_PHASES,
        Phase,
        PhaseCycleError,
        PhaseError,
        order_entries,
        order_phases,
        phase_for_position,
    )
    from opgraph.plugins.protocols import CompileModeProtocol, RewriteDatabaseProtocol
    from opgraph.plugins.records import (
        CExpr,
        CommandRecord,
        LinkerRecord,
        ModeRecord,
        OpImpl,
        PublicModule,
        RewriteDatabaseRecord,
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
            "command_records",
            "current_plugin_manager",
            "find_op_impl",
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
            "rewrite_database_record",
            "use_plugin_manager",
        ),
        "opgraph.plugins.manager",
    ),
    **dict.fromkeys(
        ("STANDARD_PHASES", "Phase", "PhaseCycleError", "PhaseError", "order_entries",
         "order_phases", "phase_for_position"),
        "opgraph.plugins.phases",
    ),
    **dict.fromkeys(("CompileModeProtocol", "RewriteDatabaseProtocol"),
                    "opgraph.plugins.protocols"),
    **dict.fromkeys(
        (
            "CExpr",
            "CommandRecord",
            "LinkerRecord",
            "ModeRecord",
            "OpImpl",
            "PublicModule",
            "RewriteDatabaseRecord",
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
    "STANDARD_PHASES",
    "CExpr",
    "CommandRecord",
    "CompileModeProtocol",
    "HookFailure",
    "LinkerRecord",
    "MissingPluginName",
    "ModeRecord",
    "OpImpl",
    "OpgraphPluginManager",
    "OpgraphPluginWarning",
    "Phase",
    "PhaseCycleError",
    "PhaseError",
    "PluginConflictError",
    "PluginError",
    "PluginHookError",
    "PluginInfo",
    "PluginLoadError",
    "PluginRegistry",
    "PluginStatus",
    "PublicModule",
    "RewriteDatabaseProtocol",
    "RewriteDatabaseRecord",
    "TargetLoadError",
    "call_hook_safely",
    "command_records",
    "current_plugin_manager",
    "find_op_impl",
    "get_plugin_manager",
    "hookimpl",
    "hookspec",
    "iter_hook_results",
    "linker_records",
    "load_target",
    "make_plugin_manager",
    "mode_records",
    "order_entries",
    "order_phases",
    "phase_for_position",
    "plugin_registry",
    "plugin_report",
    "provider_hint",
    "public_module_records",
    "reset_plugin_manager",
    "rewrite_database_record",
    "use_plugin_manager",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
