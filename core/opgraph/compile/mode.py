"""Modes: which linker runs a compiled graph and which rewrites prepare it.

Names resolve through a registry made of the core's built-in records plus
every plugin's ``opgraph_modes`` / ``opgraph_linkers`` hook results (a plugin
record of the same name replaces a built-in one).  Strings stay at this
boundary: a Mode carries a linker preference and a rewrite query, and turns
them into a Linker object and a graph rewriter once.

The rewrite seam: :func:`get_rewriter` returns the GraphRewriter for a mode's
query, or None when no rewrite database is installed (then graphs compile
with no rewrites).  The database is found through the plugin hook
``opgraph_rewrite_database`` of the mode's plugin manager (the
``opgraph-rewrites`` plugin provides it); the core names no plugin module.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from opgraph.compile.database import optdb  # noqa: F401 (PyTensor's compile.mode.optdb)
from opgraph.compile.flags import flag
from opgraph.config import config
from opgraph.graph.destroyhandler import DestroyHandler
from opgraph.link.basic import Linker
from opgraph.plugins.loading import current_plugin_manager
from opgraph.plugins.records import LinkerRecord, ModeRecord, load_target
from opgraph.plugins.registry import rewrite_database_record

__all__ = [
    "BACKEND_PLUGINS",
    "BUILTIN_MODES",
    "CVM",
    "FAST_COMPILE",  # noqa: F822 (module __getattr__)
    "FAST_RUN",  # noqa: F822
    "JAX",
    "JAX_EXCLUDE",
    "LINKER_ALIASES",
    "OPT_FAST_COMPILE",
    "OPT_FAST_RUN",
    "OPT_FAST_RUN_STABLE",
    "OPT_MERGE",
    "OPT_MINIMUM",
    "OPT_NONE",
    "OPT_O2",
    "OPT_O3",
    "OPT_STABILIZE",
    "OPT_UNSAFE",
    "PREDEFINED_MODE_TARGETS",
    "VM",
    "AddDestroyHandler",
    "AddFeatureOptimizer",
    "BackendNotInstalledError",
    "C",
    "LinkerUnavailableError",
    "Mode",
    "RewriteQuery",
    "UnknownModeError",
    "available_modes",
    "get_default_mode",
    "get_mode",
    "get_rewriter",
    "predefined_linkers",
    "predefined_modes",
    "predefined_optimizers",
    "register_linker",
    "register_mode",
    "register_optimizer",
    "resolve_linker",
    "warn_link_fallback",
]

_FAST_RUN = "FAST_RUN"
"""The name of the mode with every standard rewrite and the fastest linker (the default)."""
_FAST_COMPILE = "FAST_COMPILE"
"""The name of the mode with few rewrites and the Python linker: quick to compile."""

BUILTIN_MODES: dict[str, ModeRecord] = {
    _FAST_RUN: ModeRecord(
        _FAST_RUN,
        linkers=("c", "vm", "py"),
        include=("fast_run",),
        description="All standard rewrites; the C linker if usable, else the Python VM",
    ),
}
"""Modes the core defines itself; plugins may replace them by declaring the same name."""

PREDEFINED_MODE_TARGETS: dict[str, str] = {
    "DebugMode": "opgraph.compile.debug.debugmode:DebugMode",
    "DEBUG_MODE": "opgraph.compile.debug.debugmode:DebugMode",
    "NanGuardMode": "opgraph.compile.debug.nanguardmode:NanGuardMode",
}
"""Mode classes defined in the compile package's debug modules, as import strings.

