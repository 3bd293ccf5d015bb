"""Modes: which linker runs a compiled graph and which rewrites prepare it.

Names resolve through a registry made of the core's built-in records plus
every plugin's ``opgraph_modes`` / ``opgraph_linkers`` hook results (a plugin
record of the same name replaces a built-in one).  Strings stay at this
boundary: a Mode carries a linker preference and a rewrite query, and turns
them into a Linker object and a graph rewriter once.

The rewrite seam: :func:`get_rewriter` returns the GraphRewriter for a mode's
query, or None when no rewrite database is installed (then graphs compile
with no rewrites).  The database lives in the ``opgraph-rewrites`` plugin
(see :data:`REWRITER_FACTORY`).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from opgraph.config import config
from opgraph.link.basic import Linker
from opgraph.plugins.records import LinkerRecord, ModeRecord

__all__ = [
    "BUILTIN_MODES",
    "FAST_COMPILE",
    "FAST_RUN",
    "REWRITER_FACTORY",
    "LinkerUnavailableError",
    "Mode",
    "RewriteQuery",
    "UnknownModeError",
    "available_modes",
    "get_default_mode",
    "get_mode",
    "get_rewriter",
    "resolve_linker",
    "warn_link_fallback",
]

FAST_RUN = "FAST_RUN"
FAST_COMPILE = "FAST_COMPILE"

BUILTIN_MODES: dict[str, ModeRecord] = {
    FAST_RUN: ModeRecord(
        FAST_RUN,
        linkers=("c", "vm", "py"),
        include=("fast_run",),
        description="All standard rewrites; the C linker if usable, else the Python VM",
    ),
}
"""Modes the core defines itself; plugins may replace them by declaring the same name."""

REWRITER_FACTORY = "opgraph_rewrites.registry:get_query_rewriter"
"""Import string of ``f(include, exclude, require, pm=...) -> GraphRewriter``."""

_REWRITES_MODULE = "opgraph_rewrites"


class UnknownModeError(ValueError):
    """A mode name that no built-in record or installed plugin declares."""


class LinkerUnavailableError(ValueError):
    """No linker of a mode's preference list is installed and usable here."""


