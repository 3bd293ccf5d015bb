"""The plugin system's public face: discovery, isolated hook calls, records, listing.

The pieces live in modules of one job each (``loading``: entry points and the
process-wide manager; ``hookcalls``: isolated hook calls and result checks;
``registry``: records flattened by name, conflicts per name; ``report``:
``opgraph plugins`` and "which plugin provides this" hints); this module
re-exports them under the names code has always imported from here.
"""

from __future__ import annotations

from opgraph.plugins.errors import (
    OpgraphPluginWarning,
    PluginConflictError,
    PluginError,
    PluginHookError,
    PluginLoadError,
)
from opgraph.plugins.hookcalls import (
    RESULT_CHECKS,
    call_hook_safely,
    find_op_impl,
    iter_hook_results,
    record_hook_failure,
)
from opgraph.plugins.loading import (
    FIRST_PARTY_PLUGINS,
    HookFailure,
    OpgraphPluginManager,
    PluginStatus,
    current_plugin_manager,
    get_plugin_manager,
    make_plugin_manager,
    reset_plugin_manager,
    use_plugin_manager,
)
from opgraph.plugins.registry import (
    Conflict,
    PluginRegistry,
    command_records,
    linker_records,
    mode_records,
    plugin_registry,
    public_module_records,
    rewrite_database_record,
)
from opgraph.plugins.report import KNOWN_PROVIDERS, PluginInfo, plugin_report, provider_hint

__all__ = [
    "FIRST_PARTY_PLUGINS",
    "KNOWN_PROVIDERS",
    "RESULT_CHECKS",
    "Conflict",
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
    "record_hook_failure",
    "reset_plugin_manager",
    "rewrite_database_record",
    "use_plugin_manager",
]
