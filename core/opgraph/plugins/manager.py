"""Plugin discovery, error isolation and listing.

One cached manager (:func:`get_plugin_manager`) loads the entry point group
``opgraph.plugins`` on first use.  Each entry point loads in its own
try/except: a plugin that fails is recorded, warned about with
:class:`OpgraphPluginWarning` and skipped, and the rest keep working
(``OPGRAPH_STRICT_PLUGINS=1`` or ``config.strict_plugins`` makes it fatal).
Hooks are called through :func:`call_hook_safely`, which isolates a plugin
that raises inside a hook the same way.

Tests build private managers with :func:`make_plugin_manager` so they never
depend on what happens to be installed.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import threading
import traceback
import warnings
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs
import pluggy

from opgraph.plugins import hookspecs
from opgraph.plugins.hookspecs import ENTRY_POINT_GROUP, HOOK_NAMES, PROJECT_NAME
from opgraph.plugins.records import LinkerRecord, ModeRecord, PublicModule

__all__ = [
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
    "linker_records",
    "make_plugin_manager",
    "mode_records",
    "plugin_report",
    "provider_hint",
    "public_module_records",
    "reset_plugin_manager",
]

_TB_LIMIT = 4


class OpgraphPluginWarning(UserWarning):
    """A plugin failed to load or raised inside a hook and was skipped."""


class PluginError(RuntimeError):
    """Base class of plugin errors."""


class PluginLoadError(PluginError):
    """A plugin failed to load in strict mode."""


class PluginHookError(PluginError):
    """A plugin raised inside a hook in strict mode."""


class PluginConflictError(PluginError, ValueError):
    """Two plugins claim the same linker, mode or plugin name."""


@attrs.define
class PluginStatus:
    """What the manager knows about one plugin name (mutable while loading)."""

    name: str
    distribution: str = ""
    version: str = ""
    status: str = "ok"  # "ok" | "failed" | "disabled"
    error: str = ""
    traceback: str = ""
    source: str = "registered"  # "entry point" | "registered"

    def label(self) -> str:
        """``'name' (distribution dist version)`` for messages."""
        if self.distribution:
            dist = f"{self.distribution} {self.version}".strip()
            return f"{self.name!r} (distribution {dist})"
        return f"{self.name!r} (registered in-process)"


@attrs.frozen
class HookFailure:
    """The first failure of one plugin in one hook, and how often it failed."""

    plugin: str
    hook: str
    error: str
    traceback: str
    count: int = 1


@attrs.frozen
class PluginInfo:
    """One row of :func:`plugin_report` / ``opgraph plugins``."""

    name: str
    distribution: str
    version: str
    hooks: tuple[str, ...]
    linkers: tuple[str, ...]
    modes: tuple[str, ...]
    backends: tuple[str, ...]
    status: str
    error: str = ""
    traceback: str = ""
    modules: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in attrs.asdict(self).items()}


def _short_error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _short_traceback(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc, limit=-_TB_LIMIT)).rstrip()


def _truthy(text: str) -> bool:
    return text.strip().lower() in {"1", "true", "yes", "on", "y", "t"}


def _split(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in re.split(r"[,:\s]+", text) if p.strip())


def _configured_disabled() -> frozenset[str]:
    from opgraph.config import DISABLE_PLUGINS_ENV, config

    return frozenset(config.disable_plugins) | frozenset(
        _split(os.environ.get(DISABLE_PLUGINS_ENV, ""))
    )


def _configured_strict() -> bool:
    from opgraph.config import STRICT_PLUGINS_ENV, config

    return bool(config.strict_plugins) or _truthy(os.environ.get(STRICT_PLUGINS_ENV, ""))


class OpgraphPluginManager(pluggy.PluginManager):
    """A pluggy manager with opgraph's hookspecs and a per-plugin status table."""

    def __init__(self, *, strict: bool = False, disabled: Iterable[str] = ()) -> None:
        super().__init__(PROJECT_NAME)
        self.add_hookspecs(hookspecs)
        self.strict = strict
        self.disabled = frozenset(disabled)
        self.plugin_status: dict[str, PluginStatus] = {}
        self.hook_failures: dict[tuple[str, str], HookFailure] = {}
        self._records_cache: dict[str, Any] = {}
        for name in self.disabled:
            self.set_blocked(name)

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        """Register ``plugin``; a disabled name is recorded and not registered."""
        canonical = name or self.get_canonical_name(plugin)
        if self.is_blocked(canonical):
            self.plugin_status.setdefault(canonical, PluginStatus(canonical)).status = "disabled"
            return None
        result = super().register(plugin, name)
        if result is not None:
            self.plugin_status.setdefault(result, PluginStatus(result))
            self._warn_unknown_hooks(plugin, result)
        self._records_cache.clear()
        return result

    def unregister(self, plugin: Any = None, name: str | None = None) -> Any:
        """Unregister a plugin and forget what it contributed."""
        result = super().unregister(plugin, name)
        self._records_cache.clear()
        return result

    def _warn_unknown_hooks(self, plugin: Any, name: str) -> None:
        for attr in dir(plugin):
            if attr.startswith("opgraph_") and attr not in HOOK_NAMES:
                opts = self.parse_hookimpl_opts(plugin, attr)
                if opts is not None:
                    warnings.warn(
                        f"opgraph plugin {name!r} implements unknown hook {attr!r} "
                        f"(typo, or a newer opgraph?); known hooks: {', '.join(HOOK_NAMES)}",
                        OpgraphPluginWarning,
                        stacklevel=3,
                    )

    def load_entry_points(self, group: str = ENTRY_POINT_GROUP) -> None:
        """Load every entry point of ``group``, each isolated from the others."""
        for ep in importlib.metadata.entry_points(group=group):
            dist = getattr(ep, "dist", None)
            dist_name = str(dist.metadata["Name"]) if dist is not None else ""
            version = str(dist.version) if dist is not None else ""
            status = PluginStatus(ep.name, dist_name, version, source="entry point")
            previous = self.plugin_status.get(ep.name)
            if previous is not None and previous.status != "disabled":
                status.status = "failed"
                status.error = (
                    f"plugin name {ep.name!r} is claimed by both {previous.label()} and "
                    f"{status.label()}; uninstall or disable one"
                )
                self._fail(status, PluginConflictError(status.error), key=f"{ep.name}@{dist_name}")
                continue
            self.plugin_status[ep.name] = status
            if ep.name in self.disabled:
                status.status = "disabled"
                continue
            try:
                plugin = ep.load()
                if self.register(plugin, name=ep.name) is None:
                    raise PluginLoadError(f"plugin {ep.name!r} could not be registered")
            except Exception as exc:
                status.status = "failed"
                status.error = _short_error(exc)
                status.traceback = _short_traceback(exc)
                self._fail(status, exc)

    def _fail(self, status: PluginStatus, exc: BaseException, key: str | None = None) -> None:
        if key is not None:
            self.plugin_status[key] = status
        message = (
            f"opgraph plugin {status.label()} failed to load and is skipped: {status.error}. "
            f"See `opgraph plugins`; OPGRAPH_DISABLE_PLUGINS={status.name} silences this, "
            "OPGRAPH_STRICT_PLUGINS=1 makes it fatal."
        )
        if self.strict:
            raise PluginLoadError(message) from exc
        warnings.warn(message, OpgraphPluginWarning, stacklevel=4)

    def describe(self, name: str) -> str:
        """``'name' (distribution ...)`` for error messages."""
        status = self.plugin_status.get(name)
        return status.label() if status is not None else repr(name)


