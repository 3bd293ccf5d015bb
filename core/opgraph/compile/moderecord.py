"""``Mode``: an immutable record of how to compile a graph.

A Mode holds a linker preference (a name, a tuple of names, or a Linker), a
rewrite query (or rewriter, or None), the extra rewriters it runs by named
phase, its name and the plugin manager its names resolve in.  Every method
that "changes" a mode (``including``, ``excluding``, ``requiring``,
``register``, ``clone``) returns a new one; assigning a field raises
``attrs.exceptions.FrozenInstanceError``.  Two PyTensor habits stay
allowed: ``mode._optimizer = query`` (replaces the query, as PyTensor code
does on its own copy) and setting attributes that are not fields
(``mode.check_isfinite = False``; the debugging modes keep their settings
so).  Strings meet objects once: ``mode.linker`` resolves the preference
through :mod:`opgraph.compile.linkers`, and ``get_rewriter(mode)``
(:mod:`opgraph.compile.query`) finds the rewrites.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import attrs

from opgraph.compile.linkers import (
    NAMED_LINKERS,
    LinkerUnavailableError,
    resolve_linker,
)
from opgraph.compile.query import RewriteQuery, as_optimizer
from opgraph.config import config
from opgraph.link.basic import Linker

__all__ = [
    "EXTRA_PHASES",
    "FAST_RUN_LINKERS",
    "FrozenModeError",
    "Mode",
    "configured_linker",
    "extra_phase",
]

FAST_RUN_LINKERS: tuple[str, ...] = ("c", "vm", "py")
"""The linker preference of FAST_RUN, and of a Mode built with ``linker=None``."""

EXTRA_PHASES: tuple[str, ...] = ("before_rewrites", "after_rewrites")
"""Where a rewriter added with :meth:`Mode.register` runs: before the database
rewrites (a Feature it attaches guards them) or after them."""

_PYTENSOR_SPLIT = 50.0
"""PyTensor ``Mode.register`` positions below this run before the database rewrites."""


def extra_phase(position: Any) -> str:
    """The named phase of a ``Mode.register`` position: a phase name or PyTensor's float."""
    if isinstance(position, str):
        if position not in EXTRA_PHASES:
            raise ValueError(
                f"Mode.register: unknown phase {position!r}; expected one of {EXTRA_PHASES} "
                "or a PyTensor float position"
            )
        return position
    if isinstance(position, bool) or not isinstance(position, int | float):
        raise TypeError(f"Mode.register: a position is a phase name or a number, "
                        f"got {position!r}")
    return EXTRA_PHASES[0] if float(position) < _PYTENSOR_SPLIT else EXTRA_PHASES[1]


def configured_linker() -> str | None:
    """The ``linker`` flag, or None when it says ``auto`` (the mode's own preference)."""
    value = config.linker
    return None if value in ("auto", "", None) else value


_C_LINKERS = ("c", "cvm", "c|py", "c|py_nogc", "cvm_nogc")


def _linker_tag(spec: Any) -> str:
    names = (spec,) if isinstance(spec, str) else tuple(spec) if isinstance(spec, Sequence) else ()
    return "cxx_only" if names and names[0] in _C_LINKERS else "py_only"