They are loaded on first use (``get_mode("DebugMode")``), so importing this
module never imports the debugging machinery.
"""

BACKEND_PLUGINS: dict[str, str] = {
    "JAX": "opgraph-jax",
    "NUMBA": "opgraph-numba",
    "PYTORCH": "opgraph-pytorch",
    "MLX": "opgraph-mlx",
    "jax": "opgraph-jax",
    "numba": "opgraph-numba",
    "pytorch": "opgraph-pytorch",
    "mlx": "opgraph-mlx",
}
"""PyTensor backend modes and linkers that opgraph leaves to separate backend plugins."""

LINKER_ALIASES: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "c|py": (("cvm", "vm"), {}),
    "c|py_nogc": (("cvm", "vm"), {"allow_gc": False}),
    "vm_nogc": (("vm",), {"allow_gc": False}),
    "cvm_nogc": (("cvm",), {"allow_gc": False}),
    "py_nogc": (("py",), {"allow_gc": False}),
    "c_nogc": (("c",), {"allow_gc": False}),
}
"""PyTensor linker names that map onto opgraph linkers (with options)."""

class UnknownModeError(ValueError):
    """A mode name that no built-in record or installed plugin declares."""


class LinkerUnavailableError(ValueError):
    """No linker of a mode's preference list is installed and usable here."""


class BackendNotInstalledError(UnknownModeError):
    """A PyTensor backend mode or linker (JAX, Numba, ...) whose plugin is not installed."""


def _backend_error(name: str, what: str) -> BackendNotInstalledError:
    plugin = BACKEND_PLUGINS[name]
    return BackendNotInstalledError(
        f"{what} {name!r} needs the {plugin} backend plugin, which is not installed: "
        f"opgraph's own backends are the Python linkers (opgraph-numpy) and C "
        f"(opgraph-c). Install a plugin that provides {name!r}, or use mode='FAST_RUN'"
    )


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

    def rewrite(self, fgraph: Any, *args: Any, **kwargs: Any) -> None:
        """Apply this query's rewrites from the database to ``fgraph``, in place.

        PyTensor's ``mode.optimizer`` is a rewriter; PyMC's JAX samplers call
        ``pytensor.compile.mode.JAX.optimizer.rewrite(fgraph)``.
        """
        rewriter = _database_rewriter(self, current_plugin_manager())
        if rewriter is not None:
            rewriter.rewrite(fgraph)


def _merge(old: Sequence[str], new: Iterable[str]) -> tuple[str, ...]:
    for tag in new:
        if not isinstance(tag, str) or not tag:
            raise TypeError(f"rewrite tags must be non-empty strings, got {tag!r}")
    return tuple(dict.fromkeys((*old, *new)))


# -- the registry -------------------------------------------------------------------------


def _manager(pm: Any) -> Any:
    """``pm``, else the manager of the compile in progress, else the global one."""
    return current_plugin_manager() if pm is None else pm


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
            reasons.append(f"linker {name!r} is not available.{_hint(name, pm)}".rstrip("."))
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
    if isinstance(spec, str) and spec in LINKER_ALIASES and spec not in _linker_table(pm):
        names_, options = LINKER_ALIASES[spec]
        base = resolve_linker(names_, pm, mode_name)
        return base.clone(**options) if options else base
    if isinstance(spec, str) and spec in BACKEND_PLUGINS and spec not in _linker_table(pm):
        raise _backend_error(spec, "linker")
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
    if flag("allow_gc") is False and getattr(linker, "allow_gc", False):
        linker = linker.clone(allow_gc=False)  # config.allow_gc=False keeps intermediates
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


