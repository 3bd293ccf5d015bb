"""PyTensor's ``register_canonicalize``/``register_specialize``/... decorators.

PyTensor code registers its own node rewriters into the standard phases with
these (``@register_specialize`` or ``@register_specialize("tag")``).  They add
the rewriter to the phase database of the current plugin manager's ``optdb``
(built on first use) with the tags the phase's own rewrites carry, so
``mode.including(name)`` and ``mode.excluding(name)`` reach it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opgraph.compile.database import optdb

__all__ = [
    "register_canonicalize",
    "register_specialize",
    "register_stabilize",
    "register_uncanonicalize",
    "register_useless",
]

_PHASE_TAGS: dict[str, tuple[str, ...]] = {
    "canonicalize": ("fast_run", "fast_compile"),
    "stabilize": ("fast_run",),
    "specialize": ("fast_run",),
}


def _register(phases: tuple[str, ...], extra: tuple[str, ...], rewriter: Any,
              tags: tuple[str, ...], kwargs: dict[str, Any]) -> Any:
    if isinstance(rewriter, str):  # @register_x("tag", ...): a decorator with tags

        def decorator(inner: Any) -> Any:
            return _register(phases, extra, inner, (rewriter, *tags), kwargs)

        return decorator
    name = kwargs.pop("name", None) or getattr(rewriter, "name", None) or getattr(
        rewriter, "__name__", None)
    if not name:
        raise TypeError(f"register: {rewriter!r} has no name; pass name=...")
    for phase in phases:
        optdb[phase].register(name, rewriter, *_PHASE_TAGS[phase], *extra, *tags, **kwargs)
    return rewriter


def _make(doc: str, phases: tuple[str, ...], extra: tuple[str, ...] = ()) -> Callable[..., Any]:
    def register(rewriter: Any, *tags: str, **kwargs: Any) -> Any:
        return _register(phases, extra, rewriter, tags, kwargs)

    register.__doc__ = doc
    return register


register_canonicalize = _make("Register a rewriter in the canonicalize phase.", ("canonicalize",))
register_stabilize = _make("Register a rewriter in the stabilize phase.", ("stabilize",))
register_specialize = _make("Register a rewriter in the specialize phase.", ("specialize",))
register_useless = _make(
    "Register a rewriter that removes useless nodes (canonicalize and specialize, tag "
    "'useless').", ("canonicalize", "specialize"), ("useless",))
register_uncanonicalize = _make(
    "Register a rewriter that undoes a canonical form for speed (specialize, tag "
    "'uncanonicalize').", ("specialize",), ("uncanonicalize",))
