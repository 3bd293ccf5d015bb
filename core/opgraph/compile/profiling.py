"""Per-node and per-Op timing of compiled functions (``function(..., profile=True)``).

Linkers ask :meth:`ProfileStats.node_timers` for two lists aligned with their
execution order and add to them as nodes run; nothing is aggregated until
:meth:`ProfileStats.summary`, so profiling costs two additions per node.
Compiled backends that keep their own accumulators (e.g. a float64 array the
C linker's module adds to) register them with :meth:`ProfileStats.add_node_timers`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opgraph.graph.basic import Apply

__all__ = ["ProfileStats"]


class ProfileStats:
    """Timing of one (or several) compiled functions."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name or "<function>"
        self.compile_time = 0.0
        self.linker_time = 0.0
        self.rewrite_time = 0.0
        self.fct_callcount = 0
        self.fct_call_time = 0.0
        self._orders: list[tuple[list[Apply], Sequence[float], Sequence[Any]]] = []
        #: per-rewriter (time, calls, applied) when ``config.profile_optimizer`` is on
        self.rewriter_profile: dict[str, list[float]] | None = None

    def record_rewrites(self, stats: Any) -> None:
        """Add a rewrite run's counters (``RewriterStats``, or None: nothing ran) to the profile."""
        table = self.rewriter_profile if self.rewriter_profile is not None else {}
        for name, seconds in dict(getattr(stats, "time", None) or {}).items():
            row = table.setdefault(name, [0.0, 0, 0])
            row[0] += seconds
            row[1] += stats.calls.get(name, 0)
            row[2] += stats.applied.get(name, 0)
        self.rewriter_profile = table

    def node_timers(self, order: Sequence[Apply]) -> tuple[list[float], list[int]]:
        """Fresh (seconds, calls) lists for ``order``, which the linker updates."""
        times = [0.0] * len(order)
        counts = [0] * len(order)
        self._orders.append((list(order), times, counts))
        return times, counts

    def add_node_timers(
        self, order: Sequence[Apply], times: Sequence[float], counts: Sequence[Any]
    ) -> None:
        """Register accumulators a backend updates itself (any float/number sequences).

        They are read, never copied, when a view is asked for, so compiled code
        can add to them (e.g. NumPy arrays) with no work after each call.
        """
        if not len(times) == len(counts) == len(order):
            raise ValueError(
                f"add_node_timers: times ({len(times)}) and counts ({len(counts)}) must "
                f"have one entry per node ({len(order)})"
            )
        self._orders.append((list(order), times, counts))

    # -- aggregated views --------------------------------------------------------------
    @property
    def apply_time(self) -> dict[Apply, float]:
        """Seconds spent in each node."""
        out: dict[Apply, float] = {}
        for order, times, _ in self._orders:
            for node, t in zip(order, times):
                out[node] = out.get(node, 0.0) + float(t)
        return out

    @property
    def apply_callcount(self) -> dict[Apply, int]:
        """How often each node ran."""
        out: dict[Apply, int] = {}
        for order, _, counts in self._orders:
            for node, c in zip(order, counts):
                out[node] = out.get(node, 0) + int(c)
        return out

    def class_time(self) -> dict[type, float]:
        """Seconds per Op class."""
        out: dict[type, float] = {}
        for node, t in self.apply_time.items():
            cls = type(node.op)
            out[cls] = out.get(cls, 0.0) + t
        return out

    def op_time(self) -> dict[Any, float]:
        """Seconds per Op instance (equal Ops pooled)."""
        out: dict[Any, float] = {}
        for node, t in self.apply_time.items():
            out[node.op] = out.get(node.op, 0.0) + t
        return out

    def class_callcount(self) -> dict[type, int]:
        out: dict[type, int] = {}
        for node, c in self.apply_callcount.items():
            out[type(node.op)] = out.get(type(node.op), 0) + c
        return out

    # -- report ------------------------------------------------------------------------
    def summary(self, file: IO[str] | None = None, n_ops_to_print: int = 20,
                n_apply_to_print: int = 20) -> str:
        """Print (and return) tables of time per Op class and per node, slowest first."""
        out = sys.stdout if file is None else file
        total_nodes = sum(self.apply_time.values())
        if not self._orders:
            in_nodes = "not recorded"
        elif self.fct_call_time > 0:
            share = 100 * total_nodes / self.fct_call_time
            in_nodes = f"{total_nodes:.6f}s ({share:.1f}% of the call time)"
        else:
            in_nodes = f"{total_nodes:.6f}s"
        lines = [
            f"Function profiling: {self.name}",
            f"  Calls: {self.fct_callcount}, total call time {self.fct_call_time:.6f}s"
            + (
                f" ({1e6 * self.fct_call_time / self.fct_callcount:.2f} us/call)"
                if self.fct_callcount
                else ""
            ),
            f"  Time in nodes: {in_nodes}; compile {self.compile_time:.6f}s "
            f"(rewrites {self.rewrite_time:.6f}s, linker {self.linker_time:.6f}s)",
        ]
        if self.fct_callcount and not self._orders:
            lines.append("  (the linker recorded no per-node times: it does not support profiling)")
        lines += [
            "",
            "Class",
            f"  {'<% time>':>9} {'<sum %>':>8} {'<time s>':>11} {'<calls>':>8}  <class>",
        ]
        calls = self.class_callcount()
        lines += _rows(
            sorted(self.class_time().items(), key=lambda kv: -kv[1])[:n_ops_to_print],
            total_nodes,
            lambda cls: (calls.get(cls, 0), cls.__name__),
        )
        lines += ["", "Apply", f"  {'<% time>':>9} {'<sum %>':>8} {'<time s>':>11} "
                  f"{'<calls>':>8}  <node>"]
        counts = self.apply_callcount
        lines += _rows(
            sorted(self.apply_time.items(), key=lambda kv: -kv[1])[:n_apply_to_print],
            total_nodes,
            lambda node: (counts.get(node, 0), _node_label(node)),
        )
        if self.rewriter_profile is not None:
            lines += ["", "Rewriter Profile",
                      f"  {'<time s>':>11} {'<calls>':>8} {'<applied>':>9}  <rewriter>"]
            lines += [
                f"  {t:11.6f} {int(c):8d} {int(a):9d}  {name}"
                for name, (t, c, a) in sorted(self.rewriter_profile.items(),
                                              key=lambda kv: -kv[1][0])
            ] or ["  (no rewrite ran)"]
        text = "\n".join(lines) + "\n"
        out.write(text)
        return text

    def __repr__(self) -> str:
        return f"ProfileStats({self.name!r}, calls={self.fct_callcount})"


def _rows(items: list[tuple[Any, float]], total: float, describe: Any) -> list[str]:
    rows = []
    running = 0.0
    for key, t in items:
        running += t
        pct = 100 * t / total if total else 0.0
        cum = 100 * running / total if total else 0.0
        count, label = describe(key)
        rows.append(f"  {pct:8.1f}% {cum:7.1f}% {t:11.6f} {count:8d}  {label}")
    return rows


def _node_label(node: Apply) -> str:
    args = ", ".join(str(v) for v in node.inputs)
    text = f"{node.op}({args})"
    return text if len(text) <= 80 else text[:77] + "..."