OPT_NONE = RewriteQuery()
"""No rewrites."""
OPT_MERGE = RewriteQuery(include=("merge",))
"""Only the merge of equal nodes (PyTensor's ``OPT_MERGE``)."""
OPT_MINIMUM = RewriteQuery(include=("merge", "minimum_compile"))
"""minimum_compile: the merges plus what every graph needs to run (xtensor lowering)."""
OPT_FAST_RUN = RewriteQuery(include=("fast_run",))
"""The rewrite query of FAST_RUN: every rewrite tagged ``fast_run``."""
OPT_FAST_RUN_STABLE = OPT_FAST_RUN.requiring("stable")
"""FAST_RUN's rewrites that are tagged ``stable``."""
OPT_FAST_COMPILE = RewriteQuery(include=("fast_compile",))
"""The rewrite query of FAST_COMPILE: the rewrites tagged ``fast_compile``."""
OPT_STABILIZE = RewriteQuery(include=("fast_run",), exclude=("specialize",))
"""FAST_RUN without the specialize phase: the numerically stabilising rewrites."""
OPT_UNSAFE = RewriteQuery(include=("unsafe",))
"""The rewrites tagged ``unsafe`` (they may drop checks)."""
OPT_O2 = OPT_FAST_COMPILE.including("fusion")
"""FAST_COMPILE plus elementwise fusion (PyTensor's ``O2``)."""
OPT_O3 = OPT_FAST_RUN.excluding("inplace")
"""FAST_RUN without in-place rewrites (PyTensor's ``O3``)."""

predefined_optimizers: dict[str, RewriteQuery | None] = {
    "None": None,
    "unsafe": OPT_UNSAFE,
    "fast_run": OPT_FAST_RUN,
    "fast_run_stable": OPT_FAST_RUN_STABLE,
    "fast_compile": OPT_FAST_COMPILE,
    "merge": OPT_MERGE,
    "minimum_compile": OPT_MINIMUM,
    "stabilize": OPT_STABILIZE,
    "o1": OPT_FAST_COMPILE,
    "o2": OPT_O2,
    "o3": OPT_O3,
    "o4": OPT_FAST_RUN,
}
"""Optimizer names ``Mode(optimizer=...)`` accepts; other names become a one-tag query."""

predefined_linkers: dict[str, Any] = {}
"""Linker objects registered by name with :func:`register_linker` (plugins add theirs
through the ``opgraph_linkers`` hook instead)."""

predefined_modes: dict[str, Mode] = {}
"""Mode objects registered by name with :func:`register_mode`."""


def register_optimizer(name: str, opt: Any) -> None:
    """Make ``Mode(optimizer=name)`` use ``opt`` (a query or a GraphRewriter)."""
    if name in predefined_optimizers:
        raise ValueError(f"optimizer name {name!r} is already registered")
    predefined_optimizers[name] = opt


def register_linker(name: str, linker: Linker) -> None:
    """Make ``Mode(linker=name)`` use ``linker``."""
    if name in predefined_linkers:
        raise ValueError(f"linker name {name!r} is already registered")
    if not isinstance(linker, Linker):
        raise TypeError(f"register_linker({name!r}): expected a Linker, got {linker!r}")
    predefined_linkers[name] = linker


def register_mode(name: str, mode: Mode) -> None:
    """Make ``get_mode(name)`` (and ``function(..., mode=name)``) return ``mode``."""
    if name in predefined_modes:
        raise ValueError(f"mode name {name!r} is already registered")
    if not isinstance(mode, Mode):
        raise TypeError(f"register_mode({name!r}): expected a Mode, got {mode!r}")
    predefined_modes[name] = mode


def _as_optimizer(optimizer: Any) -> Any:
    if isinstance(optimizer, str) and optimizer.lower() == "default":
        optimizer = config.optimizer
    if optimizer is None or optimizer == "None":
        return None
    if isinstance(optimizer, str):
        name = optimizer.lower() if optimizer.lower() in ("default", "o1") else optimizer
        if name == "default":
            name = "fast_run"
        if name in predefined_optimizers:
            return predefined_optimizers[name]
        return RewriteQuery(include=(name,))
    return optimizer


