"""Rewrite databases: named entries with tags and phases, selected by queries.

A query (include, exclude, require tags) picks entries; a database turns the
picked entries into one rewriter: a SequenceDB into a SequentialGraphRewriter
ordered by named phase (:mod:`opgraph.plugins.phases`; a database without
phases orders by PyTensor's float ``position=``), an EquilibriumDB into an
EquilibriumGraphRewriter, a LocalGroupDB into one SequentialNodeRewriter.
Databases nest: an entry that is a database is queried in turn with the same
query (or its subquery).
TopoDB wraps a database's result in a WalkingGraphRewriter; ProxyDB lets one
database be registered at several places.

Names and tags share one namespace per database, as in PyTensor: a name may
not repeat (unless ``overwrite_existing=True``) nor equal a tag in use, and a
tag may not equal a name.  A name registered twice is an error naming both
registrations; while the database is built from the plugins' hooks
(:func:`collecting_duplicates`) the duplicates are collected, every other
registration still happens, and the builder raises once with all of them.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from opgraph.graph.rewriting.basic import (
    GraphRewriter,
    NodeRewriter,
    Rewriter,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
)
from opgraph.graph.rewriting.walking import EquilibriumGraphRewriter, WalkingGraphRewriter
from opgraph.graph.utils import type_name
from opgraph.plugins import Phase, PhaseError, order_entries, order_phases, phase_for_position

__all__ = [
    "DuplicateRewriteError",
    "EquilibriumDB",
    "LocalGroupDB",
    "ProxyDB",
    "RewriteDatabase",
    "RewriteDatabaseQuery",
    "SequenceDB",
    "TopoDB",
    "collecting_duplicates",
]

_DEFAULT = object()
_PHASE_ONLY: Any = object()  # register(..., phase=...): no float position


def _tags(value: Any, what: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, str):
        value = (value,)
    out = []
    for t in value:
        if t is None:  # PyTensor's include=[None]: a tag no rewrite has
            continue
        if not isinstance(t, str) or not t:
            raise TypeError(
                f"RewriteDatabaseQuery {what}: tags must be non-empty strings, got {t!r}"
            )
        out.append(t)
    return frozenset(out)


@attrs.define(unsafe_hash=True)
class RewriteDatabaseQuery:
    """Which entries to take: any tag of ``include``, all of ``require``, none of ``exclude``.

    ``subquery`` maps a nested database's name to the query used inside it;
    ``position_cutoff`` drops SequenceDB entries at or after that position.
    Attributes may be set (PyTensor code sets ``q.position_cutoff = 1.51``);
    the hash follows the current values, so a changed query never hits the
    cache entry of its old value.
    """

    include: frozenset[str] = attrs.field(converter=lambda v: _tags(v, "include"))
    require: frozenset[str] = attrs.field(default=(), converter=lambda v: _tags(v, "require"))
    exclude: frozenset[str] = attrs.field(default=(), converter=lambda v: _tags(v, "exclude"))
    subquery: Mapping[str, RewriteDatabaseQuery] = attrs.field(
        default=attrs.Factory(dict), eq=False, hash=False
    )
    position_cutoff: float = math.inf
    extra_rewrites: tuple[Any, ...] = attrs.field(default=(), converter=tuple, eq=False,
                                                  hash=False)

    def including(self, *tags: str) -> RewriteDatabaseQuery:
        return attrs.evolve(self, include=self.include | _tags(tags, "include"))

    def excluding(self, *tags: str) -> RewriteDatabaseQuery:
        return attrs.evolve(self, exclude=self.exclude | _tags(tags, "exclude"))

    def requiring(self, *tags: str) -> RewriteDatabaseQuery:
        return attrs.evolve(self, require=self.require | _tags(tags, "require"))

    def register(self, *rewriters: Any) -> RewriteDatabaseQuery:
        """A query that also runs ``rewriters`` (appended at the end)."""
        return attrs.evolve(self, extra_rewrites=(*self.extra_rewrites, *rewriters))

    def __str__(self) -> str:
        parts = [f"include={sorted(self.include)}"]
        if self.require:
            parts.append(f"require={sorted(self.require)}")
        if self.exclude:
            parts.append(f"exclude={sorted(self.exclude)}")
        return f"RewriteDatabaseQuery({', '.join(parts)})"


class DuplicateRewriteError(ValueError):
    """A rewrite name registered twice; the message names both registrations."""


_HERE = os.path.normcase(os.path.abspath(__file__))
_COLLECTOR: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "opgraph_rewrite_duplicates", default=None
)


@contextlib.contextmanager
def collecting_duplicates() -> Iterator[list[str]]:
    """Within the block, a duplicate name is recorded (message in the list), not raised.

    The builder of a database from several plugins uses it so that one
    plugin's duplicate does not stop the rest of its registrations; it raises
    :class:`DuplicateRewriteError` afterwards if the list is not empty.
    """
    found: list[str] = []
    token = _COLLECTOR.set(found)
    try:
        yield found
    finally:
        _COLLECTOR.reset(token)


def _registration_site() -> str:
    """``file:line`` of the code that called ``register`` (outside this module)."""
    frame = sys._getframe(1)
    while frame is not None and os.path.normcase(frame.f_code.co_filename) == _HERE:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return "<unknown>"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


@attrs.define(eq=False)
class _Entry:
    name: str
    rewriter: Any
    tags: set[str]
    position: float | None = 0.0  # None: placed by ``phase`` alone
    final: bool = False
    cleanup: bool = False
    phase: str | None = None
    origin: str = "<unknown>"
    after: tuple[str, ...] = ()  # entries of the same phase this one runs after
    before: tuple[str, ...] = ()


class RewriteDatabase:
    """Named rewriters with tags; ``query`` returns the matching ones."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name
        self._entries: dict[str, _Entry] = {}
        self._cache: dict[RewriteDatabaseQuery, Any] = {}

    # -- registration -----------------------------------------------------------------
    def register(
        self,
        name: str,
        rewriter: Any,
        *tags: str,
        use_db_name_as_tag: bool = True,
        overwrite_existing: bool = False,
        position: float | str | None = None,
        **kwargs: Any,
    ) -> Any:
        """Add ``rewriter`` under ``name`` with ``tags``; returns the rewriter.

        ``use_db_name_as_tag`` also tags it with this database's name;
        ``overwrite_existing`` replaces an entry of the same name.
        """
        if not isinstance(name, str) or not name:
            raise TypeError(f"register: name must be a non-empty string, got {name!r}")
        if not isinstance(rewriter, Rewriter | RewriteDatabase):
            raise TypeError(
                f"{rewriter!r:.80} is not a valid rewrite type: register({name!r}) expects a "
                f"NodeRewriter, GraphRewriter or RewriteDatabase, got {type_name(rewriter)}"
            )
        for t in tags:
            try:
                hash(t)
            except TypeError:
                raise TypeError(f"register({name!r}): tags must be hashable, got {t!r}") from None
            if t is None or t == "":
                raise TypeError(f"register({name!r}): a tag may not be empty, got {t!r}")
        origin = _registration_site()
        if name in self._entries and not overwrite_existing:
            message = (
                f"The tag '{name}' is already present in the database {self._label()}: "
                f"registered at {self._entries[name].origin} and again at {origin} "
                "(pass overwrite_existing=True to replace it)"
            )
            collector = _COLLECTOR.get()
            if collector is None:
                raise DuplicateRewriteError(message)
            collector.append(message)
            return rewriter
        if name not in self._entries and name in self._tags_in_use():
            raise ValueError(
                f"The tag '{name}' is already present in the database {self._label()} "
                "(a tag of another entry): a name must differ from every tag"
            )
        for t in tags:
            if t in self._entries and t != name:
                raise ValueError(
                    f"The tag '{t}' for {name!r} collides with an existing name in "
                    f"{self._label()}"
                )
        all_tags = {name, *tags}
        if use_db_name_as_tag and self.name:
            all_tags.add(self.name)
        if getattr(rewriter, "name", None) in (None, "") and not isinstance(
            rewriter, RewriteDatabase
        ):
            try:
                rewriter.name = name
            except AttributeError:
                pass
        entry = _Entry(name, rewriter, all_tags, self._position(position), origin=origin,
                       **kwargs)
        self._entries[name] = entry
        self._cache.clear()
        return rewriter

    def _tags_in_use(self) -> set[str]:
        return {t for e in self._entries.values() for t in e.tags}

    @property
    def _names(self) -> set[str]:
        """The registered names (PyTensor's attribute)."""
        return set(self._entries)

    def _position(self, position: float | str | None) -> float:
        return 0.0 if position is None or position == "last" else float(position)

    def _label(self) -> str:
        return f"{type(self).__name__} {self.name!r}" if self.name else type(self).__name__

    def add_tags(self, name: str, *tags: str) -> None:
        self._entry(name).tags.update(tags)
        self._invalidate()

    def remove_tags(self, name: str, *tags: str) -> None:
        self._entry(name).tags.difference_update(tags)
        self._invalidate()

    def _invalidate(self) -> None:
        self._cache.clear()

    def _entry(self, name: str) -> _Entry:
        try:
            return self._entries[name]
        except KeyError:
            raise KeyError(
                f"{self._label()} has no entry {name!r}; entries: {sorted(self._entries)}"
            ) from None

    def __getitem__(self, name: str) -> Any:
        return self._entry(name).rewriter

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Any:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def tags_of(self, name: str) -> frozenset[str]:
        return frozenset(self._entry(name).tags)

    # -- querying ---------------------------------------------------------------------
    def _selected(self, q: RewriteDatabaseQuery) -> list[_Entry]:
        out = []
        for e in self._entries.values():
            if q.exclude & e.tags:
                continue
            if not q.require <= e.tags and not isinstance(e.rewriter, RewriteDatabase):
                continue
            if not (q.include & e.tags):
                continue
            out.append(e)
        return out

    def _resolve(self, e: _Entry, q: RewriteDatabaseQuery) -> Any:
        if isinstance(e.rewriter, RewriteDatabase):
            sub = q.subquery.get(e.name, q)
            return e.rewriter.query(sub)
        return e.rewriter

    def query(self, *tags: Any, **kwtags: Any) -> Any:
        """Rewriters matching a query (a RewriteDatabaseQuery or tags: "+a", "-b", "&c")."""
        q = self._as_query(tags, kwtags)
        if q.subquery or q.extra_rewrites:  # not part of the cache key
            return self.__query__(q)
        try:
            return self._cache[q]
        except KeyError:
            pass
        except TypeError:
            return self.__query__(q)
        result = self._cache[attrs.evolve(q)] = self.__query__(q)  # a copy: q may change
        return result

    def __query__(self, q: RewriteDatabaseQuery) -> Any:
        return {self._resolve(e, q) for e in self._selected(q)}

    @staticmethod
    def _as_query(tags: Sequence[Any], kwtags: Mapping[str, Any]) -> RewriteDatabaseQuery:
        if len(tags) == 1 and isinstance(tags[0], RewriteDatabaseQuery) and not kwtags:
            return tags[0]
        include, exclude, require = [], [], []
        for t in tags:
            if not isinstance(t, str):
                raise TypeError(
                    f"query: expected tag strings or one RewriteDatabaseQuery, got {t!r}"
                )
            if t.startswith("-"):
                exclude.append(t[1:])
            elif t.startswith("&"):
                require.append(t[1:])
            else:
                include.append(t.removeprefix("+"))
        return RewriteDatabaseQuery(
            include=(*include, *kwtags.pop("include", ())),
            exclude=(*exclude, *kwtags.pop("exclude", ())),
            require=(*require, *kwtags.pop("require", ())),
            **kwtags,
        )

    def print_summary(self, stream: Any = None) -> None:
        """The database's class, id, names and each entry's position and tags."""
        stream = stream or sys.stdout
        label = f" {self.name!r}" if self.name else ""
        print(f"{type(self).__name__}{label} (id {id(self)})", file=stream)
        print(f"  names {self._names or '{}'}", file=stream)
        for e in sorted(self._entries.values(), key=lambda e: (e.position, e.name)):
            print(f"  {e.position:8.3f}  {e.name}  tags={sorted(e.tags - {e.name})}", file=stream)


