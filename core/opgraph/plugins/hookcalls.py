"""Calling hooks with every plugin isolated from the others.

A plugin that raises inside a hook, or returns a result its hook does not
allow, is reported against that plugin (a warning, and in ``opgraph
plugins``) and skipped; the other plugins' results are still used.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs
import pluggy

from opgraph.graph.features import Feature
from opgraph.plugins.errors import (
    OpgraphPluginWarning,
    PluginHookError,
    short_error,
    short_traceback,
)
from opgraph.plugins.hookspecs import HOOK_NAMES
from opgraph.plugins.loading import HookFailure, OpgraphPluginManager, current_plugin_manager
from opgraph.plugins.records import OpImpl

__all__ = [
    "RESULT_CHECKS",
    "call_hook_safely",
    "find_op_impl",
    "iter_hook_results",
    "record_hook_failure",
]


def record_hook_failure(
    pm: pluggy.PluginManager, plugin: str, hook: str, exc: BaseException
) -> None:
    failures = getattr(pm, "hook_failures", None)
    label = pm.describe(plugin) if isinstance(pm, OpgraphPluginManager) else repr(plugin)
    if getattr(pm, "strict", False):
        raise PluginHookError(
            f"opgraph plugin {label} raised in {hook}: {short_error(exc)}. This is fatal "
            "because strict plugin loading is on (OPGRAPH_STRICT_PLUGINS or "
            "config.strict_plugins)"
        ) from exc
    message = f"opgraph plugin {label} raised in {hook}; its result is ignored: {short_error(exc)}"
    if failures is not None:
        key = (plugin, hook)
        old = failures.get(key)
        if old is not None:
            failures[key] = attrs.evolve(old, count=old.count + 1)
            return  # warned already
        failures[key] = HookFailure(plugin, hook, short_error(exc), short_traceback(exc))
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
            record_hook_failure(pm, impl.plugin_name, hookname, exc)
            continue
        yield impl.plugin_name, result


def _is_feature_list(result: Any) -> bool:
    return isinstance(result, list | tuple) and all(isinstance(f, Feature) for f in result)


def _is_sequence(result: Any) -> bool:
    return isinstance(result, list | tuple)


def _is_op_impl(result: Any) -> bool:
    return isinstance(result, OpImpl)


RESULT_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "opgraph_compile_features": (_is_feature_list, "a list of Feature instances"),
    "opgraph_op_impl": (_is_op_impl, "an OpImpl(backend, impl) record, or None"),
    "opgraph_pullback": (_is_sequence, "a list with one gradient per input, or None"),
    "opgraph_pushforward": (_is_sequence, "a list with one tangent per output, or None"),
}
"""Per hook, a check of one implementation's (non-None) result and what it expects.

The record hooks (linkers, modes, public modules) are checked record by record
where they are flattened; what an ``OpImpl``'s ``impl`` holds is the backend's to check.
"""


def _checked(pm: pluggy.PluginManager, plugin: str, hookname: str, result: Any) -> bool:
    check = RESULT_CHECKS.get(hookname)
    if check is None or check[0](result):
        return True
    exc = TypeError(f"{hookname} returned {result!r}; expected {check[1]}")
    record_hook_failure(pm, plugin, hookname, exc)
    return False


def call_hook_safely(pm: pluggy.PluginManager | None, hookname: str, /, **kwargs: Any) -> Any:
    """Call a hook with each implementation isolated.

    Collect-all hooks return the list of non-``None`` results; firstresult
    hooks return the first non-``None`` result (or ``None``).  ``pm=None`` uses
    :func:`~opgraph.plugins.loading.current_plugin_manager` (the compiling
    Mode's manager during ``function()``).  A plugin that
    raises, or returns something its hook does not allow (:data:`RESULT_CHECKS`),
    is warned about and recorded against that plugin, and its result ignored
    (raised in strict mode).
    """
    pm = current_plugin_manager() if pm is None else pm
    caller = getattr(pm.hook, hookname, None)
    spec = getattr(caller, "spec", None)
    firstresult = bool(spec is not None and spec.opts.get("firstresult"))
    results = []
    for plugin, result in iter_hook_results(pm, hookname, kwargs):
        if result is None or not _checked(pm, plugin, hookname, result):
            continue
        if firstresult:
            return result
        results.append(result)
    return None if firstresult else results



def find_op_impl(op: Any, backend: str, pm: pluggy.PluginManager | None = None) -> Any:
    """The ``impl`` some plugin gives for ``op`` on ``backend`` (``opgraph_op_impl``), or None.

    A record for another backend is reported against its plugin and ignored,
    so a backend never receives an implementation meant for a different one.
    """
    pm = current_plugin_manager() if pm is None else pm
    for plugin, result in iter_hook_results(pm, "opgraph_op_impl", {"op": op,
                                                                     "backend": backend}):
        if result is None or not _checked(pm, plugin, "opgraph_op_impl", result):
            continue
        if result.backend != backend:
            exc = ValueError(f"opgraph_op_impl(backend={backend!r}) for {op} returned an "
                             f"OpImpl for backend {result.backend!r}")
            record_hook_failure(pm, plugin, "opgraph_op_impl", exc)
            continue
        return result.impl
    return None
