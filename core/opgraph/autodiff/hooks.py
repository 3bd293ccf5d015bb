"""Cheap access to the ``opgraph_pullback`` / ``opgraph_pushforward`` plugin hooks.

The drivers ask once per call whether any plugin implements the hook; when
none does (the common case) no hook machinery runs per node.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["hook_caller"]


def hook_caller(hookname: str) -> Callable[..., Any] | None:
    """A function calling ``hookname`` (first non-None wins), or None if no plugin has it."""
    from opgraph.plugins.manager import call_hook_safely, current_plugin_manager

    pm = current_plugin_manager()
    caller = getattr(pm.hook, hookname, None)
    if caller is None or not caller.get_hookimpls():
        return None

    def call(**kwargs: Any) -> Any:
        return call_hook_safely(pm, hookname, **kwargs)

    return call