def _entry_names(name: str, value: Iterable[str] | str) -> tuple[str, ...]:
    names = (value,) if isinstance(value, str) else tuple(value)
    for other in names:
        if not isinstance(other, str) or not other:
            raise TypeError(f"register({name!r}): after/before name entries, got {other!r}")
    return names


class SequenceDB(RewriteDatabase):
    """Entries run phase by phase; within a phase by position, then registration order.

    A SequenceDB without phases orders by the float ``position`` alone (as in
    PyTensor).  With phases (:meth:`add_phase`; the standard ``optdb`` has
    :data:`~opgraph.plugins.phases.STANDARD_PHASES`), ``register(...,
    phase="fusion")`` places an entry by name and a float ``position`` falls in
    the phase whose anchor it reaches.  ``SequenceDB(failure_callback=...)`` as
    in PyTensor; ``name=`` (or a string as the only argument) names it.
    """

    def __init__(self, failure_callback: Any = _DEFAULT, name: str | None = None,
                 phases: Iterable[Phase] = ()) -> None:
        if isinstance(failure_callback, str) and name is None:  # SequenceDB("name")
            failure_callback, name = _DEFAULT, failure_callback
        super().__init__(name)
        self.failure_callback = None if failure_callback is _DEFAULT else failure_callback
        self._phases: list[Phase] = []
        self._ordered: list[Phase] | None = None
        for phase in phases:
            self.add_phase(phase)

    # -- phases -----------------------------------------------------------------------
    def add_phase(self, phase: Phase | str, *, after: Iterable[str] | str = (),
                  before: Iterable[str] | str = (), description: str = "") -> Phase:
        """Declare a phase (a :class:`Phase` or a name with ``after``/``before``).

        Constraints may name phases declared later; they are checked (unknown
        names, cycles) when the order is first needed (:meth:`check`).
        """
        if not isinstance(phase, Phase):
            phase = Phase(phase, after=after, before=before, description=description)
        if any(p.name == phase.name for p in self._phases):
            raise PhaseError(f"{self._label()} already has a phase {phase.name!r}")
        self._phases.append(phase)
        self._invalidate()
        return phase

    @property
    def phases(self) -> list[Phase]:
        """The phases in run order (raises PhaseError/PhaseCycleError if unorderable)."""
        if self._ordered is None:
            self._ordered = order_phases(self._phases)
        return list(self._ordered)

    def _invalidate(self) -> None:
        super()._invalidate()
        self._ordered = None

    def _phase_of(self, e: _Entry, ordered: Sequence[Phase]) -> Phase:
        if e.phase is None:
            return phase_for_position(ordered, e.position)  # type: ignore[arg-type]
        for phase in ordered:
            if phase.name == e.phase:
                return phase
        raise PhaseError(
            f"rewrite {e.name!r} (registered at {e.origin}) names phase {e.phase!r}, which "
            f"{self._label()} does not have; phases: {', '.join(p.name for p in ordered)}"
        )

    def check(self) -> None:
        """Order the phases and place every entry; raise the first problem found."""
        ordered = self.phases
        for e in self._entries.values():
            if ordered or e.phase is not None:
                self._phase_of(e, ordered)

    def _sort_key(self) -> Any:
        order = {name: i for i, name in enumerate(self._entries)}
        ordered = self.phases
        rank = {p.name: i for i, p in enumerate(ordered)}

        def key(e: _Entry) -> tuple[int, float, int]:
            phase = self._phase_of(e, ordered) if ordered or e.phase is not None else None
            sub = -math.inf if e.position is None else e.position
            return (0 if phase is None else rank[phase.name], sub, order[e.name])

        return key

    def _in_order(self, entries: Iterable[_Entry]) -> list[_Entry]:
        """``entries`` in run order: by phase and position, then each phase's after/before.

        The constraints order the whole database, and a query keeps its entries in
        that order: ``a`` before ``b`` before ``c`` holds for ``a`` and ``c`` when a
        query leaves ``b`` out.
        """
        chosen = sorted(entries, key=self._sort_key())
        if not any(e.after or e.before for e in self._entries.values()):
            return chosen
        ordered = self.phases
        groups: dict[Any, list[_Entry]] = {}
        for e in sorted(self._entries.values(), key=self._sort_key()):
            phase = self._phase_of(e, ordered) if ordered or e.phase is not None else None
            groups.setdefault(None if phase is None else phase.name, []).append(e)
        rank: dict[str, int] = {}
        for group in groups.values():
            names = order_entries([e.name for e in group],
                                  {e.name: e.after for e in group if e.after},
                                  {e.name: e.before for e in group if e.before})
            rank.update((n, len(rank)) for n in names)
        return sorted(chosen, key=lambda e: rank[e.name])

    def _effective_positions(self) -> dict[str, float]:
        """Each entry's number: its float position, or its phase's (last reached) anchor."""
        anchor_at: dict[str, float] = {}
        if any(e.position is None for e in self._entries.values()):
            last = -math.inf
            for p in self.phases:
                last = p.anchor if p.anchor is not None else last
                anchor_at[p.name] = last
        return {
            e.name: anchor_at.get(e.phase, -math.inf) if e.position is None else e.position
            for e in self._entries.values()
        }

    # -- registration -----------------------------------------------------------------
    def _position(self, position: float | str | None) -> float | None:
        if position is _PHASE_ONLY:
            return None
        if position is None or position == "last":
            anchors = {p.name: p.anchor for p in self._phases}
            known = [e.position if e.position is not None else anchors.get(e.phase)
                     for e in self._entries.values()]
            return max((k for k in known if k is not None and k != -math.inf),
                       default=0.0) + 1.0
        if isinstance(position, bool) or not isinstance(position, numbers.Real):
            raise TypeError(f"`position` must be numeric or 'last'; got {position!r}")
        return float(position)

    @property
    def __position__(self) -> dict[str, float]:
        """``{name: position}`` (PyTensor's attribute; phase-placed entries: the anchor)."""
        return self._effective_positions()

    def register(self, name: str, rewriter: Any, *tags: str, position: float | str = "last",
                 phase: str | None = None, use_db_name_as_tag: bool = True,
                 after: Iterable[str] | str = (), before: Iterable[str] | str = (),
                 **kwargs: Any) -> Any:
        """Add ``rewriter`` in ``phase`` (a name) or at PyTensor's float ``position``.

        ``after``/``before`` name entries of the same phase this one must run
        after/before (names not in the database are ignored: the plugin that
        registers them may not be installed).
        """
        kwargs["after"], kwargs["before"] = _entry_names(name, after), _entry_names(name, before)
        if phase is not None:
            if position != "last":
                raise TypeError(
                    f"register({name!r}): give phase= or position=, not both "
                    f"(got phase={phase!r}, position={position!r})"
                )
            if not isinstance(phase, str) or not phase:
                raise TypeError(f"register({name!r}): phase must be a phase name, got {phase!r}")
            position = _PHASE_ONLY  # type: ignore[assignment]
        return super().register(name, rewriter, *tags, position=position, phase=phase,
                                use_db_name_as_tag=use_db_name_as_tag, **kwargs)

    def query(self, *tags: Any, position_cutoff: float | None = None, **kwtags: Any) -> Any:
        """As ``RewriteDatabase.query``; ``position_cutoff`` drops entries at or after it."""
        if position_cutoff is not None:
            q = self._as_query(tags, kwtags)
            q = attrs.evolve(q, position_cutoff=position_cutoff)
            return super().query(q)
        return super().query(*tags, **kwtags)

    def print_summary(self, stream: Any = None) -> None:
        """The phases in order, then each entry's phase, position and tags."""
        stream = stream or sys.stdout
        label = f" {self.name!r}" if self.name else ""
        print(f"{type(self).__name__}{label} (id {id(self)})", file=stream)
        ordered = self.phases
        if ordered:
            print(f"  phases {' -> '.join(p.name for p in ordered)}", file=stream)
        positions = self._effective_positions()
        print(f"  position {sorted(positions.items(), key=lambda kv: kv[1])}", file=stream)
        print(f"  names {self._names or '{}'}", file=stream)
        for e in self._in_order(self._entries.values()):
            where = f"{self._phase_of(e, ordered).name:18} " if ordered else ""
            print(f"  {where}{positions[e.name]:8.3f}  {e.name}  "
                  f"tags={sorted(e.tags - {e.name})}", file=stream)

    def __query__(self, q: RewriteDatabaseQuery) -> SequentialGraphRewriter:
        positions = self._effective_positions()
        chosen = self._in_order(
            e for e in self._selected(q) if positions[e.name] < q.position_cutoff)
        parts = []
        for e in chosen:
            r = self._resolve(e, q)
            if isinstance(r, set):
                r = SequentialGraphRewriter(*sorted(r, key=str))
            if isinstance(r, NodeRewriter):
                r = WalkingGraphRewriter(r, name=e.name)
            parts.append(r)
        parts.extend(q.extra_rewrites)
        kw = {} if self.failure_callback is None else {"failure_callback": self.failure_callback}
        return SequentialGraphRewriter(*parts, name=self.name, **kw)