class AddFeatureOptimizer:
    """A graph rewriter whose only job is to attach a Feature to the graph.

    ``Mode.register((AddFeatureOptimizer(feature), position))`` attaches
    ``feature`` (e.g. ``NoOutputFromInplace``) before the rewrites that
    follow ``position`` run.
    """

    def __init__(self, feature: Any) -> None:
        self.feature = feature

    def add_requirements(self, fgraph: Any) -> None:
        fgraph.attach_feature(self.feature)

    def apply(self, fgraph: Any) -> None:
        """Nothing to do: the Feature was attached by ``add_requirements``."""

    def rewrite(self, fgraph: Any, *args: Any, **kwargs: Any) -> None:
        self.add_requirements(fgraph)
        self.apply(fgraph)

    def __repr__(self) -> str:
        return f"AddFeatureOptimizer({self.feature!r})"


class AddDestroyHandler(AddFeatureOptimizer):
    """Attach a DestroyHandler (``function`` does this itself whenever rewrites run)."""

    def __init__(self) -> None:
        super().__init__(None)

    def add_requirements(self, fgraph: Any) -> None:
        if not any(isinstance(f, DestroyHandler) for f in getattr(fgraph, "_features", ())):
            fgraph.attach_feature(DestroyHandler())


EXTRA_BEFORE_POSITION = 50.0
"""Rewriters registered on a Mode below this position run before the database
rewrites, the others after them (the database is one rewriter to the core)."""


def _linker_tag(spec: Any) -> str:
    names = (spec,) if isinstance(spec, str) else tuple(spec) if isinstance(spec, Sequence) else ()
    if names and isinstance(names[0], str) and names[0] in ("c", "cvm", "c|py", "c|py_nogc",
                                                          "cvm_nogc"):
        return "cxx_only"
    return "py_only"


class Mode:
    """How to compile: a linker (name, preference tuple or Linker) and a rewrite query.

    ``Mode(linker="vm", optimizer="fast_run")``; ``optimizer`` is a name
    (``"fast_run"``), a :class:`RewriteQuery`, a database query object, a
    GraphRewriter, or None for no rewrites.  ``linker=None`` takes
    ``config.linker`` (``"auto"``: the FAST_RUN preference).  ``db`` is kept
    as ``optdb`` for code that inspects it.
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
            linker = _configured_linker() or BUILTIN_MODES[_FAST_RUN].linkers
        if isinstance(linker, str) and linker in predefined_linkers:
            linker = predefined_linkers[linker]
        self.linker_spec = linker
        self.provided_linker = linker
        self.provided_optimizer = optimizer
        self.optimizer = _as_optimizer(optimizer)
        self.optdb = db
        self.name = name
        self.plugin_manager = plugin_manager
        self.extra_rewriters: tuple[tuple[Any, float], ...] = ()
        self._linker: Linker | None = None

    @property
    def db(self) -> Any:
        return self.optdb

    @property
    def linker(self) -> Linker:
        """The resolved (unbound) Linker; resolving may warn about a fallback once."""
        if self._linker is None:
            self._linker = resolve_linker(self.linker_spec, self.plugin_manager, self.name)
        return self._linker

    @property
    def linker_name(self) -> str:
        return getattr(self.linker, "name", type(self.linker).__name__)

    @property
    def _optimizer(self) -> Any:
        """The query as PyTensor reports it: plus ``minimum_compile`` and the linker's tag."""
        return self._query().including("minimum_compile", _linker_tag(self.linker_spec))

    @_optimizer.setter
    def _optimizer(self, value: Any) -> None:
        """PyTensor code writes ``mode._optimizer = mode._optimizer.including(...)``."""
        self.optimizer = _as_optimizer(value)

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

    def graph_features(self, fgraph: Any) -> list[Any]:
        """Features to attach to every graph this mode compiles, before rewriting."""
        return []

    def check_rewrites(self, fresh_graph: Any, rewrite: Any, fgraph: Any) -> None:
        """Called after rewriting ``fgraph``; debugging modes re-run and compare."""

    def _copy(self) -> Mode:
        """A shallow copy of this mode, keeping its class, settings and plugin manager.

        (``copy.copy`` would go through ``__getstate__``, which drops the
        process-local plugin manager and resolved linker for pickling.)
        """
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def _with_optimizer(self, optimizer: Any) -> Mode:
        new = self._copy()
        new.optimizer = optimizer
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

    def register(self, *rewriters: tuple[Any, float]) -> Mode:
        """A copy that also runs each ``(rewriter, position)`` pair.

        Positions follow the rewrite database's phases: below
        :data:`EXTRA_BEFORE_POSITION` (50) a rewriter runs before the database
        rewrites (so a Feature it attaches guards them), otherwise after.
        """
        extra = list(self.extra_rewriters)
        for item in rewriters:
            if not (isinstance(item, tuple) and len(item) == 2):
                raise TypeError(
                    f"Mode.register: expected (rewriter, position) pairs, got {item!r}"
                )
            rewriter, position = item
            extra.append((rewriter, float(position)))
        new = self._copy()
        new.extra_rewriters = tuple(sorted(extra, key=lambda p: p[1]))
        return new

    def clone(self, link_kwargs: dict[str, Any] | None = None, optimizer: Any = "",
              **kwargs: Any) -> Mode:
        """A copy, optionally with linker options or another optimizer."""
        new = self._copy()
        if link_kwargs:
            new.linker_spec = self.linker.clone(**link_kwargs)
            new._linker = None
        if optimizer != "":
            new.optimizer = _as_optimizer(optimizer)
            new.provided_optimizer = optimizer
        if "name" in kwargs:
            new.name = kwargs["name"]
        return new

    def __getstate__(self) -> dict[str, Any]:
        # The resolved linker and the plugin manager belong to this process.
        state = dict(self.__dict__)
        state["_linker"] = None
        state["plugin_manager"] = None
        return state

    def __deepcopy__(self, memo: dict) -> Mode:
        # The plugin manager and resolved linker are process-wide services: share them.
        new = self._copy()
        memo[id(self)] = new
        return new

    def __str__(self) -> str:
        linker = self.provided_linker
        linker_text = "|".join(linker) if isinstance(linker, tuple) else str(linker)
        return (f"Mode(linker={linker_text}, optimizer={self.optimizer!r}, "
                f"optdb={self.optdb!r})")

    def __repr__(self) -> str:
        return str(self)


