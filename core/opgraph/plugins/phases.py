"""Named rewrite phases: the order rewrites run in, stated as before/after constraints.

The top rewrite database (``optdb``) runs its entries phase by phase.  A
phase is a name plus constraints ("after specialize, before fusion"); the
order is a topological sort of the constraints, computed and checked for
cycles when the database is built.  PyTensor code registers with a float
``position=``; each standard phase keeps the position PyTensor gives the
same step (its ``anchor``), and a float maps to the phase with the greatest
anchor not above it (:func:`phase_for_position`).  ``docs/rewrites.md``
has the table.

This module is the core's part of the contract: the plugin that owns the
database (opgraph-rewrites) orders its entries with :func:`order_phases`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

import attrs

__all__ = [
    "STANDARD_PHASES",
    "Phase",
    "PhaseCycleError",
    "PhaseError",
    "order_entries",
    "order_phases",
    "phase_for_position",
]


class PhaseError(ValueError):
    """Phases that cannot be ordered: an unknown name in a constraint, or bad anchors."""


class PhaseCycleError(PhaseError):
    """The before/after constraints of some phases form a cycle (named in the message)."""


def _names(value: str | Iterable[str]) -> tuple[str, ...]:
    names = (value,) if isinstance(value, str) else tuple(value)
    for name in names:
        if not isinstance(name, str) or not name:
            raise TypeError(f"phase constraints must be non-empty phase names, got {name!r}")
    return names


def _check_name(_inst: object, _attr: attrs.Attribute, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"Phase name must be a non-empty string, got {value!r}")


def _check_anchor(_inst: object, _attr: attrs.Attribute, value: object) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise TypeError(f"Phase anchor must be a number or None, got {value!r}")


@attrs.frozen
class Phase:
    """A named step of the rewrite pipeline.

    ``after``/``before`` name phases this one runs after/before.  ``anchor``
    is the PyTensor position this phase starts at (``None`` for a phase that
    plugins add between standard ones: it takes no float positions).
    """

    name: str = attrs.field(validator=_check_name)
    after: tuple[str, ...] = attrs.field(default=(), converter=_names)
    before: tuple[str, ...] = attrs.field(default=(), converter=_names)
    anchor: float | None = attrs.field(default=None, validator=_check_anchor)
    description: str = ""


def _chain(*specs: tuple[str, float, str]) -> tuple[Phase, ...]:
    out: list[Phase] = []
    for name, anchor, what in specs:
        after = (out[-1].name,) if out else ()
        out.append(Phase(name, after=after, anchor=anchor, description=what))
    return tuple(out)


STANDARD_PHASES: tuple[Phase, ...] = _chain(
    ("inline", -math.inf, "inline OpFromGraph bodies before anything else looks at them"),
    ("initial_merge", 0.0, "merge equal subgraphs of the user's graph"),
    ("canonicalize", 1.0, "normal forms (an EquilibriumDB of node rewrites)"),
    ("stabilize", 1.5, "numerically stable forms (an EquilibriumDB)"),
    ("specialize", 2.0, "faster forms (an EquilibriumDB)"),
    ("post_specialize", 48.0, "clean-ups that must see the specialized graph"),
    ("fusion", 49.0, "Elemwise fusion into Composite loops"),
    ("post_fusion_merge", 49.5, "merge what fusion made equal"),
    ("inplace", 75.0, "destructive (inplace) versions of ops; needs the DestroyHandler"),
    ("final_merge", 100.0, "a last merge; PyTensor's 'last' positions land here too"),
)
"""The phases of the standard ``optdb``, in order (each after the previous)."""


def _find_cycle(remaining: set[str], succ: dict[str, list[str]]) -> list[str]:
    """One cycle among ``remaining`` (each has a predecessor there), as a closed path.

    Walks predecessors (every node left after the sort has one left too) until
    a node repeats, then reads that loop forwards.
    """
    pred: dict[str, list[str]] = {n: [] for n in remaining}
    for src in sorted(remaining):
        for dst in succ[src]:
            if dst in remaining:
                pred[dst].append(src)
    path: list[str] = []
    seen: dict[str, int] = {}
    node = min(remaining)
    while node not in seen:
        seen[node] = len(path)
        path.append(node)
        node = pred[node][0]
    loop = path[seen[node]:][::-1]
    start = loop.index(min(loop))
    loop = loop[start:] + loop[:start]
    return [*loop, loop[0]]


def order_phases(phases: Sequence[Phase]) -> list[Phase]:
    """``phases`` in an order that meets every before/after constraint.

    Ties keep declaration order.  Raises :class:`PhaseError` for a duplicate
    phase name, a constraint naming an unknown phase, or anchors that
    decrease along the order, and :class:`PhaseCycleError` naming a cycle.
    """
    index: dict[str, int] = {}
    for i, phase in enumerate(phases):
        if not isinstance(phase, Phase):
            raise TypeError(f"order_phases expects Phase records, got {phase!r}")
        if phase.name in index:
            raise PhaseError(f"phase {phase.name!r} is declared twice")
        index[phase.name] = i
    succ: dict[str, list[str]] = {p.name: [] for p in phases}
    indegree = dict.fromkeys(index, 0)
    for phase in phases:
        for other, edge in [*((o, (o, phase.name)) for o in phase.after),
                            *((o, (phase.name, o)) for o in phase.before)]:
            if other not in index:
                raise PhaseError(
                    f"phase {phase.name!r} is ordered relative to unknown phase {other!r}; "
                    f"known phases: {', '.join(index)}"
                )
            succ[edge[0]].append(edge[1])
            indegree[edge[1]] += 1
    ready = sorted((index[n], n) for n, d in indegree.items() if d == 0)
    order: list[Phase] = []
    while ready:
        _, name = ready.pop(0)
        order.append(phases[index[name]])
        for nxt in succ[name]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                ready.append((index[nxt], nxt))
                ready.sort()
    if len(order) < len(phases):
        cycle = _find_cycle({n for n, d in indegree.items() if d > 0}, succ)
        raise PhaseCycleError(
            "rewrite phases form a cycle: " + " -> ".join(cycle)
            + " (each arrow: 'runs before'); fix the before/after constraints"
        )
    anchored = [p for p in order if p.anchor is not None]
    for a, b in itertools.pairwise(anchored):
        if b.anchor < a.anchor:  # type: ignore[operator]
            raise PhaseError(
                f"phase {b.name!r} (anchor {b.anchor}) runs after {a.name!r} "
                f"(anchor {a.anchor}): anchors must grow along the phase order"
            )
    return order


def phase_for_position(ordered: Sequence[Phase], position: float) -> Phase:
    """The anchored phase a PyTensor float ``position`` falls in (greatest anchor <= it).

    A position below every anchor falls in the first anchored phase.
    """
    anchored = [p for p in ordered if p.anchor is not None]
    if not anchored:
        raise PhaseError("no phase has an anchor: float positions cannot be placed")
    chosen = anchored[0]
    for phase in anchored:
        if phase.anchor <= position:  # type: ignore[operator]
            chosen = phase
    return chosen


def order_entries(names: Sequence[str], after: dict[str, tuple[str, ...]],
                  before: dict[str, tuple[str, ...]]) -> list[str]:
    """``names`` (the entries of one phase, in their default order) meeting after/before.

    Where several plugins register into one phase (``inplace``,
    ``post_specialize``), an entry says ``after=("inplace_elemwise",)``
    instead of guessing a float.  A constraint naming an entry that is not
    among ``names`` (another phase, or a plugin not installed) is ignored;
    otherwise the default order is kept as far as the constraints allow.
    Raises :class:`PhaseCycleError` naming a cycle.
    """
    index = {name: i for i, name in enumerate(names)}
    succ: dict[str, list[str]] = {n: [] for n in names}
    indegree = dict.fromkeys(names, 0)
    for name in names:
        edges = [(o, name) for o in after.get(name, ())] + [(name, o) for o in before.get(name, ())]
        for src, dst in edges:
            if src in index and dst in index:
                succ[src].append(dst)
                indegree[dst] += 1
    ready = sorted(index[n] for n, d in indegree.items() if d == 0)
    out: list[str] = []
    while ready:
        name = names[ready.pop(0)]
        out.append(name)
        for nxt in succ[name]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                ready.append(index[nxt])
                ready.sort()
    if len(out) < len(names):
        cycle = _find_cycle({n for n, d in indegree.items() if d > 0}, succ)
        raise PhaseCycleError(
            "rewrite entries form a cycle: " + " -> ".join(cycle)
            + " (each arrow: 'runs before'); fix their after=/before= constraints"
        )
    return out