class EquilibriumDB(RewriteDatabase):
    """Entries applied together until a fixed point (an EquilibriumGraphRewriter).

    ``final_rewriter=True`` entries run at the end of every round (merge);
    ``cleanup=True`` entries once at the very end.
    """

    def __init__(
        self,
        ignore_newtrees: bool | str = True,
        tracks_on_change_inputs: bool = False,
        eq_rewriter_class: type = EquilibriumGraphRewriter,
        *,
        name: str | None = None,
        max_use_ratio: float | None = None,
    ) -> None:
        if isinstance(ignore_newtrees, str) and name is None:  # EquilibriumDB("name")
            ignore_newtrees, name = True, ignore_newtrees
        super().__init__(name)
        self.ignore_newtrees = ignore_newtrees
        self.max_use_ratio = max_use_ratio
        self.tracks_on_change_inputs = tracks_on_change_inputs
        self.eq_rewriter_class = eq_rewriter_class

    def register(self, name: str, rewriter: Any, *tags: str, final_rewriter: bool = False,
                 cleanup: bool = False, use_db_name_as_tag: bool = True,
                 overwrite_existing: bool = False, position: float | str | None = None) -> Any:
        if final_rewriter and cleanup:
            raise ValueError(
                f"`final_rewriter` and `cleanup` cannot both be true (register({name!r}))"
            )
        return super().register(name, rewriter, *tags, use_db_name_as_tag=use_db_name_as_tag,
                                overwrite_existing=overwrite_existing, position=position,
                                final=final_rewriter, cleanup=cleanup)

    def __query__(self, q: RewriteDatabaseQuery) -> EquilibriumGraphRewriter:
        chosen = self._selected(q)
        main, final, cleanup = [], [], []
        for e in chosen:
            r = self._resolve(e, q)
            items = sorted(r, key=str) if isinstance(r, set) else [r]
            (final if e.final else cleanup if e.cleanup else main).extend(items)
        return self.eq_rewriter_class(
            main,
            max_use_ratio=self.max_use_ratio,
            final_rewriters=final,
            cleanup_rewriters=cleanup,
            tracks_on_change_inputs=self.tracks_on_change_inputs,
            name=self.name,
        )