def _configured_linker() -> str | None:
    value = config.linker
    return None if value in ("auto", "", None) else value


def get_mode(mode: Any = None, pm: Any = None) -> Mode:
    """A Mode from a name (``"FAST_RUN"``), a Mode (returned as is), or None (config.mode).

    Names resolve in order: modes registered with :func:`register_mode`, the
    debugging modes (``"DebugMode"``/``"DEBUG_MODE"``, ``"NanGuardMode"``),
    then the built-in and plugin mode records.  PyTensor's backend modes
    (``"JAX"``, ``"NUMBA"``, ...) raise an error naming the plugin needed.
    """
    if isinstance(mode, Mode):
        return mode
    if mode is None:
        mode = config.mode  # a name or, as in PyTensor, a Mode instance
    if isinstance(mode, Mode):
        return mode
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a mode name, a Mode or None, got {mode!r}")
    if mode in predefined_modes:
        return predefined_modes[mode]
    if mode in PREDEFINED_MODE_TARGETS:
        return load_target(PREDEFINED_MODE_TARGETS[mode])()
    pm = _manager(pm)
    table = _mode_table(pm)
    record = table.get(mode)
    if record is None:
        upper = mode.upper()
        record = table.get(upper)
        if record is not None:
            mode = upper
    if record is None and mode.upper() in BACKEND_PLUGINS:
        raise _backend_error(mode, "mode")
    if record is None:
        known = sorted({*table, *PREDEFINED_MODE_TARGETS, *predefined_modes})
        raise UnknownModeError(
            f"unknown mode {mode!r}; available modes: {', '.join(known) or 'none'}."
            f"{_hint(mode, pm)}"
        )
    linkers: Any = _configured_linker() or record.linkers
    query = RewriteQuery(record.include, record.exclude, record.require)
    return Mode(linkers, query, name=record.name, plugin_manager=pm)