def make_plugin_manager(
    autoload: bool = False,
    plugins: Iterable[Any] = (),
    *,
    disabled: Iterable[str] | None = None,
    strict: bool | None = None,
    group: str = ENTRY_POINT_GROUP,
) -> OpgraphPluginManager:
    """Build a private manager (for tests): register ``plugins``, optionally autoload.

    ``plugins`` holds plugin objects/modules, or ``(name, plugin)`` pairs.
    ``disabled``/``strict`` default to the configuration and environment.
    """
    pm = OpgraphPluginManager(
        strict=_configured_strict() if strict is None else strict,
        disabled=_configured_disabled() if disabled is None else disabled,
    )
    for item in plugins:
        if isinstance(item, tuple):
            name, obj = item
            pm.register(obj, name=name)
        else:
            pm.register(item)
    if autoload:
        pm.load_entry_points(group)
    return pm


_MANAGER: OpgraphPluginManager | None = None
_LOCK = threading.Lock()


def get_plugin_manager() -> OpgraphPluginManager:
    """The process-wide manager; installed plugins are loaded on the first call."""
    global _MANAGER
    if _MANAGER is None:
        with _LOCK:
            if _MANAGER is None:
                _MANAGER = make_plugin_manager(autoload=True)
    return _MANAGER


def reset_plugin_manager() -> None:
    """Forget the process-wide manager (tests); the next call reloads plugins."""
    global _MANAGER
    with _LOCK:
        _MANAGER = None


# --- isolated hook calls -------------------------------------------------------