class LocalGroupDB(SequenceDB):
    """Node rewriters grouped into one SequentialNodeRewriter (tried in position order)."""

    def __init__(
        self,
        apply_all_rewrites: bool | str = False,
        profile: bool = False,
        node_rewriter: type = SequentialNodeRewriter,
        *,
        name: str | None = None,
    ) -> None:
        if isinstance(apply_all_rewrites, str) and name is None:  # LocalGroupDB("name")
            apply_all_rewrites, name = False, apply_all_rewrites
        super().__init__(name=name)
        self.apply_all_rewrites = apply_all_rewrites
        self.profile = profile
        self.node_rewriter = node_rewriter

    def __query__(self, q: RewriteDatabaseQuery) -> Any:
        chosen = sorted(self._selected(q), key=self._sort_key())
        rws = [self._resolve(e, q) for e in chosen]
        return self.node_rewriter(*rws, name=self.name,
                                  apply_all_rewrites=self.apply_all_rewrites)


class TopoDB(RewriteDatabase):
    """Runs what ``db`` gives for a query with a WalkingGraphRewriter."""

    def __init__(self, db: RewriteDatabase, order: str = "in_to_out",
                 ignore_newtrees: bool = False, failure_callback: Any = None) -> None:
        if not isinstance(db, RewriteDatabase):
            raise TypeError(f"`db` must be a RewriteDatabase, got {type_name(db)}")
        super().__init__()
        self.db = db
        self.order = order
        self.ignore_newtrees = ignore_newtrees
        self.failure_callback = failure_callback

    def query(self, *tags: Any, **kwtags: Any) -> WalkingGraphRewriter:
        found = self.db.query(*tags, **kwtags)
        if isinstance(found, set):
            found = SequentialNodeRewriter(*sorted(found, key=str))
        kw = {} if self.failure_callback is None else {"failure_callback": self.failure_callback}
        return WalkingGraphRewriter(found, order=self.order,
                                    ignore_newtrees=self.ignore_newtrees, **kw)


class ProxyDB(RewriteDatabase):
    """Stands for ``db``: lets one database be registered at several places."""

    def __init__(self, db: RewriteDatabase) -> None:
        if not isinstance(db, RewriteDatabase):
            raise TypeError(f"`db` must be a RewriteDatabase, got {type_name(db)}")
        super().__init__(getattr(db, "name", None))
        self.db = db

    def query(self, *tags: Any, **kwtags: Any) -> Any:
        return self.db.query(*tags, **kwtags)


def as_graph_rewriter(obj: Any) -> GraphRewriter:
    """A query result as one GraphRewriter (sets become sequences, node rewriters walk)."""
    if isinstance(obj, GraphRewriter):
        return obj
    if isinstance(obj, NodeRewriter):
        return WalkingGraphRewriter(obj)
    if isinstance(obj, Iterable):
        return SequentialGraphRewriter(*[as_graph_rewriter(x) for x in sorted(obj, key=str)])
    raise TypeError(f"cannot use {type_name(obj)} as a graph rewriter")