def get_default_mode() -> Mode:
    """The Mode named by ``config.mode``."""
    return get_mode(None)


# -- the rewrite seam -----------------------------------------------------------------------


def get_rewriter(mode: Mode) -> Any:
    """The GraphRewriter to run for ``mode``, or None (no rewrites).

    An optimizer that is already a rewriter (has ``rewrite``) is used as is.
    A query goes to the rewrite database ``optdb`` that a plugin of the
    mode's manager provides (hook ``opgraph_rewrite_database``; opgraph-rewrites
    does); with none there is nothing to run.
    """
    opt = mode.optimizer
    if opt is None:
        return None
    if not isinstance(opt, RewriteQuery) and (
            hasattr(opt, "rewrite") or (callable(opt) and not hasattr(opt, "include"))):
        return opt
    return _database_rewriter(opt, _manager(mode.plugin_manager))


def _database_rewriter(opt: Any, pm: Any) -> Any:
    """The rewrite database's rewriter for the query ``opt``, or None without a database."""
    record = rewrite_database_record(pm)
    if record is None:
        return None
    return record.get_rewriter(
        include=tuple(opt.include),
        exclude=tuple(getattr(opt, "exclude", ())),
        require=tuple(getattr(opt, "require", ())),
        pm=pm,
    )


# -- PyTensor's backend mode objects --------------------------------------------------------

JAX_EXCLUDE: tuple[str, ...] = ("cxx_only", "BlasOpt", "blas", "fusion", "inplace",
                                "scan_save_mem_prealloc")
"""Rewrite tags the JAX mode leaves out (XLA fuses and updates buffers itself)."""

JAX = Mode(linker="jax", optimizer=RewriteQuery(include=("fast_run", "jax"), exclude=JAX_EXCLUDE),
           name="JAX")
"""PyTensor's ``compile.mode.JAX``: linker ``"jax"`` from the opgraph-jax plugin, resolved
on first use (without the plugin, using it raises :class:`BackendNotInstalledError`)."""


C = Mode(linker="c", optimizer=OPT_FAST_RUN, name="C")
"""PyTensor's ``compile.mode.C``: the C linker (opgraph-c) with FAST_RUN's rewrites."""
CVM = Mode(linker="cvm", optimizer=OPT_FAST_RUN, name="CVM")
"""PyTensor's ``compile.mode.CVM``: the VM over C thunks with FAST_RUN's rewrites."""
VM = Mode(linker="vm", optimizer=OPT_FAST_RUN, name="VM")
"""PyTensor's ``compile.mode.VM``: the Python VM with FAST_RUN's rewrites (a Mode; PyTensor's
is a one-element tuple by accident)."""


# -- PyTensor's predefined Mode objects ------------------------------------------------------

_PREDEFINED_OBJECTS: dict[str, Mode] = {}
_PREDEFINED_DOCS = {
    _FAST_RUN: "The FAST_RUN Mode: every standard rewrite, the C linker if usable.",
    _FAST_COMPILE: "The FAST_COMPILE Mode: few rewrites and the Python VM, quick to compile.",
}


def __getattr__(name: str) -> Any:
    """``FAST_RUN`` / ``FAST_COMPILE``: Mode objects, as in PyTensor (built on first access).

    Code writes ``mode=compile.mode.FAST_COMPILE`` or
    ``FAST_COMPILE.excluding("canonicalize")``; the object is
    ``get_mode(name)`` of the plugins in use when first read, then kept.
    """
    if name not in (_FAST_RUN, _FAST_COMPILE):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    mode = _PREDEFINED_OBJECTS.get(name)
    if mode is None:
        mode = _PREDEFINED_OBJECTS[name] = get_mode(name)
        mode.__doc__ = _PREDEFINED_DOCS[name]
    return mode