def _record_hook_failure(
    pm: pluggy.PluginManager, plugin: str, hook: str, exc: BaseException
) -> None:
    failures = getattr(pm, "hook_failures", None)
    label = pm.describe(plugin) if isinstance(pm, OpgraphPluginManager) else repr(plugin)
    message = f"opgraph plugin {label} raised in {hook}; its result is ignored: {_short_error(exc)}"
    if getattr(pm, "strict", False):
        raise PluginHookError(message) from exc
    if failures is not None:
        key = (plugin, hook)
        old = failures.get(key)
        if old is not None:
            failures[key] = attrs.evolve(old, count=old.count + 1)
            return  # warned already
        failures[key] = HookFailure(plugin, hook, _short_error(exc), _short_traceback(exc))
    warnings.warn(message, OpgraphPluginWarning, stacklevel=4)


def iter_hook_results(
    pm: pluggy.PluginManager, hookname: str, kwargs: Mapping[str, Any]
) -> Iterator[tuple[str, Any]]:
    """Yield ``(plugin_name, result)`` per implementation, in pluggy's call order.

    An implementation that raises is recorded and skipped.  Hook wrappers are
    not run (opgraph hooks do not use them).
    """
    caller = getattr(pm.hook, hookname, None)
    if caller is None:
        raise AttributeError(f"unknown hook {hookname!r}; known hooks: {', '.join(HOOK_NAMES)}")
    for impl in reversed(caller.get_hookimpls()):
        if impl.hookwrapper or impl.wrapper:
            continue
        try:
            args = [kwargs[name] for name in impl.argnames]
        except KeyError as exc:
            raise TypeError(f"{hookname}() call is missing argument {exc.args[0]!r}") from None
        try:
            result = impl.function(*args)
        except Exception as exc:
            _record_hook_failure(pm, impl.plugin_name, hookname, exc)
            continue
        yield impl.plugin_name, result


def call_hook_safely(pm: pluggy.PluginManager | None, hookname: str, /, **kwargs: Any) -> Any:
    """Call a hook with each implementation isolated.

    Collect-all hooks return the list of non-``None`` results; firstresult
    hooks return the first non-``None`` result (or ``None``).  A plugin that
    raises is warned about, recorded and skipped (raised in strict mode).
    """
    pm = get_plugin_manager() if pm is None else pm
    caller = getattr(pm.hook, hookname, None)
    spec = getattr(caller, "spec", None)
    firstresult = bool(spec is not None and spec.opts.get("firstresult"))
    results = []
    for _plugin, result in iter_hook_results(pm, hookname, kwargs):
        if result is None:
            continue
        if firstresult:
            return result
        results.append(result)
    return None if firstresult else results


# --- flattened records ----------------------------------------------------------


@attrs.define
class PluginRegistry:
    """Linker, mode and public-module records of a manager, flattened, with their providers."""

    linkers: dict[str, LinkerRecord] = attrs.field(factory=dict)
    modes: dict[str, ModeRecord] = attrs.field(factory=dict)
    modules: dict[str, PublicModule] = attrs.field(factory=dict)
    owners: dict[tuple[str, str], str] = attrs.field(factory=dict)

    @classmethod
    def collect(cls, pm: pluggy.PluginManager) -> PluginRegistry:
        """Call the record hooks; two plugins claiming one name is an error."""
        reg = cls()
        reg._collect(pm, "linker", "opgraph_linkers", LinkerRecord, reg.linkers)
        reg._collect(pm, "mode", "opgraph_modes", ModeRecord, reg.modes)
        reg._collect(pm, "module", "opgraph_public_modules", PublicModule, reg.modules)
        return reg

    def _collect(
        self,
        pm: pluggy.PluginManager,
        kind: str,
        hookname: str,
        record_type: type,
        out: dict[str, Any],
    ) -> None:
        for plugin, result in iter_hook_results(pm, hookname, {}):
            items = _as_records(pm, plugin, hookname, result, record_type)
            for rec in items:
                key = rec.module if isinstance(rec, PublicModule) else rec.name
                previous = self.owners.get((kind, key))
                if previous is not None:
                    raise PluginConflictError(
                        f"{kind} {key!r} is provided by two plugins: "
                        f"{_describe(pm, previous)} and {_describe(pm, plugin)}; "
                        "uninstall one, or disable one with OPGRAPH_DISABLE_PLUGINS"
                    )
                self.owners[(kind, key)] = plugin
                out[key] = rec

    def provider_of(self, kind: str, name: str) -> str | None:
        """The plugin name that provides the ``kind`` ("linker"/"mode"/"module") ``name``."""
        return self.owners.get((kind, name))


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
        _record_hook_failure(pm, plugin, hookname, exc)
    return good


