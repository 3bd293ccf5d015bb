"""The linker, mode and module records of all plugins, flattened by name.

Two plugins claiming one name is a conflict confined to that name: when one of
them is opgraph's own distribution its record is kept, otherwise both are
dropped; either way the conflict is reported (a warning, ``opgraph plugins``,
and the error met when the name is used), and every other name keeps working.
"""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import pluggy

from opgraph.plugins.errors import OpgraphPluginWarning
from opgraph.plugins.hookcalls import iter_hook_results, record_hook_failure
from opgraph.plugins.loading import (
    FIRST_PARTY_PLUGINS,
    OpgraphPluginManager,
    current_plugin_manager,
    normalize_dist,
)
from opgraph.plugins.records import (
    CommandRecord,
    LinkerRecord,
    ModeRecord,
    PublicModule,
    RewriteDatabaseRecord,
)

__all__ = [
    "Conflict",
    "PluginRegistry",
    "command_records",
    "linker_records",
    "mode_records",
    "plugin_registry",
    "public_module_records",
    "rewrite_database_record",
]


@attrs.frozen
class Conflict:
    """Several plugins declared one linker, mode or module path."""

    kind: str
    name: str
    plugins: tuple[str, ...]
    kept: str | None
    message: str


@attrs.define
class PluginRegistry:
    """Linker, mode and public-module records of a manager, flattened, with their providers."""

    linkers: dict[str, LinkerRecord] = attrs.field(factory=dict)
    modes: dict[str, ModeRecord] = attrs.field(factory=dict)
    modules: dict[str, PublicModule] = attrs.field(factory=dict)
    commands: dict[str, CommandRecord] = attrs.field(factory=dict)
    databases: dict[str, RewriteDatabaseRecord] = attrs.field(factory=dict)
    owners: dict[tuple[str, str], str] = attrs.field(factory=dict)
    conflicts: dict[tuple[str, str], Conflict] = attrs.field(factory=dict)

    @classmethod
    def collect(cls, pm: pluggy.PluginManager) -> PluginRegistry:
        """Call the record hooks; a name claimed twice is settled per name (module doc)."""
        reg = cls()
        reg._collect(pm, "linker", "opgraph_linkers", LinkerRecord, reg.linkers)
        reg._collect(pm, "mode", "opgraph_modes", ModeRecord, reg.modes)
        reg._collect(pm, "module", "opgraph_public_modules", PublicModule, reg.modules)
        reg._collect(pm, "command", "opgraph_cli_commands", CommandRecord, reg.commands)
        reg._collect(pm, "rewrite database", "opgraph_rewrite_database", RewriteDatabaseRecord,
                     reg.databases)
        return reg

    def _collect(
        self,
        pm: pluggy.PluginManager,
        kind: str,
        hookname: str,
        record_type: type,
        out: dict[str, Any],
    ) -> None:
        claims: dict[str, list[tuple[str, Any]]] = {}
        plugin: str | None  # None: a conflict settled by dropping every claim
        for plugin, result in iter_hook_results(pm, hookname, {}):
            for rec in _as_records(pm, plugin, hookname, result, record_type):
                keys = rec.keys() if isinstance(rec, PublicModule) else (rec.name,)
                for key in keys:
                    claims.setdefault(key, []).append((plugin, rec))
        for key, found in claims.items():
            if len(found) == 1:
                plugin, rec = found[0]
            else:
                plugin, rec = self._settle(pm, kind, key, found)
                if plugin is None:
                    continue
            self.owners[(kind, key)] = plugin
            out[key] = rec

    def _settle(
        self, pm: pluggy.PluginManager, kind: str, key: str, found: list[tuple[str, Any]]
    ) -> tuple[str | None, Any]:
        """Keep the first-party claim if there is exactly one, else drop them all."""
        first_party = [(p, r) for p, r in found if _is_first_party(pm, p)]
        kept = first_party[0] if len(first_party) == 1 else (None, None)
        names = tuple(p for p, _ in found)
        claimants = " and ".join(_describe(pm, p) for p in names)
        if kept[0] is not None:
            outcome = f"the registration of {_describe(pm, kept[0])} is used, the others ignored"
        else:
            outcome = "all of these registrations are disabled"
        message = (
            f"{kind} {key!r} is declared by several plugins: {claimants}; {outcome}. "
            "Uninstall one, or disable one with OPGRAPH_DISABLE_PLUGINS"
        )
        self.conflicts[(kind, key)] = Conflict(kind, key, names, kept[0], message)
        warnings.warn(message, OpgraphPluginWarning, stacklevel=5)
        return kept

    def provider_of(self, kind: str, name: str) -> str | None:
        """The plugin name that provides the ``kind`` ("linker"/"mode"/"module") ``name``."""
        return self.owners.get((kind, name))

    def conflict(self, kind: str, name: str) -> Conflict | None:
        """The conflict over ``kind`` ``name``, if several plugins declared it."""
        return self.conflicts.get((kind, name))