@attrs.frozen(init=False, eq=False, repr=False, slots=False)
class Mode:
    """How to compile: a linker (name, preference tuple or Linker) and a rewrite query.

    ``Mode(linker="vm", optimizer="fast_run")``; ``optimizer`` is a name
    (``"fast_run"``), a :class:`RewriteQuery`, a database query object, a
    GraphRewriter, or None for no rewrites.  ``linker=None`` takes
    ``config.linker`` (``"auto"``: the FAST_RUN preference).  ``db`` is kept
    as ``optdb`` for code that inspects it.
    """

    linker_spec: Any
    optimizer: Any
    provided_optimizer: Any
    extra_rewriters: tuple[tuple[str, Any], ...]
    name: str | None
    plugin_manager: Any
    optdb: Any

    def __init__(self, linker: Any = None, optimizer: Any = "default", db: Any = None,
                 name: str | None = None, *, plugin_manager: Any = None) -> None:
        if linker is None:
            linker = configured_linker() or FAST_RUN_LINKERS
        if isinstance(linker, str) and linker in NAMED_LINKERS:
            linker = NAMED_LINKERS[linker]
        self.__attrs_init__(linker, as_optimizer(optimizer, config.optimizer), optimizer, (),
                            name, plugin_manager, db)

    # -- derived values ------------------------------------------------------------------
    @functools.cached_property
    def linker(self) -> Linker:
        """The resolved (unbound) Linker; resolving may warn about a fallback once."""
        return resolve_linker(self.linker_spec, self.plugin_manager, self.name)

    @property
    def provided_linker(self) -> Any:
        return self.linker_spec

    @property
    def db(self) -> Any:
        return self.optdb

    @property
    def linker_name(self) -> str:
        return getattr(self.linker, "name", type(self.linker).__name__)

    @property
    def _optimizer(self) -> Any:
        """The query as PyTensor reports it: plus ``minimum_compile`` and the linker's tag."""
        return self._query().including("minimum_compile", _linker_tag(self.linker_spec))

    def rewriters_in(self, phase: str) -> list[Any]:
        """The rewriters added with :meth:`register` that run in ``phase``, in order."""
        return [rw for ph, rw in self.extra_rewriters if ph == phase]

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
        if failed not in names or names[-1] == failed:
            return None
        try:
            return resolve_linker(names[names.index(failed) + 1:], self.plugin_manager,
                                  self.name)
        except LinkerUnavailableError:
            return None

    def graph_features(self, fgraph: Any) -> list[Any]:
        """Features to attach to every graph this mode compiles, before rewriting."""
        return []

    def check_rewrites(self, fresh_graph: Any, rewrite: Any, fgraph: Any) -> None:
        """Called after rewriting ``fgraph``; debugging modes re-run and compare."""

    # -- new modes -----------------------------------------------------------------------
    def evolve(self, **changes: Any) -> Mode:
        """A copy with ``changes`` to its fields, keeping its class and other settings.

        (``attrs.evolve`` would call a subclass's ``__init__``, whose signature
        is its own; the copy keeps what a subclass set, e.g. DebugMode's checks.)
        """
        unknown = set(changes) - {f.name for f in attrs.fields(Mode)}
        if unknown:
            raise TypeError(f"Mode.evolve: {sorted(unknown)} are not Mode fields")
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        if changes.keys() & {"linker_spec", "plugin_manager"}:
            new.__dict__.pop("linker", None)  # resolve again
        new.__dict__.update(changes)
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

    def _with_query(self, query: Any) -> Mode:
        # the new query is also what the copy was given (PyTensor's clone): PyMC builds
        # its mode from ``mode.provided_optimizer``, which must keep these changes
        return self.evolve(optimizer=query, provided_optimizer=query)

    def including(self, *tags: str) -> Mode:
        """A copy whose rewrite query also includes ``tags``."""
        return self._with_query(self._query().including(*tags))

    def excluding(self, *tags: str) -> Mode:
        """A copy whose rewrite query excludes ``tags``."""
        return self._with_query(self._query().excluding(*tags))

    def requiring(self, *tags: str) -> Mode:
        """A copy whose rewrite query requires ``tags``."""
        return self._with_query(self._query().requiring(*tags))

    def register(self, *rewriters: tuple[Any, Any]) -> Mode:
        """A copy that also runs each ``(rewriter, phase)`` pair.

        ``phase`` is one of :data:`EXTRA_PHASES` or a PyTensor float position
        (below 50: before the database rewrites, otherwise after them).
        Rewriters of one phase run in the order they were registered.
        """
        extra = list(self.extra_rewriters)
        for item in rewriters:
            if not (isinstance(item, tuple) and len(item) == 2):
                raise TypeError(
                    f"Mode.register: expected (rewriter, position) pairs, got {item!r}"
                )
            extra.append((extra_phase(item[1]), item[0]))
        return self.evolve(extra_rewriters=tuple(extra))

    def clone(self, link_kwargs: dict[str, Any] | None = None, optimizer: Any = "",
              **kwargs: Any) -> Mode:
        """A copy, optionally with linker options, another optimizer, name or manager."""
        changes: dict[str, Any] = {}
        if link_kwargs:
            changes["linker_spec"] = self.linker.clone(**link_kwargs)
        if optimizer != "":
            changes["optimizer"] = as_optimizer(optimizer, config.optimizer)
            changes["provided_optimizer"] = optimizer
        for key in ("name", "plugin_manager"):
            if key in kwargs:
                changes[key] = kwargs[key]
        return self.evolve(**changes)

    # -- copying and pickling ------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        # The resolved linker and the plugin manager belong to this process.
        state = dict(self.__dict__)
        state.pop("linker", None)
        state["plugin_manager"] = None
        return state

    def __deepcopy__(self, memo: dict) -> Mode:
        # The plugin manager and resolved linker are process-wide services: share them.
        new = self.evolve()
        memo[id(self)] = new
        return new

    def __str__(self) -> str:
        linker = self.provided_linker
        linker_text = "|".join(linker) if isinstance(linker, tuple) else str(linker)
        return (f"Mode(linker={linker_text}, optimizer={self.optimizer!r}, "
                f"optdb={self.optdb!r})")

    def __repr__(self) -> str:
        return str(self)


class FrozenModeError(attrs.exceptions.FrozenInstanceError):
    """Assigning a field of a Mode (an ``attrs`` FrozenInstanceError naming the way out)."""

    def __init__(self, name: str) -> None:
        self.msg = (f"Mode.{name} cannot be assigned: a Mode is immutable; use "
                    f"mode.clone(...), mode.including(...) or mode.evolve({name}=...) "
                    "for a changed copy")
        AttributeError.__init__(self, self.msg)


_FIELDS = frozenset(f.name for f in attrs.fields(Mode))


def _setattr(self: Mode, name: str, value: Any) -> None:
    """Fields are frozen; ``_optimizer`` and non-field attributes are PyTensor's habits."""
    if name == "_optimizer":
        object.__setattr__(self, "optimizer", as_optimizer(value, config.optimizer))
    elif name in _FIELDS or name == "linker":
        raise FrozenModeError(name)
    else:
        object.__setattr__(self, name, value)


Mode.__setattr__ = _setattr  # type: ignore[method-assign]
