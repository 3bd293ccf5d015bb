"""Rewriter contracts: node rewriters, graph rewriters, and their statistics.

A NodeRewriter looks at one Apply node and proposes replacements for its
outputs; a GraphRewriter changes a whole FunctionGraph. Drivers (walking,
equilibrium) decide which nodes meet which node rewriters. Policy (which
rewrites run in which mode) lives in the rewrite database plugin, not here.
"""

from __future__ import annotations

import contextlib
import gc
import inspect
import logging
import threading
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from opgraph.config import config
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.destroyhandler import ensure_destroy_handler
from opgraph.graph.features import ReplaceValidate
from opgraph.graph.fg import Output
from opgraph.graph.function_table import FunctionTable
from opgraph.graph.op import Op
from opgraph.graph.rewriting.tracker import OpToRewriterTracker
from opgraph.graph.rewriting.unify import OpPattern
from opgraph.graph.rewriting.utils import check_stack_trace
from opgraph.graph.rewriting.watchers import (  # noqa: F401  (PyTensor's path)
    ChangeTracker,
    CheckStackTraceFeature,
    DispatchingFeature,
)
from opgraph.graph.traversal import _postorder_nodes
from opgraph.graph.utils import InconsistencyError, lazy_exports, type_name

if TYPE_CHECKING:
    from opgraph.graph.fg import FunctionGraph
    from opgraph.graph.rewriting.merge import MergeFeature, MergeOptimizer, merge_optimizer
    from opgraph.graph.rewriting.pattern import (
        PatternNodeRewriter,
        RemovalNodeRewriter,
        SubstitutionNodeRewriter,
    )
    from opgraph.graph.rewriting.walking import (
        EquilibriumGraphRewriter,
        WalkingGraphRewriter,
        dfs_rewriter,
        in2out,
        out2in,
    )

_logger = logging.getLogger("opgraph.graph.rewriting.basic")

__all__ = [
    "EquilibriumGraphRewriter",
    "FromFunctionGraphRewriter",
    "FromFunctionNodeRewriter",
    "GraphRewriter",
    "MergeFeature",
    "MergeOptimizer",
    "NodeProcessingGraphRewriter",
    "NodeRewriter",
    "OpToRewriterTracker",
    "PatternNodeRewriter",
    "RemovalNodeRewriter",
    "RewriteFailure",
    "Rewriter",
    "RewriterStats",
    "SequentialGraphRewriter",
    "SequentialNodeRewriter",
    "SubstitutionNodeRewriter",
    "WalkingGraphRewriter",
    "apply_node_rewrite",
    "check_stack_trace",
    "dfs_rewriter",
    "gc_paused",
    "graph_rewriter",
    "in2out",
    "is_output_client",
    "merge_optimizer",
    "node_rewriter",
    "on_rewrite_error",
    "out2in",
    "pre_constant_merge",
    "pre_greedy_node_rewriter",
]


class RewriteFailure(Exception):
    """A rewriter raised while transforming a graph (wrapped with its name and node)."""


def is_output_client(client: Any) -> bool:
    """True for the FunctionGraph-output pseudo client (``"output"`` or an Output node)."""
    if isinstance(client, str):
        return True
    return isinstance(getattr(client, "op", None), Output)


def on_rewrite_error(exc: BaseException, rewriter: Any, node: Any = None) -> None:
    """Default failure policy, read from ``config.on_opt_error`` (warn/raise/ignore/pdb)."""
    try:
        policy = config.on_opt_error
    except Exception:  # config missing or broken: be loud but keep going
        policy = "warn"
    where = f" on node {node.op}" if node is not None else ""
    if policy == "raise":
        raise RewriteFailure(
            f"rewrite {rewriter_name(rewriter)} failed{where}: {type(exc).__name__}: {exc}"
        ) from exc
    if policy == "pdb":  # stop here with `exc` in scope, then skip the rewrite
        breakpoint()
    if policy == "warn":
        warnings.warn(
            f"rewrite {rewriter_name(rewriter)} failed{where} and was skipped: "
            f"{type(exc).__name__}: {exc}",
            RuntimeWarning,
            stacklevel=3,
        )


def rewriter_name(rewriter: Any) -> str:
    name = getattr(rewriter, "name", None)
    if name:
        return str(name)
    fn = getattr(rewriter, "fn", None)
    if fn is not None:
        return getattr(fn, "__name__", type(rewriter).__name__)
    return type(rewriter).__name__


