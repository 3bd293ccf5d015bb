"""Plugin discovery and the process-wide plugin manager.

One cached manager (:func:`get_plugin_manager`) loads the entry point group
``opgraph.plugins`` on first use.  Each entry point loads in its own
try/except: a plugin that fails (even by calling ``sys.exit()``) is recorded,
warned about with :class:`OpgraphPluginWarning` and skipped, and the rest keep
working (``OPGRAPH_STRICT_PLUGINS=1`` or ``config.strict_plugins`` makes it
fatal).  Tests build private managers with :func:`make_plugin_manager` so they
never depend on what happens to be installed.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import threading
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import attrs
import pluggy

from opgraph.config import DISABLE_PLUGINS_ENV, STRICT_PLUGINS_ENV, config
from opgraph.plugins import hookspecs
from opgraph.plugins.discovery import DiscoveredEntryPoint, discover_entry_points
from opgraph.plugins.errors import (
    OpgraphPluginWarning,
    PluginConflictError,
    PluginLoadError,
    short_error,
    short_traceback,
)
from opgraph.plugins.hookspecs import ENTRY_POINT_GROUP, HOOK_NAMES, PROJECT_NAME

__all__ = [
    "FIRST_PARTY_PLUGINS",
    "HookFailure",
    "OpgraphPluginManager",
    "PluginStatus",
    "current_plugin_manager",
    "get_plugin_manager",
    "make_plugin_manager",
    "normalize_dist",
    "reset_plugin_manager",
    "use_plugin_manager",
]

FIRST_PARTY_PLUGINS: dict[str, str] = {
    "opgraph-numpy": "opgraph-numpy",
    "opgraph-c": "opgraph-c",
    "opgraph-rewrites": "opgraph-rewrites",
    "opgraph-ofg": "opgraph-ofg",
    "opgraph-linalg": "opgraph-linalg",
    "opgraph-special": "opgraph-special",
    "opgraph-sparse": "opgraph-sparse",
    "opgraph-dask": "opgraph-dask",
    "opgraph-xtensor": "opgraph-xtensor",
    "opgraph-jax": "opgraph-jax",
    "opgraph-demo": "opgraph-demo",
}
"""Entry point names reserved for opgraph's own distributions (name -> distribution)."""