def plugin_registry(pm: pluggy.PluginManager | None = None) -> PluginRegistry:
    """The flattened records of ``pm`` (default: the global manager), cached per manager."""
    pm = get_plugin_manager() if pm is None else pm
    cache = getattr(pm, "_records_cache", None)
    if cache is not None and "registry" in cache:
        return cache["registry"]
    reg = PluginRegistry.collect(pm)
    if cache is not None:
        cache["registry"] = reg
    return reg


def linker_records(pm: pluggy.PluginManager | None = None) -> dict[str, LinkerRecord]:
    """All linkers by name, from every plugin (conflicting names raise)."""
    return dict(plugin_registry(pm).linkers)


def mode_records(pm: pluggy.PluginManager | None = None) -> dict[str, ModeRecord]:
    """All modes by name, from every plugin (conflicting names raise)."""
    return dict(plugin_registry(pm).modes)


def public_module_records(pm: pluggy.PluginManager | None = None) -> dict[str, PublicModule]:
    """All plugin-served module paths, from every plugin (conflicting paths raise)."""
    return dict(plugin_registry(pm).modules)


# --- listing ------------------------------------------------------------------------


def _plugin_contributions(
    pm: OpgraphPluginManager, plugin: Any, name: str
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...], list[str]]:
    hooks = tuple(sorted(hc.name for hc in (pm.get_hookcallers(plugin) or ())))
    errors: list[str] = []
    found: dict[str, list[Any]] = {}
    for hookname, record_type in (
        ("opgraph_linkers", LinkerRecord),
        ("opgraph_modes", ModeRecord),
        ("opgraph_public_modules", PublicModule),
    ):
        caller = getattr(pm.hook, hookname)
        found[hookname] = []
        for impl in caller.get_hookimpls():
            if impl.plugin is not plugin:
                continue
            try:
                result = impl.function()
            except Exception as exc:
                errors.append(f"{hookname} raised {_short_error(exc)}")
                continue
            items = result if isinstance(result, list | tuple) else [result]
            found[hookname].extend(r for r in items if isinstance(r, record_type))
    linkers = tuple(r.name for r in found["opgraph_linkers"])
    modes = tuple(r.name for r in found["opgraph_modes"])
    backends = tuple(dict.fromkeys(r.backend for r in found["opgraph_linkers"] if r.backend))
    modules = tuple(r.module for r in found["opgraph_public_modules"])
    for (plugin_name, hook), failure in pm.hook_failures.items():
        if plugin_name == name:
            errors.append(f"{hook} raised {failure.error} ({failure.count}x)")
    return hooks, linkers, modes, backends, modules, errors


def plugin_report(pm: OpgraphPluginManager | None = None) -> list[PluginInfo]:
    """One :class:`PluginInfo` per plugin known to ``pm``, loaded or not."""
    pm = get_plugin_manager() if pm is None else pm
    rows: list[PluginInfo] = []
    for key, status in pm.plugin_status.items():
        plugin = pm.get_plugin(key) if status.status == "ok" else None
        hooks: tuple[str, ...] = ()
        linkers = modes = backends = modules = hooks
        error = status.error
        state = status.status
        if plugin is not None:
            hooks, linkers, modes, backends, modules, errors = _plugin_contributions(
                pm, plugin, key
            )
            if errors:
                state, error = "failed", "; ".join(errors)
        rows.append(
            PluginInfo(
                name=status.name,
                distribution=status.distribution,
                version=status.version,
                hooks=hooks,
                linkers=linkers,
                modes=modes,
                backends=backends,
                modules=modules,
                status=state,
                error=error,
                traceback=status.traceback,
            )
        )
    return rows


# --- who provides what ------------------------------------------------------------

KNOWN_PROVIDERS: dict[str, str] = {
    "py": "opgraph-numpy",
    "vm": "opgraph-numpy",
    "FAST_COMPILE": "opgraph-numpy",
    "c": "opgraph-c",
    "cvm": "opgraph-c",
    "rewrites": "opgraph-rewrites",
    "rewrite database": "opgraph-rewrites",
    "OpFromGraph": "opgraph-ofg",
}
"""Well-known linker/mode/feature names and the distribution that provides them."""


def _normalize_dist(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def provider_hint(
    name: str, pm: OpgraphPluginManager | None = None, *, dist: str | None = None
) -> str | None:
    """A sentence telling which plugin provides ``name`` and its state here, or None.

    ``dist`` names the distribution (default: looked up in :data:`KNOWN_PROVIDERS`).
    Uses ``pm`` if given, else the global manager only if it is already loaded.
    """
    dist = KNOWN_PROVIDERS.get(name) if dist is None else dist
    if dist is None:
        return None
    pm = _MANAGER if pm is None else pm
    if pm is not None:
        for status in pm.plugin_status.values():
            if _normalize_dist(dist) in {
                _normalize_dist(status.distribution),
                _normalize_dist(status.name),
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