@attrs.frozen
class RewriteQuery:
    """Rewrite database tags: any of ``include``, all of ``require``, none of ``exclude``."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    require: tuple[str, ...] = ()

    def including(self, *tags: str) -> RewriteQuery:
        return attrs.evolve(self, include=_merge(self.include, tags))

    def excluding(self, *tags: str) -> RewriteQuery:
        return attrs.evolve(self, exclude=_merge(self.exclude, tags))

    def requiring(self, *tags: str) -> RewriteQuery:
        return attrs.evolve(self, require=_merge(self.require, tags))


def _merge(old: Sequence[str], new: Iterable[str]) -> tuple[str, ...]:
    for tag in new:
        if not isinstance(tag, str) or not tag:
            raise TypeError(f"rewrite tags must be non-empty strings, got {tag!r}")
    return tuple(dict.fromkeys((*old, *new)))


# -- the registry -------------------------------------------------------------------------


def _manager(pm: Any) -> Any:
    if pm is not None:
        return pm
    from opgraph.plugins.manager import get_plugin_manager

    return get_plugin_manager()


def _mode_table(pm: Any) -> dict[str, ModeRecord]:
    from opgraph.plugins.manager import mode_records

    return {**BUILTIN_MODES, **mode_records(pm)}


def _linker_table(pm: Any) -> dict[str, LinkerRecord]:
    from opgraph.plugins.manager import linker_records

    return linker_records(pm)


def available_modes(pm: Any = None) -> list[str]:
    """Names ``get_mode`` accepts with the installed plugins."""
    return sorted(_mode_table(_manager(pm)))


def _hint(name: str, pm: Any) -> str:
    from opgraph.plugins.manager import provider_hint

    hint = provider_hint(name, pm)
    return f" {hint}." if hint else ""


# -- linker resolution ----------------------------------------------------------------------

_WARNED: set[tuple[str, str]] = set()
_RESOLVED: dict[tuple[int, tuple[str, ...]], tuple[str, Linker]] = {}
_LOCK = threading.Lock()


def _linker_reasons(names: Sequence[str], pm: Any) -> tuple[str | None, list[str]]:
    """The first usable linker name, and why each one before it was skipped."""
    table = _linker_table(pm)
    reasons: list[str] = []
    for name in names:
        record = table.get(name)
        if record is None:
            reasons.append(f"linker {name!r} is not installed.{_hint(name, pm)}".rstrip("."))
            continue
        reason = record.unavailable_reason()
        if reason is not None:
            reasons.append(f"linker {name!r} cannot run here: {reason}")
            continue
        return name, reasons
    return None, reasons


def resolve_linker(spec: Any, pm: Any = None, mode_name: str | None = None) -> Linker:
    """A fresh unbound Linker for ``spec``: a Linker, a name, or a preference tuple.

    For a preference list the first usable linker wins; when a better one was
    skipped, one warning per process says why.
    """
    if isinstance(spec, Linker):
        return spec
    if isinstance(spec, type) and issubclass(spec, Linker):
        return spec()
    pm = _manager(pm)
    if isinstance(spec, str):
        names: tuple[Any, ...] = (spec,)
    elif isinstance(spec, Sequence):
        names = tuple(spec)
    else:
        names = ()
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError(
            f"a linker must be a Linker instance, a linker name or a sequence of names, "
            f"got {spec!r}"
        )
    key = (id(pm), names)
    cached = _RESOLVED.get(key)
    if cached is None:
        chosen, reasons = _linker_reasons(names, pm)
        label = f"mode {mode_name!r}" if mode_name else "linker"
        if chosen is None:
            installed = ", ".join(sorted(_linker_table(pm))) or "none"
            raise LinkerUnavailableError(
                f"{label}: no usable linker among {list(names)}: " + "; ".join(reasons)
                + f". Installed linkers: {installed}"
            )
        factory = _linker_table(pm)[chosen].load()
        cached = (chosen, factory)
        with _LOCK:
            _RESOLVED[key] = cached
        if reasons and len(names) > 1:
            _warn_fallback(label, names[0], chosen, reasons[0])
    chosen, factory = cached
    linker = factory() if callable(factory) and not isinstance(factory, Linker) else factory
    if not isinstance(linker, Linker) and not hasattr(linker, "accept"):
        raise TypeError(
            f"linker {chosen!r} target produced {linker!r}, which is not a Linker "
            "(it needs accept() and make_thunk())"
        )
    if not config.allow_gc and getattr(linker, "allow_gc", False):
        linker = linker.clone(allow_gc=False)  # config.allow_gc=False: a linker named keeps all
    return linker


def _warn_fallback(label: str, wanted: str, chosen: str, reason: str) -> None:
    key = (label, reason)
    if key in _WARNED:
        return
    _WARNED.add(key)
    warnings.warn(
        f"{label}: {reason}; falling back to linker {chosen!r} (slower). "
        f"Install the missing plugin/compiler, or select mode='FAST_COMPILE' or "
        f"linker={chosen!r} explicitly to silence this warning.",
        UserWarning,
        stacklevel=4,
    )


def warn_link_fallback(mode_name: str | None, failed: str, chosen: Linker,
                       exc: BaseException) -> None:
    """The one warning for a graph one linker failed to build and the next one runs.

    Gives the reason (the first lines of the error) and the file that keeps
    the backend's full output (``exc.log_path``), when there is one.
    """
    label = f"mode {mode_name!r}" if mode_name else "function()"
    text = str(exc).strip()
    lines = text.splitlines()
    reason = "\n".join(lines[:12]) + ("\n..." if len(lines) > 12 else "")
    log = getattr(exc, "log_path", None)
    where = f"; full output kept in {log}" if log and log not in reason else ""
    name = getattr(chosen, "name", "") or type(chosen).__name__
    warnings.warn(
        f"{label}: linker {failed!r} could not build this graph ({reason}){where}. "
        f"Running it with linker {name!r} instead (slower).",
        UserWarning,
        stacklevel=5,
    )


def reset_caches() -> None:
    """Forget resolved linkers and emitted warnings (tests)."""
    with _LOCK:
        _RESOLVED.clear()
        _WARNED.clear()


# -- Mode ---------------------------------------------------------------------------------


# PyTensor's optimizer levels (config.optimizer) as rewrite tags; o2/o3 run as fast_run.
_OPTIMIZER_TAGS = {"o4": ("fast_run",), "o3": ("fast_run",), "o2": ("fast_run",),
                   "o1": ("fast_compile",), "unsafe": ("fast_run", "unsafe")}


def _as_optimizer(optimizer: Any) -> Any:
    if isinstance(optimizer, str) and optimizer.lower() == "default":
        optimizer = config.optimizer
    if optimizer is None or optimizer == "None":
        return None
    if isinstance(optimizer, str):
        name = optimizer.lower()
        return RewriteQuery(include=_OPTIMIZER_TAGS.get(name, (name,)))
    return optimizer


class Mode:
    """How to compile: a linker (name, preference tuple or Linker) and a rewrite query.

    ``Mode(linker="vm", optimizer="fast_run")``; ``optimizer`` is a tag
    (``"fast_run"``), a :class:`RewriteQuery`, a database query object, a
    GraphRewriter, or None for no rewrites.  ``linker=None`` takes
    ``config.linker`` (``"auto"``: the FAST_RUN preference).
    """

    def __init__(
        self,
        linker: Any = None,
        optimizer: Any = "default",
        db: Any = None,
        name: str | None = None,
        *,
        plugin_manager: Any = None,
    ) -> None:
        if linker is None:
            linker = _configured_linker() or BUILTIN_MODES[FAST_RUN].linkers
        self.linker_spec = linker
        self.optimizer = _as_optimizer(optimizer)
        self.db = db
        self.name = name
        self.plugin_manager = plugin_manager
        self._linker: Linker | None = None

    @property
    def linker(self) -> Linker:
        """The resolved (unbound) Linker; resolving may warn about a fallback once."""
        if self._linker is None:
            self._linker = resolve_linker(self.linker_spec, self.plugin_manager, self.name)
        return self._linker

    @property
    def linker_name(self) -> str:
        return getattr(self.linker, "name", type(self.linker).__name__)

    def fallback_linker(self, failed: str) -> Linker | None:
        """The linker to use when linker ``failed`` cannot build a graph, or None.

        Only a preference tuple has a fallback: the usable linker listed after
        ``failed``.  A mode naming one linker (``"c"``, or a Linker object)
        has none, so the caller re-raises the error.
        """
        spec = self.linker_spec
        if isinstance(spec, str | Linker) or not isinstance(spec, Sequence):
            return None
        names = tuple(spec)
        if failed not in names:
            return None
        rest = names[names.index(failed) + 1:]
        if not rest:
            return None
        try:
            return resolve_linker(rest, self.plugin_manager, self.name)
        except LinkerUnavailableError:
            return None

    def _with_optimizer(self, optimizer: Any) -> Mode:
        new = Mode(self.linker_spec, None, self.db, self.name, plugin_manager=self.plugin_manager)
        new.optimizer = optimizer
        new._linker = self._linker
        return new

    def _query(self) -> Any:
        opt = self.optimizer
        if opt is None:
            return RewriteQuery()
        if not all(hasattr(opt, m) for m in ("including", "excluding", "requiring")):
            raise TypeError(
                f"mode optimizer {opt!r} is not a query: including/excluding/requiring "
                "need a RewriteQuery or a rewrite database query"
            )
        return opt

    def including(self, *tags: str) -> Mode:
        """A copy whose rewrite query also includes ``tags``."""
        return self._with_optimizer(self._query().including(*tags))

    def excluding(self, *tags: str) -> Mode:
        """A copy whose rewrite query excludes ``tags``."""
        return self._with_optimizer(self._query().excluding(*tags))

    def requiring(self, *tags: str) -> Mode:
        """A copy whose rewrite query requires ``tags``."""
        return self._with_optimizer(self._query().requiring(*tags))

    def clone(self, link_kwargs: dict[str, Any] | None = None, optimizer: Any = "",
              **kwargs: Any) -> Mode:
        """A copy, optionally with linker options or another optimizer."""
        spec = self.linker_spec
        if link_kwargs:
            spec = self.linker.clone(**link_kwargs)
        new = Mode(spec, None, self.db, kwargs.get("name", self.name),
                   plugin_manager=self.plugin_manager)
        new.optimizer = self.optimizer if optimizer == "" else _as_optimizer(optimizer)
        return new

    def __repr__(self) -> str:
        linker = self._linker if self._linker is not None else self.linker_spec
        return f"Mode(name={self.name!r}, linker={linker!r}, optimizer={self.optimizer!r})"


def _configured_linker() -> str | None:
    from opgraph.config import config

    value = config.linker
    return None if value in ("auto", "", None) else value


def get_mode(mode: Any = None, pm: Any = None) -> Mode:
    """A Mode from a name (``"FAST_RUN"``), a Mode (returned as is), or None (config.mode)."""
    if mode is None:
        mode = config.mode  # a name or, as in PyTensor, a Mode instance
    if isinstance(mode, Mode):
        return mode
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a mode name, a Mode or None, got {mode!r}")
    pm = _manager(pm)
    table = _mode_table(pm)
    record = table.get(mode)
    if record is None:
        upper = mode.upper()
        record = table.get(upper)
        if record is not None:
            mode = upper
    if record is None:
        raise UnknownModeError(
            f"unknown mode {mode!r}; available modes: {', '.join(sorted(table)) or 'none'}."
            f"{_hint(mode, pm)}"
        )
    linkers: Any = _configured_linker() or record.linkers
    query = RewriteQuery(record.include, record.exclude, record.require)
    return Mode(linkers, query, name=record.name, plugin_manager=pm)


def get_default_mode() -> Mode:
    """The Mode named by ``config.mode``."""
    return get_mode(None)


# -- the rewrite seam -----------------------------------------------------------------------


def _rewrites_installed(pm: Any) -> bool:
    for plugin in pm.get_plugins():
        module = getattr(plugin, "__name__", "") or type(plugin).__module__
        if module.split(".")[0] == _REWRITES_MODULE:
            return True
    return False


def get_rewriter(mode: Mode) -> Any:
    """The GraphRewriter to run for ``mode``, or None (no rewrites).

    An optimizer that is already a rewriter (has ``rewrite``) is used as is.
    A query goes to the rewrite database of the ``opgraph-rewrites`` plugin
    (:data:`REWRITER_FACTORY`) when that plugin is registered with the
    mode's plugin manager; otherwise there is nothing to run.
    """
    opt = mode.optimizer
    if opt is None:
        return None
    if hasattr(opt, "rewrite") or (callable(opt) and not hasattr(opt, "include")):
        return opt
    pm = _manager(mode.plugin_manager)
    if not _rewrites_installed(pm):
        return None
    from opgraph.plugins.records import TargetLoadError, load_target

    try:
        factory = load_target(REWRITER_FACTORY)
    except TargetLoadError:
        return None
    return factory(
        include=tuple(opt.include),
        exclude=tuple(getattr(opt, "exclude", ())),
        require=tuple(getattr(opt, "require", ())),
        pm=pm,
    )
