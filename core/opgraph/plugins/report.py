"""What each plugin contributes and who provides a name: ``opgraph plugins`` and error hints."""

from __future__ import annotations

import collections
import importlib
import warnings
from typing import Any

import attrs

from opgraph.graph.op import Op
from opgraph.plugins import loading
from opgraph.plugins.errors import short_error
from opgraph.plugins.loading import OpgraphPluginManager, get_plugin_manager, normalize_dist
from opgraph.plugins.phases import Phase
from opgraph.plugins.records import CommandRecord, LinkerRecord, ModeRecord, PublicModule
from opgraph.plugins.registry import Conflict, plugin_registry

__all__ = ["KNOWN_PROVIDERS", "PluginInfo", "plugin_report", "provider_hint"]


@attrs.frozen
class PluginInfo:
    """One row of :func:`plugin_report` / ``opgraph plugins``."""

    name: str
    distribution: str
    version: str
    status: str
    error: str = ""
    traceback: str = ""
    hooks: tuple[str, ...] = ()
    linkers: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()
    backends: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    rewrites: tuple[str, ...] = ()
    ops: tuple[str, ...] = ()
    op_impls: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in attrs.asdict(self).items()}



def _plugin_contributions(
    pm: OpgraphPluginManager, plugin: Any, name: str
) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """What ``plugin`` declares, by kind (hooks, linkers, modes, ...), and its hook errors."""
    hooks = tuple(sorted(hc.name for hc in (pm.get_hookcallers(plugin) or ())))
    errors: list[str] = []
    found: dict[str, list[Any]] = {}
    for hookname, record_type in (
        ("opgraph_linkers", LinkerRecord),
        ("opgraph_modes", ModeRecord),
        ("opgraph_public_modules", PublicModule),
        ("opgraph_cli_commands", CommandRecord),
    ):
        caller = getattr(pm.hook, hookname)
        found[hookname] = []
        for impl in caller.get_hookimpls():
            if impl.plugin is not plugin:
                continue
            try:
                result = impl.function()
            except Exception as exc:
                errors.append(f"{hookname} raised {short_error(exc)}")
                continue
            items = result if isinstance(result, list | tuple) else [result]
            found[hookname].extend(r for r in items if isinstance(r, record_type))
    linkers = found["opgraph_linkers"]
    provides = {
        "hooks": hooks,
        "linkers": tuple(r.name for r in linkers),
        "modes": tuple(r.name for r in found["opgraph_modes"]),
        "backends": tuple(dict.fromkeys(r.backend for r in linkers if r.backend)),
        "modules": tuple(
            f"{r.module} ({len(r.names)} names)" if r.names else r.module
            for r in found["opgraph_public_modules"]
        ),
        "commands": tuple(r.name for r in found["opgraph_cli_commands"]),
    }
    provides["rewrites"] = _rewrite_counts(pm, plugin, errors)
    provides["ops"] = _ops_served(found["opgraph_public_modules"], plugin, errors)
    provides["op_impls"] = tuple(
        _first_line(impl.function.__doc__).rstrip(".") or "per op (undocumented)"
        for impl in pm.hook.opgraph_op_impl.get_hookimpls() if impl.plugin is plugin
    )
    for (plugin_name, hook), failure in pm.hook_failures.items():
        if plugin_name == name:
            errors.append(f"{hook} raised {failure.error} ({failure.count}x)")
    return provides, errors


def _first_line(doc: str | None) -> str:
    return doc.strip().splitlines()[0].strip() if doc and doc.strip() else ""


class RewriteCounter:
    """A stand-in rewrite database that counts what a plugin registers, by phase.

    ``opgraph plugins`` hands one to each plugin's ``opgraph_register_rewrites``
    so the count is the plugin's own, without building (or changing) the real
    database.  ``counter["canonicalize"]`` is the same counter bound to that phase.
    """

    def __init__(self, counts: collections.Counter[str] | None = None,
                 phase: str | None = None) -> None:
        self.counts: collections.Counter[str] = collections.Counter() if counts is None \
            else counts
        self._phase = phase

    def register(self, name: str, rewriter: Any, *tags: str, **options: Any) -> None:
        """Count one registration, under its ``phase=`` or the phase this counter stands for."""
        self.counts[str(options.get("phase") or self._phase or "top level")] += 1

    def __getitem__(self, name: str) -> RewriteCounter:
        return RewriteCounter(self.counts, name)

    def __contains__(self, name: object) -> bool:
        return True

    def query(self, *tags: Any, **options: Any) -> Any:
        """Not available: this database only counts registrations."""
        raise TypeError("a RewriteCounter only counts registrations; it has no rewriters")

    def add_tags(self, name: str, *tags: str) -> None:
        """Tags do not change the count."""

    def remove_tags(self, name: str, *tags: str) -> None:
        """Tags do not change the count."""

    def tags_of(self, name: str) -> frozenset[str]:
        """No tags are kept."""
        return frozenset()

    @property
    def phases(self) -> list[Phase]:
        """No phases are kept."""
        return []

    def add_phase(self, phase: Phase | str, *, after: Any = (), before: Any = (),
                  description: str = "") -> Phase:
        """The phase, not recorded."""
        return phase if isinstance(phase, Phase) else Phase(phase, after=after, before=before)

    def check(self) -> None:
        """Nothing to check."""