def normalize_dist(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _dist_of(ep: DiscoveredEntryPoint) -> tuple[str, str]:
    return ep.dist_name, ep.dist_version


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




def _truthy(text: str) -> bool:
    return text.strip().lower() in {"1", "true", "yes", "on", "y", "t"}


def _split(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in re.split(r"[,:\s]+", text) if p.strip())


def _configured_disabled() -> frozenset[str]:
    return frozenset(config.disable_plugins) | frozenset(
        _split(os.environ.get(DISABLE_PLUGINS_ENV, ""))
    )


def _configured_strict() -> bool:
    return bool(config.strict_plugins) or _truthy(os.environ.get(STRICT_PLUGINS_ENV, ""))


class OpgraphPluginManager(pluggy.PluginManager):
    """A pluggy manager with opgraph's hookspecs and a per-plugin status table."""

    def __init__(self, *, strict: bool = False, disabled: Iterable[str] = ()) -> None:
        super().__init__(PROJECT_NAME)
        self.add_hookspecs(hookspecs)
        self.strict = strict
        # a first-party plugin may be named without its prefix: "c" disables opgraph-c
        names = frozenset(disabled)
        self.disabled = names | {f"opgraph-{n}" for n in names if not n.startswith("opgraph-")}
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
        """Load every entry point of ``group``, each isolated from the others.

        A name reserved for one of opgraph's own distributions
        (:data:`FIRST_PARTY_PLUGINS`) is taken only from that distribution,
        whatever the order of ``sys.path``: another distribution declaring it
        is reported and ignored.
        """
        candidates: dict[str, list[DiscoveredEntryPoint]] = {}
        for ep in discover_entry_points(group):
            candidates.setdefault(ep.name, []).append(ep)
        for name, eps in candidates.items():
            owner = FIRST_PARTY_PLUGINS.get(name)
            if owner is not None:
                eps = sorted(eps, key=lambda ep: normalize_dist(_dist_of(ep)[0]) != owner)
            for ep in eps:
                self._load_one(ep, owner)

    def _load_one(self, ep: DiscoveredEntryPoint, owner: str | None) -> None:
        dist_name, version = _dist_of(ep)
        status = PluginStatus(ep.name, dist_name, version, source="entry point")
        previous = self.plugin_status.get(ep.name)
        if owner is not None and normalize_dist(dist_name) != owner:
            status.status = "failed"
            status.error = (
                f"plugin name {ep.name!r} is reserved for opgraph's distribution {owner}; "
                f"{status.label()} also declares it and is ignored"
            )
            key = ep.name if previous is None else f"{ep.name}@{dist_name}"
            self._fail(status, PluginConflictError(status.error), key=key)
            return
        if previous is not None and previous.status != "disabled":
            status.status = "failed"
            status.error = (
                f"plugin name {ep.name!r} is claimed by both {previous.label()} and "
                f"{status.label()}; uninstall or disable one"
            )
            self._fail(status, PluginConflictError(status.error), key=f"{ep.name}@{dist_name}")
            return
        self.plugin_status[ep.name] = status
        if ep.name in self.disabled:
            status.status = "disabled"
            return
        try:
            plugin = ep.load()
            if self.register(plugin, name=ep.name) is None:
                raise PluginLoadError(f"plugin {ep.name!r} could not be registered")
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            # A plugin calling sys.exit() (or raising KeyboardInterrupt) while it is
            # imported must not end the user's program: it is one more failed plugin.
            status.status = "failed"
            status.error = short_error(exc)
            status.traceback = short_traceback(exc)
            self._fail(status, exc)

    def _fail(self, status: PluginStatus, exc: BaseException, key: str | None = None) -> None:
        if key is not None:
            self.plugin_status[key] = status
        if self.strict:
            raise PluginLoadError(
                f"opgraph plugin {status.label()} failed to load: {status.error}. This is "
                f"fatal because strict plugin loading is on ({STRICT_PLUGINS_ENV} or "
                f"config.strict_plugins); fix or uninstall the plugin, set "
                f"{DISABLE_PLUGINS_ENV}={status.name} to leave it out, or turn strict "
                "loading off to load the others with a warning."
            ) from exc
        message = (
            f"opgraph plugin {status.label()} failed to load and is skipped: {status.error}. "
            f"See `opgraph plugins`; {DISABLE_PLUGINS_ENV}={status.name} silences this, "
            f"{STRICT_PLUGINS_ENV}=1 makes it fatal."
        )
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


_ACTIVE: contextvars.ContextVar[pluggy.PluginManager | None] = contextvars.ContextVar(
    "opgraph_active_plugin_manager", default=None
)


def current_plugin_manager() -> pluggy.PluginManager:
    """The manager hooks use now: the one of the compile in progress, else the global one.

    ``function()`` compiles inside :func:`use_plugin_manager` with its Mode's
    manager, so every hook called while compiling (rewrite database, compile
    features, a backend's ``opgraph_op_impl``) uses that Mode's plugins.
    """
    active = _ACTIVE.get()
    return get_plugin_manager() if active is None else active


@contextlib.contextmanager
def use_plugin_manager(pm: pluggy.PluginManager | None) -> Iterator[pluggy.PluginManager]:
    """Within the block, hook calls that name no manager use ``pm`` (None: no change)."""
    if pm is None:
        yield current_plugin_manager()
        return
    if not isinstance(pm, pluggy.PluginManager):
        raise TypeError(f"use_plugin_manager expects a pluggy PluginManager, got {pm!r}")
    token = _ACTIVE.set(pm)
    try:
        yield pm
    finally:
        _ACTIVE.reset(token)