class RewriterStats:
    """Per-rewriter counters a profile shows: time spent, calls, applications.

    Keyed by rewriter name so nested drivers share one table.
    """

    __slots__ = ("applied", "calls", "time", "total_time")

    def __init__(self) -> None:
        self.time: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.applied: dict[str, int] = defaultdict(int)
        self.total_time = 0.0

    @classmethod
    def single_pass(cls, name: str, applied: int, seconds: float) -> RewriterStats:
        """The stats of one whole-graph pass that applied ``applied`` changes."""
        stats = cls()
        stats.applied[name] = applied
        stats.total_time = stats.time[name] = seconds
        stats.calls[name] = 1
        return stats

    def merge(self, other: RewriterStats) -> RewriterStats:
        for k, v in other.time.items():
            self.time[k] += v
        for k, v in other.calls.items():
            self.calls[k] += v
        for k, v in other.applied.items():
            self.applied[k] += v
        self.total_time += other.total_time
        return self

    def rows(self) -> list[tuple[str, float, int, int]]:
        """(name, seconds, calls, applications), slowest first."""
        names = set(self.time) | set(self.applied) | set(self.calls)
        rows = [(n, self.time.get(n, 0.0), self.calls.get(n, 0), self.applied.get(n, 0))
                for n in names]
        return sorted(rows, key=lambda r: (-r[1], r[0]))

    def summary(self, limit: int | None = 30) -> str:
        lines = [f"rewrites: {self.total_time:.4f}s total",
                 f"{'time (s)':>10} {'calls':>8} {'applied':>8}  rewriter"]
        for name, t, c, a in self.rows()[:limit]:
            lines.append(f"{t:10.4f} {c:8d} {a:8d}  {name}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary(10)


class Rewriter:
    """Common base: a name, requirements on the graph, a printable summary."""

    name: str | None = None

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        """Attach the Features this rewriter needs (e.g. ReplaceValidate)."""

    def print_summary(self, stream: Any = None, level: int = 0, depth: int = -1) -> None:
        import sys

        stream = stream or sys.stdout
        print(f"{'    ' * level}{type(self).__name__} {rewriter_name(self)}", file=stream)

    def __str__(self) -> str:
        return rewriter_name(self)

    __repr__ = __str__


_GC_LOCK = threading.Lock()
_GC_PAUSES = 0


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic GC while a graph is rewritten (nesting and threads allowed).

    Rewriting allocates many short-lived Variables and Apply nodes; with the
    collector on, full (oldest-generation) collections triggered midway scan
    the whole heap, and their number grows with the graph, which made compile
    time grow faster than N log N. Refcounting still frees acyclic garbage; the
    cyclic rest (owner <-> outputs links) is collected by the first automatic
    collection after the outermost pause ends.
    """
    global _GC_PAUSES
    with _GC_LOCK:
        if _GC_PAUSES == 0 and not gc.isenabled():  # the caller manages the collector
            owner = False
        else:
            owner = True
            _GC_PAUSES += 1
            gc.disable()
    try:
        yield
    finally:
        if owner:
            with _GC_LOCK:
                _GC_PAUSES -= 1
                if _GC_PAUSES == 0:
                    gc.enable()


def _ensure_replace_validate(fgraph: FunctionGraph) -> None:
    if hasattr(fgraph, "replace_all_validate"):
        return
    fgraph.attach_feature(ReplaceValidate())


class NodeRewriter(Rewriter):
    """Rewrites one Apply node; ``transform`` says how.

    ``transform(fgraph, node)`` returns False/None (no change), a list with
    one replacement per output (None keeps that output), or a dict
    ``{old_variable: new_variable}`` (the key ``"remove"`` may list
    variables that must leave the graph).
    """

    #: Whether this rewriter may create inplace (destructive) nodes.
    inplace: bool = False

    def tracks(self) -> Sequence[Any] | None:
        """Op instances or Op classes this rewriter applies to; None: every node."""
        return None

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement transform")

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        _ensure_replace_validate(fgraph)


class FromFunctionNodeRewriter(NodeRewriter):
    """A NodeRewriter made from a plain function by :func:`node_rewriter`."""

    def __init__(
        self,
        fn: Callable[[Any, Apply], Any],
        tracks: Sequence[Any] | None,
        requirements: Sequence[Callable[[Any], None]] = (),
        inplace: bool = False,
        name: str | None = None,
    ) -> None:
        self.fn = fn
        self._tracks = tracks
        self.requirements = tuple(requirements)
        self.inplace = inplace
        self.name = name or getattr(fn, "__name__", None)
        self.__doc__ = fn.__doc__
        self.__name__ = getattr(fn, "__name__", self.name)  # as the decorated function's
        self._track_classes = tuple(t for t in tracks or () if isinstance(t, type))
        self._track_patterns = [t for t in tracks or () if isinstance(t, OpPattern)]
        self._track_ops = [
            t for t in tracks or () if not isinstance(t, type | OpPattern)
        ]

    def tracks(self) -> Sequence[Any] | None:
        return self._tracks

    def _tracked(self, op: Any) -> bool:
        if self._tracks is None or isinstance(op, self._track_classes):
            return True
        return any(op == t for t in self._track_ops) or any(
            p.match_op(op) for p in self._track_patterns
        )

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Any:
        """``fn(fgraph, node)`` when ``node.op`` is tracked; False otherwise."""
        if not self._tracked(node.op):
            return False
        return self.fn(fgraph, node)

    def __str__(self) -> str:
        return str(self.name)

    def __repr__(self) -> str:
        tracks = None if self._tracks is None else [
            t.__name__ if isinstance(t, type) else str(t) for t in self._tracks
        ]
        return f"FromFunctionNodeRewriter({self.name}, {tracks}, {self.requirements})"

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        for req in self.requirements:
            req(fgraph)

    def __call__(self, fgraph: FunctionGraph, node: Apply) -> Any:
        return self.fn(fgraph, node)


def node_rewriter(
    tracks: Sequence[Any] | None,
    inplace: bool = False,
    requirements: Sequence[Callable[[Any], None]] = (),
    name: str | None = None,
) -> Callable[[Callable[[Any, Apply], Any]], FromFunctionNodeRewriter]:
    """Decorator turning ``fn(fgraph, node)`` into a NodeRewriter tracking ``tracks``.

    ``tracks`` is a list of Op instances (matched by equality) or Op classes
    (matched by isinstance), or None to see every node.
    """
    if tracks is not None:
        if not isinstance(tracks, list | tuple):
            raise TypeError(
                f"node_rewriter(tracks): expected a list of Ops or Op classes or None, "
                f"got {type_name(tracks)}"
            )
        if len(tracks) == 0:
            raise ValueError("node_rewriter(tracks): use None (not []) to track every node")
        for t in tracks:
            if not (
                isinstance(t, Op | OpPattern) or (isinstance(t, type) and issubclass(t, Op))
            ):
                raise TypeError(
                    f"node_rewriter(tracks): each entry must be an Op instance, an Op "
                    f"class or an OpPattern, got {type_name(t)} {t!r:.60}"
                )
        tracks = list(tracks)

    def decorator(fn: Callable[[Any, Apply], Any]) -> FromFunctionNodeRewriter:
        return FromFunctionNodeRewriter(fn, tracks, requirements, inplace, name)

    return decorator


class SequentialNodeRewriter(NodeRewriter):
    """Tries several node rewriters in order; the first that changes the node wins."""

    def __init__(self, *rewriters: NodeRewriter, name: str | None = None,
                 apply_all_rewrites: bool = False) -> None:
        for r in rewriters:
            if not isinstance(r, NodeRewriter):
                raise TypeError(
                    f"SequentialNodeRewriter: expected NodeRewriter instances, got {type_name(r)}"
                )
        self.rewriters = list(rewriters)
        self.name = name
        self.apply_all_rewrites = apply_all_rewrites
        self.tracker = OpToRewriterTracker()
        for r in self.rewriters:
            self.tracker.add(r)

    def tracks(self) -> Sequence[Any] | None:
        out: list[Any] = []
        for r in self.rewriters:
            t = r.tracks()
            if t is None:
                return None
            out.extend(t)
        return out

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Any:
        for r in self.tracker.get_trackers(node.op):
            result = r.transform(fgraph, node)
            if result:
                if getattr(config, "optimizer_verbose", False):
                    print(f"rewriting: rewrite {rewriter_name(r)} replaces node {node} "
                          f"with {result}")
                return result
        return False

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for r in self.rewriters:
            r.add_requirements(fgraph)


def _fix_replacement_type(old: Variable, new: Any, rewriter: Any) -> Variable:
    if not isinstance(new, Variable):
        raise TypeError(
            f"rewrite {rewriter_name(rewriter)} returned {type_name(new)} as the replacement "
            f"of {old}; expected a Variable"
        )
    if old.type == new.type:
        return new
    try:
        return old.type.filter_variable(new, allow_convert=True)
    except TypeError as exc:
        raise TypeError(
            f"rewrite {rewriter_name(rewriter)} replaced {old} of type {old.type} by {new} "
            f"of incompatible type {new.type}: {exc}"
        ) from exc


def replacement_pairs(node: Apply, result: Any, rewriter: Any) -> tuple[list, list]:
    """Normalise a transform result to ([(old, new)...], [variables to remove])."""
    if isinstance(result, dict):
        remove = list(result.get("remove", ()))
        items = [(k, v) for k, v in result.items() if not isinstance(k, str)]
    elif isinstance(result, list | tuple):
        if len(result) != len(node.outputs):
            raise ValueError(
                f"rewrite {rewriter_name(rewriter)} returned {len(result)} replacements "
                f"for {node.op} which has {len(node.outputs)} outputs"
            )
        remove = []
        items = list(zip(node.outputs, result))
    elif isinstance(result, Variable) and len(node.outputs) == 1:
        remove = []
        items = [(node.outputs[0], result)]
    else:
        raise TypeError(
            f"rewrite {rewriter_name(rewriter)} returned {type_name(result)}; expected "
            "False/None, a list of replacements or a dict {old: new}"
        )
    pairs = [(o, _fix_replacement_type(o, n, rewriter)) for o, n in items
             if n is not None and n is not o]
    return pairs, remove


def apply_node_rewrite(
    fgraph: FunctionGraph,
    node: Apply,
    rewriter: NodeRewriter,
    stats: RewriterStats | None = None,
    failure_callback: Callable[..., None] | None = on_rewrite_error,
) -> bool:
    """Run one node rewriter on one node and install its replacements.

    Returns True when the graph changed. A replacement the graph's
    validators refuse (InconsistencyError) is dropped, not raised.
    """
    name = rewriter_name(rewriter)
    t0 = time.perf_counter()
    try:
        result = rewriter.transform(fgraph, node)
        if not result:
            return False
        pairs, remove = replacement_pairs(node, result, rewriter)
    except Exception as exc:
        if failure_callback is None:
            raise
        _report_failure(failure_callback, exc, rewriter, node, [])
        return False
    finally:
        if stats is not None:
            stats.time[name] += time.perf_counter() - t0
            stats.calls[name] += 1
    if not pairs and not remove:
        return False
    try:
        if hasattr(fgraph, "replace_all_validate_remove") and remove:
            fgraph.replace_all_validate_remove(pairs, remove, reason=name)
        elif hasattr(fgraph, "replace_all_validate"):
            fgraph.replace_all_validate(pairs, reason=name)
        else:
            fgraph.replace_all(pairs, reason=name)
    except InconsistencyError as exc:
        # a replacement the validators refuse is dropped; a caller's own callback hears of it
        if failure_callback is not None and failure_callback is not on_rewrite_error:
            _report_failure(failure_callback, exc, rewriter, node, pairs)
        return False
    except Exception as exc:
        if failure_callback is None:
            raise
        _report_failure(failure_callback, exc, rewriter, node, pairs)
        return False
    if stats is not None:
        stats.applied[name] += 1
    return True


def _report_failure(
    callback: Callable[..., None], exc: BaseException, rewriter: Any, node: Any, pairs: list
) -> None:
    """Call ``callback(exc, rewriter, node)``, or PyTensor's five-argument form
    ``callback(exc, navigator, pairs, rewriter, node)`` when it takes five."""
    if _positional_count(callback) >= 5:
        callback(exc, None, pairs, rewriter, node)
    else:
        callback(exc, rewriter, node)


def _positional_count(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 3
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 3
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


class GraphRewriter(Rewriter):
    """Changes a whole FunctionGraph: implement ``apply(fgraph)``."""

    def apply(self, fgraph: FunctionGraph) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement apply")

    def rewrite(self, fgraph: FunctionGraph, *args: Any, **kwargs: Any) -> Any:
        """Attach requirements, then apply (the entry point a compiler calls).

        The cyclic garbage collector is paused meanwhile (see :func:`gc_paused`).
        """
        with gc_paused():
            self.add_requirements(fgraph)
            return self.apply(fgraph, *args, **kwargs)

    def __call__(self, fgraph: FunctionGraph) -> Any:
        return self.rewrite(fgraph)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        _ensure_replace_validate(fgraph)

    def stats_of(self, result: Any) -> RewriterStats | None:
        return result if isinstance(result, RewriterStats) else None


class FromFunctionGraphRewriter(GraphRewriter):
    """A GraphRewriter made from ``fn(fgraph)`` by :func:`graph_rewriter`."""

    def __init__(self, fn: Callable[[Any], Any], requirements: Sequence[Callable] = (),
                 name: str | None = None) -> None:
        self.fn = fn
        self.requirements = tuple(requirements)
        self.name = name or getattr(fn, "__name__", None)

    def apply(self, fgraph: FunctionGraph) -> Any:
        return self.fn(fgraph)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        for req in self.requirements:
            req(fgraph)


def graph_rewriter(fn: Callable[[Any], Any]) -> FromFunctionGraphRewriter:
    """Decorator turning ``fn(fgraph)`` into a GraphRewriter."""
    return FromFunctionGraphRewriter(fn)


class SequentialGraphRewriter(GraphRewriter):
    """Runs graph rewriters one after the other; statistics per rewriter.

    A rewriter that raises is handled by ``failure_callback`` (default: the
    ``config.on_opt_error`` policy) and the sequence continues.
    """

    def __init__(self, *rewriters: GraphRewriter | NodeRewriter,
                 failure_callback: Callable[..., None] | None = on_rewrite_error,
                 name: str | None = None) -> None:
        if len(rewriters) == 1 and isinstance(rewriters[0], list | tuple):
            rewriters = tuple(rewriters[0])
        self.data = [_as_graph_rewriter(r) for r in rewriters]
        self.failure_callback = failure_callback
        self.name = name
        self.last_stats: RewriterStats | None = None

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        for r in self.data:
            r.add_requirements(fgraph)

    def apply(self, fgraph: FunctionGraph) -> RewriterStats:
        stats = RewriterStats()
        t_start = time.perf_counter()
        for r in self.data:
            t0 = time.perf_counter()
            try:
                sub = r.apply(fgraph)
            except Exception as exc:
                if self.failure_callback is None:
                    raise
                self.failure_callback(exc, r)
                sub = None
            name = rewriter_name(r)
            if isinstance(sub, RewriterStats):
                stats.merge(sub)
                stats.total_time -= sub.total_time
            else:
                stats.time[name] += time.perf_counter() - t0
                stats.calls[name] += 1
        stats.total_time = time.perf_counter() - t_start
        self.last_stats = stats
        return stats

    def print_summary(self, stream: Any = None, level: int = 0, depth: int = -1) -> None:
        super().print_summary(stream, level, depth)
        if depth != 0:
            for r in self.data:
                r.print_summary(stream, level + 1, depth - 1)


# Graph rewriters that this module's classes build from node rewriters: defined in
# walking.py (above this module), which registers them at import.
DRIVERS = FunctionTable("opgraph.graph.rewriting")


def _as_graph_rewriter(r: Any) -> GraphRewriter:
    if isinstance(r, GraphRewriter):
        return r
    if isinstance(r, NodeRewriter):
        # the walking driver is defined in walking.py, which builds on this module
        return DRIVERS.WalkingGraphRewriter(r)
    raise TypeError(f"expected a GraphRewriter or NodeRewriter, got {type_name(r)}")


def flatten_rewriters(items: Iterable[Any]) -> list[Any]:
    """Nested lists of rewriters, flattened in order."""
    out: list[Any] = []
    for x in items:
        if isinstance(x, list | tuple):
            out.extend(flatten_rewriters(x))
        else:
            out.append(x)
    return out


class NodeProcessingGraphRewriter(GraphRewriter):
    """Base of the graph rewriters that apply node rewriters node by node.

    Its static ``warn*`` methods are ready-made ``failure_callback`` values.
    """

    @staticmethod
    def warn(exc: BaseException, *args: Any) -> None:
        """Log the failure of a node rewriter and carry on."""
        _logger.error("node rewriter failed (%s: %s)", type(exc).__name__, exc)

    @staticmethod
    def warn_inplace(exc: BaseException, *args: Any) -> None:
        """Carry on quietly after an InconsistencyError (a refused in-place rewrite)."""
        if isinstance(exc, InconsistencyError):
            return
        NodeProcessingGraphRewriter.warn(exc, *args)

    @staticmethod
    def warn_ignore(exc: BaseException, *args: Any) -> None:
        """Ignore the failure."""


def pre_constant_merge(fgraph: FunctionGraph, variables: Sequence[Variable]) -> list[Variable]:
    """Make equal constants in the graphs of ``variables`` the same object, in place.

    Nodes already in ``fgraph`` are left alone; the others use the first
    equal constant met (those of ``fgraph`` first). Returns ``variables``,
    with constants among them merged too.
    """
    seen: dict[Any, Constant] = {}

    def canonical(c: Constant) -> Constant:
        try:
            return seen.setdefault(c.signature(), c)
        except TypeError:  # unhashable data: left as is
            return c

    for v in getattr(fgraph, "variables", ()):
        if isinstance(v, Constant):
            canonical(v)
    stop = set(getattr(fgraph, "variables", ()))
    for node in _postorder_nodes(stop, list(variables)):
        for i, x in enumerate(node.inputs):
            if isinstance(x, Constant):
                node.inputs[i] = canonical(x)
    return [canonical(v) if isinstance(v, Constant) and v not in stop else v for v in variables]


def pre_greedy_node_rewriter(
    fgraph: FunctionGraph, rewrites: Sequence[NodeRewriter], out: Variable
) -> Variable:
    """Apply ``rewrites`` greedily, producers first, to the graph of ``out`` outside ``fgraph``.

    Used to simplify a graph before it is added to ``fgraph`` (e.g. fold
    constants). The first rewrite that changes a node wins; nodes of
    ``fgraph`` are left alone. Returns the (possibly new) ``out``.
    """
    tracker = OpToRewriterTracker()
    for r in rewrites:
        tracker.add(r)
    memo: dict[Variable, Variable] = {}
    for orig in _postorder_nodes(set(getattr(fgraph, "variables", ())), [out]):
        node = orig
        new_inputs = [memo.get(x, x) for x in orig.inputs]
        if any(a is not b for a, b in zip(new_inputs, orig.inputs)):
            node = orig.clone_with_new_inputs(new_inputs, strict=False)
            memo.update(zip(orig.outputs, node.outputs))
        for rewriter in tracker.get_trackers(node.op):
            result = rewriter.transform(fgraph, node)
            if not result:
                continue
            pairs, _ = replacement_pairs(node, result, rewriter)
            replaced = dict(pairs)
            for o_orig, o_now in zip(orig.outputs, node.outputs):
                if o_now in replaced:
                    memo[o_orig] = replaced[o_now]
            break
    return memo.get(out, out)


# The drivers and pattern rewriters live in their own modules (which import this
# one); PyTensor users import them from here, so they are exported lazily.
_LAZY = {
    **dict.fromkeys(
        ("EquilibriumGraphRewriter", "WalkingGraphRewriter", "dfs_rewriter", "in2out", "out2in",
         "walking_rewriter"),
        "opgraph.graph.rewriting.walking",
    ),
    **dict.fromkeys(
        ("MergeFeature", "MergeOptimizer", "merge_optimizer"), "opgraph.graph.rewriting.merge"
    ),
    **dict.fromkeys(("copy_stack_trace", "merge_dict"), "opgraph.graph.rewriting.stack_trace"),
    **dict.fromkeys(
        ("PatternNodeRewriter", "RemovalNodeRewriter", "SubstitutionNodeRewriter"),
        "opgraph.graph.rewriting.pattern",
    ),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


def inplace_graph_rewriter(f: Callable[[FunctionGraph], Any]) -> FromFunctionGraphRewriter:
    """``graph_rewriter`` for an in-place rewrite: the graph gets a DestroyHandler first."""
    rewriter = FromFunctionGraphRewriter(f, (ensure_destroy_handler,))
    rewriter.__name__ = f.__name__  # type: ignore[attr-defined]
    return rewriter


class CheckStackTraceRewriter(GraphRewriter):
    """Attaches a :class:`CheckStackTraceFeature` (the checks run as nodes are imported)."""

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        if not any(isinstance(f, CheckStackTraceFeature) for f in fgraph.features):
            fgraph.attach_feature(CheckStackTraceFeature())

    def apply(self, fgraph: FunctionGraph) -> None:
        return None


# PyTensor's annotation aliases of the node-rewrite protocol
RemoveKeyType = Literal["remove"]
TransformOutputType = Sequence[Variable] | dict[Variable | RemoveKeyType, Any] | bool | None
FailureCallbackType = Callable[[Exception, Any, list[tuple[Variable, Any]], Any, Any], None]