def _is_first_party(pm: pluggy.PluginManager, plugin: str) -> bool:
    owner = FIRST_PARTY_PLUGINS.get(plugin)
    status = getattr(pm, "plugin_status", {}).get(plugin)
    return owner is not None and status is not None and normalize_dist(status.distribution) == owner


def _describe(pm: pluggy.PluginManager, plugin: str) -> str:
    return pm.describe(plugin) if isinstance(pm, OpgraphPluginManager) else repr(plugin)


def _as_records(
    pm: pluggy.PluginManager, plugin: str, hookname: str, result: Any, record_type: type
) -> list[Any]:
    if result is None:
        return []
    if isinstance(result, record_type):
        result = [result]
    try:
        items = list(result)
    except TypeError:
        items = [result]
    good = [r for r in items if isinstance(r, record_type)]
    if len(good) != len(items):
        bad = next(r for r in items if not isinstance(r, record_type))
        exc = TypeError(f"{hookname} must return a list of {record_type.__name__}, got {bad!r}")
        record_hook_failure(pm, plugin, hookname, exc)
    return good


def plugin_registry(pm: pluggy.PluginManager | None = None) -> PluginRegistry:
    """The flattened records of ``pm`` (default: the current manager), cached per manager."""
    pm = current_plugin_manager() if pm is None else pm
    cache = getattr(pm, "_records_cache", None)
    if cache is not None and "registry" in cache:
        return cache["registry"]
    reg = PluginRegistry.collect(pm)
    if cache is not None:
        cache["registry"] = reg
    return reg


def linker_records(pm: pluggy.PluginManager | None = None) -> dict[str, LinkerRecord]:
    """All linkers by name, from every plugin (a name claimed twice: see the module doc)."""
    return dict(plugin_registry(pm).linkers)


def mode_records(pm: pluggy.PluginManager | None = None) -> dict[str, ModeRecord]:
    """All modes by name, from every plugin (a name claimed twice: see the module doc)."""
    return dict(plugin_registry(pm).modes)


def command_records(pm: pluggy.PluginManager | None = None) -> dict[str, CommandRecord]:
    """All plugin-provided ``opgraph`` subcommands by name."""
    return dict(plugin_registry(pm).commands)


def public_module_records(pm: pluggy.PluginManager | None = None) -> dict[str, PublicModule]:
    """Plugin-served module paths and names, keyed by path or ``module.name``.

    A path claimed twice, or a name: see the module doc.
    """
    return dict(plugin_registry(pm).modules)



STANDARD_DATABASE = "optdb"
"""The name of the rewrite database modes query (PyTensor's ``optdb``)."""


def rewrite_database_record(
    pm: pluggy.PluginManager | None = None, name: str = STANDARD_DATABASE
) -> RewriteDatabaseRecord | None:
    """The record of the rewrite database ``name`` some plugin provides, or None."""
    return plugin_registry(pm).databases.get(name)