def _rewrite_counts(pm: OpgraphPluginManager, plugin: Any, errors: list[str]) -> tuple[str, ...]:
    """``("total: N", "canonicalize: n", ...)`` for what ``plugin`` registers, or ``()``."""
    counter = RewriteCounter()
    impls = [i for i in pm.hook.opgraph_register_rewrites.get_hookimpls() if i.plugin is plugin]
    for impl in impls:
        try:
            impl.function(db=counter)
        except Exception as exc:
            errors.append(f"opgraph_register_rewrites raised {short_error(exc)}")
            return ()
    if not impls:
        return ()
    by_phase = sorted(counter.counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return (f"total: {sum(counter.counts.values())}", *(f"{k}: {v}" for k, v in by_phase))


def _package_of(plugin: Any) -> str:
    module = getattr(plugin, "__name__", None) or type(plugin).__module__
    return module.split(".", 1)[0]


def _ops_served(records: list[PublicModule], plugin: Any, errors: list[str]) -> tuple[str, ...]:
    """The Ops (classes and ready-made instances) that ``plugin``'s own package defines,
    among the public names of the modules it serves (``opgraph.compile.builders`` ->
    ``OpFromGraph``)."""
    package = _package_of(plugin)

    def own(obj: Any) -> bool:
        if isinstance(obj, type):
            return issubclass(obj, Op) and obj.__module__.split(".", 1)[0] == package
        if isinstance(obj, Op):
            inner = getattr(obj, "scalar_op", obj)
            return type(inner).__module__.split(".", 1)[0] == package
        return False

    found: dict[str, None] = {}
    for record in records:
        try:
            module = importlib.import_module(record.target)
        except Exception as exc:
            errors.append(f"{record.target} does not import: {short_error(exc)}")
            continue
        names = record.names or getattr(module, "__all__", None) or [
            n for n in dir(module) if not n.startswith("_")
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # old paths still count
            for name in names:
                if own(getattr(module, name, None)):
                    found[name] = None
    return tuple(sorted(found))


def plugin_report(pm: OpgraphPluginManager | None = None) -> list[PluginInfo]:
    """One :class:`PluginInfo` per plugin known to ``pm``, loaded or not."""
    pm = get_plugin_manager() if pm is None else pm
    conflicts = list(plugin_registry(pm).conflicts.values())
    rows: list[PluginInfo] = []
    for key, status in pm.plugin_status.items():
        plugin = pm.get_plugin(key) if status.status == "ok" else None
        provides: dict[str, tuple[str, ...]] = {}
        error = status.error
        state = status.status
        if plugin is not None:
            provides, errors = _plugin_contributions(pm, plugin, key)
            if errors:
                state, error = "failed", "; ".join(errors)
        rows.append(
            PluginInfo(
                name=status.name,
                distribution=status.distribution,
                version=status.version,
                status=state,
                error=error,
                traceback=status.traceback,
                conflicts=tuple(c.message for c in conflicts if key in c.plugins),
                **provides,
            )
        )
    return rows


def _conflict_over(name: str, pm: Any) -> Conflict | None:
    """A registry conflict over ``name`` (as a mode, a linker or a module), if any."""
    if pm is None:
        return None
    registry = plugin_registry(pm)
    for kind in ("mode", "linker", "module"):
        found = registry.conflict(kind, name)
        if found is not None:
            return found
    return None


KNOWN_PROVIDERS: dict[str, str] = {
    "py": "opgraph-numpy",
    "vm": "opgraph-numpy",
    "c": "opgraph-c",
    "cvm": "opgraph-c",
    "rewrites": "opgraph-rewrites",
    "rewrite database": "opgraph-rewrites",
    "OpFromGraph": "opgraph-ofg",
    "C": "opgraph-c",
    "CVM": "opgraph-c",
    "cache": "opgraph-c",
    "demo": "opgraph-demo",
}
"""Well-known linker/mode/feature names and the distribution that provides them."""


def provider_hint(
    name: str, pm: OpgraphPluginManager | None = None, *, dist: str | None = None
) -> str | None:
    """A sentence telling which plugin provides ``name`` and its state here, or None.

    ``dist`` names the distribution (default: looked up in :data:`KNOWN_PROVIDERS`).
    Uses ``pm`` if given, else the global manager only if it is already loaded.
    """
    pm = loading._MANAGER if pm is None else pm
    conflict = _conflict_over(name, pm)
    if conflict is not None:
        return conflict.message
    dist = KNOWN_PROVIDERS.get(name) if dist is None else dist
    if dist is None:
        return None
    if pm is not None:
        for status in pm.plugin_status.values():
            if normalize_dist(dist) in {
                normalize_dist(status.distribution),
                normalize_dist(status.name),
            }:
                if status.status == "disabled":
                    return (
                        f"{name!r} is provided by the plugin {dist}, which is installed but "
                        "disabled (OPGRAPH_DISABLE_PLUGINS or config.disable_plugins)"
                    )
                if status.status == "failed":
                    return (
                        f"{name!r} is provided by the plugin {dist}, which failed to load: "
                        f"{status.error} (see `opgraph plugins`)"
                    )
                return f"{name!r} is provided by the plugin {dist}, which is installed"
    return (
        f"{name!r} is provided by the plugin {dist}, which is not installed; "
        f"install it (from an opgraph checkout: pip install ./plugins/{dist})"
    )

