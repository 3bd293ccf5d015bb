"""The inner graph of an OpFromGraph: building it, comparing it, reading its structure.

Kept apart from the Op so the pieces that equality, gradients and rewrites
share (a value key for a graph, a connection pattern that honours nested
Ops) are small and testable on their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.compile.sharedvalue import SharedVariable
from opgraph.graph.basic import (
    Constant,
    Variable,
    clone_get_equiv,
    equal_computations,
    graph_inputs,
    io_toposort,
)
from opgraph.graph.signature import structure_signature
from opgraph.graph.utils import MissingInputError

__all__ = ["GraphKey", "InnerGraph", "build_inner_graph", "connection_pattern_of"]


class InnerGraph:
    """Private copies of the user's graph: explicit inputs, then one per shared variable."""

    __slots__ = ("inputs", "n_explicit", "outputs", "shared")

    def __init__(self, inputs: list[Variable], outputs: list[Variable],
                 shared: list[SharedVariable], n_explicit: int) -> None:
        self.inputs = inputs
        self.outputs = outputs
        self.shared = shared
        self.n_explicit = n_explicit


def _fresh(var: Variable) -> Variable:
    """A free variable of ``var``'s type (never shared, never a constant)."""
    new = var.type()
    new.name = var.name
    return new


def build_inner_graph(inputs: Sequence[Variable], outputs: Sequence[Variable],
                      who: str, strict: bool, allow_repeated: bool = False) -> InnerGraph:
    """Clone ``outputs`` as a function of fresh copies of ``inputs`` (like function()).

    Shared variables the outputs read and that are not inputs become extra
    (implicit) inputs; with ``strict`` they are an error instead.  Any other
    free variable is a MissingInputError naming it.  A constant may be an
    input: inside, it is a free variable of its type like any other input.
    """
    inputs, outputs = list(inputs), list(outputs)
    seen: set[Variable] = set()
    repeated: list[Variable] = []
    for k, v in enumerate(inputs):
        if not isinstance(v, Variable):
            raise TypeError(f"{who}: inputs[{k}] must be a symbolic Variable; got "
                            f"{type(v).__name__} {v!r:.60}")
        if v in seen and v not in repeated:
            repeated.append(v)
        seen.add(v)
    if repeated and not allow_repeated:
        raise ValueError(
            f"{who}: The following variables were provided more than once as inputs to the "
            f"OpFromGraph: {repeated}; pass each once (or on_unused_input='ignore' to let "
            "the repeats be unused inputs)"
        )
    for k, v in enumerate(outputs):
        if not isinstance(v, Variable):
            raise TypeError(f"{who}: outputs[{k}] must be a symbolic Variable; got "
                            f"{type(v).__name__} {v!r:.60}")
    shared: list[SharedVariable] = []
    for v in graph_inputs(outputs, blockers=inputs):
        if v in seen or isinstance(v, Constant):
            continue
        if isinstance(v, SharedVariable):
            shared.append(v)
            seen.add(v)
            continue
        raise MissingInputError(
            f"{who}: the outputs depend on {v} (type {v.type}), which is neither an input, "
            "a shared variable nor a constant; add it to the inputs",
            variable=v,
        )
    if shared and strict:
        names = ", ".join(str(v.name or v) for v in shared)
        raise ValueError(
            f"{who}: The inner-graph implicitly depends on the following shared variables "
            f"[{names}], but strict=True: pass them explicitly in inputs or use "
            "strict=False to add them as implicit inputs"
        )
    outer = inputs + shared
    # A repeated input maps to the graph at its first position; later ones are unused.
    fresh = [_fresh(v) for v in outer]
    memo: dict[Variable, Variable] = {}
    for v, f in zip(outer, fresh):
        memo.setdefault(v, f)
    equiv = clone_get_equiv(list(memo), outputs, copy_inputs=False, copy_orphans=True,
                            memo=memo)
    return InnerGraph(fresh, [equiv[o] for o in outputs], shared, len(inputs))


class GraphKey:
    """A graph from given inputs, compared by value (equal_computations) and hashed alike.

    Entries of ``outputs`` that are not Variables (markers such as
    ``("disconnected",)``) compare by plain equality.
    """

    __slots__ = ("_hash", "inputs", "outputs")

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Any]) -> None:
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self._hash: int | None = None

    def _variables(self) -> list[Variable]:
        return [o for o in self.outputs if isinstance(o, Variable)]

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(structure_signature(self.inputs, self._variables())) ^ hash(
                tuple(o if not isinstance(o, Variable) else None for o in self.outputs)
            )
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, GraphKey) or len(self.outputs) != len(other.outputs):
            return False
        if hash(self) != hash(other):
            return False
        for a, b in zip(self.outputs, other.outputs):
            if isinstance(a, Variable) != isinstance(b, Variable):
                return False
            if not isinstance(a, Variable) and a != b:
                return False
        if [v.type for v in self.inputs] != [v.type for v in other.inputs]:
            return False
        return equal_computations(self._variables(), other._variables(), self.inputs,
                                  other.inputs)


def connection_pattern_of(inputs: Sequence[Variable],
                          outputs: Sequence[Variable]) -> list[list[bool]]:
    """``pattern[i][j]``: output j depends differentiably on input i.

    Unlike a plain reachability walk, each inner node's own
    ``connection_pattern`` is honoured, so a nested disconnected_grad or
    OpFromGraph keeps its pattern when wrapped.
    """
    reach: dict[Variable, int] = {v: 1 << i for i, v in enumerate(inputs)}
    for node in io_toposort(list(inputs), list(outputs)):
        masks = [reach.get(x, 0) for x in node.inputs]
        if not any(masks):
            continue
        try:
            pattern = node.op.connection_pattern(node)
        except Exception:  # an Op with a broken pattern: assume all connected
            pattern = [[True] * len(node.outputs) for _ in node.inputs]
        for j, o in enumerate(node.outputs):
            m = 0
            for i, mask in enumerate(masks):
                if mask and pattern[i][j]:
                    m |= mask
            reach[o] = m
    return [[bool(reach.get(o, 0) & (1 << i)) for o in outputs] for i in range(len(inputs))]


def depends_on_inputs(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> list[bool]:
    """For each input, whether any output reads it at all (structural, not differentiable)."""
    index = {v: i for i, v in enumerate(inputs)}
    used = [False] * len(inputs)
    for v in graph_inputs(list(outputs), blockers=list(inputs)):
        k = index.get(v)
        if k is not None:
            used[k] = True
    return used
