"""Facts about matrices (diagonal, symmetric, ...) that flow through a graph.

A fact about a variable is a ``FactState``: known TRUE, known FALSE, UNKNOWN,
or CONFLICT (two sources disagree). Facts enter the graph through
``assume`` (a ``SpecifyAssumptions`` node) and flow through Ops by rules:
``register_assumption(key, OpClass)`` registers a function that, given the
input states, returns the state of every output. Implications between keys
(DIAGONAL implies SYMMETRIC, ...) are applied both ways: a TRUE stronger fact
makes the weaker one TRUE, a FALSE weaker fact makes the stronger one FALSE.

``AssumptionFeature`` answers ``get(var, key)`` / ``check(var, key)`` on demand
and caches the answers until the graph changes. Rewrites use it to pick a
cheaper algorithm (a triangular solve for a triangular matrix, ...).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.features import AlreadyThere, Feature

__all__ = [
    "ALL_KEYS",
    "ASSUMPTION_INFER_REGISTRY",
    "CONSTANT_INFER_REGISTRY",
    "DIAGONAL",
    "IMPLIES",
    "LOWER_TRIANGULAR",
    "ORTHOGONAL",
    "PERMUTATION",
    "POSITIVE_DEFINITE",
    "SELECTION",
    "SYMMETRIC",
    "UPPER_TRIANGULAR",
    "AssumptionFeature",
    "AssumptionKey",
    "ConflictingAssumptionsError",
    "ConstantInferFn",
    "FactState",
    "InferFactFn",
    "all_inputs_have_key",
    "check_assumption",
    "infer_assumption_for_node",
    "propagate_first",
    "register_assumption",
    "register_constant_inference",
    "register_implies",
    "same_as_input",
    "true_if",
]


class ConflictingAssumptionsError(ValueError):
    """A variable is both asserted and inferred to have contradicting facts."""


class FactState(enum.Enum):
    """What is known about one fact of one variable."""

    UNKNOWN = "unknown"
    TRUE = "true"
    FALSE = "false"
    CONFLICT = "conflict"

    def __bool__(self) -> bool:
        # ``if state:`` would read UNKNOWN and FALSE alike: make callers say what they mean.
        raise TypeError(
            "FactState has no boolean value: compare with FactState.TRUE / FactState.FALSE "
            "or use AssumptionFeature.check"
        )

    @staticmethod
    def join(left: FactState, right: FactState) -> FactState:
        """Combine two sources of knowledge about the same fact."""
        if left is FactState.UNKNOWN:
            return right
        if right is FactState.UNKNOWN or left is right:
            return left
        return FactState.CONFLICT


@attrs.frozen
class AssumptionKey:
    """The name of a fact (``"diagonal"``); ``short`` is its tag in debugprint."""

    name: str
    short: str = attrs.field(default="")

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise TypeError(f"AssumptionKey: name must be an identifier string, got {self.name!r}")
        if not self.short:
            object.__setattr__(self, "short", self.name)

    def __str__(self) -> str:
        return self.name


DIAGONAL = AssumptionKey("diagonal", "diag")
LOWER_TRIANGULAR = AssumptionKey("lower_triangular", "tril")
UPPER_TRIANGULAR = AssumptionKey("upper_triangular", "triu")
SYMMETRIC = AssumptionKey("symmetric", "sym")
POSITIVE_DEFINITE = AssumptionKey("positive_definite", "pd")
ORTHOGONAL = AssumptionKey("orthogonal", "orth")
#: a 0/1 matrix with at most one 1 per row (it selects entries of what it multiplies)
SELECTION = AssumptionKey("selection", "sel")
#: a permutation matrix (a selection that is also orthogonal)
PERMUTATION = AssumptionKey("permutation", "perm")

#: The built-in keys, in the order debugprint lists them.
BUILTIN_KEYS: tuple[AssumptionKey, ...] = (
    DIAGONAL, LOWER_TRIANGULAR, UPPER_TRIANGULAR, SYMMETRIC, POSITIVE_DEFINITE, ORTHOGONAL,
    SELECTION, PERMUTATION,
)
ALL_KEYS = BUILTIN_KEYS  # PyTensor's name

#: ``IMPLIES[stronger]`` is the set of keys a TRUE ``stronger`` makes TRUE (transitively).
IMPLIES: dict[AssumptionKey, set[AssumptionKey]] = {
    DIAGONAL: {SYMMETRIC, LOWER_TRIANGULAR, UPPER_TRIANGULAR},
    POSITIVE_DEFINITE: {SYMMETRIC},
    PERMUTATION: {SELECTION, ORTHOGONAL},
}


def register_implies(stronger: AssumptionKey, *weaker: AssumptionKey) -> None:
    """Declare that ``stronger`` TRUE makes each of ``weaker`` TRUE (and, the other way,
    a FALSE weaker key makes ``stronger`` FALSE)."""
    for key in (stronger, *weaker):
        if not isinstance(key, AssumptionKey):
            raise TypeError(f"register_implies: expected AssumptionKeys, got {key!r}")
    IMPLIES.setdefault(stronger, set()).update(weaker)


ConstantInferFn = Callable[[Any], "FactState"]
#: ``{key: fn}``: how a fact is read off a constant's value (a root with data)
CONSTANT_INFER_REGISTRY: dict[AssumptionKey, ConstantInferFn] = {}


def register_constant_inference(key: AssumptionKey, fn: ConstantInferFn) -> None:
    """Make ``fn(constant) -> FactState`` say what ``key`` is for constant variables."""
    if not isinstance(key, AssumptionKey):
        raise TypeError(f"register_constant_inference: key must be an AssumptionKey, got {key!r}")
    CONSTANT_INFER_REGISTRY[key] = fn

Rule = Callable[..., Iterable[FactState]]
InferFactFn = Rule  # PyTensor's name

#: ``{(key, op class): rule}``; a rule is
#: ``rule(key, op, feature, fgraph, node, input_states) -> [state per output]``.
ASSUMPTION_INFER_REGISTRY: dict[tuple[AssumptionKey, type], Rule] = {}


def register_assumption(key: AssumptionKey, *op_types: type) -> Callable[[Rule], Rule]:
    """Decorator: ``rule`` says how ``key`` flows through Ops of ``op_types``."""
    if not isinstance(key, AssumptionKey):
        raise TypeError(f"register_assumption: key must be an AssumptionKey, got {key!r}")
    if not op_types or not all(isinstance(t, type) for t in op_types):
        raise TypeError(f"register_assumption: give one or more Op classes, got {op_types!r}")

    def decorate(rule: Rule) -> Rule:
        for t in op_types:
            ASSUMPTION_INFER_REGISTRY[(key, t)] = rule
        return rule

    return decorate


def same_as_input(key: AssumptionKey, op: Any, feature: Any, fgraph: Any, node: Apply,
                  input_states: list[FactState]) -> list[FactState]:
    """A rule for Ops whose output has a fact exactly when their first input has it
    (the inverse of a matrix is diagonal iff the matrix is, ...)."""
    return [input_states[0]] * len(node.outputs)


def true_if(cond: bool, else_false: bool = False) -> list[FactState]:
    """``[TRUE]`` when ``cond``, else ``[FALSE]`` (``else_false``) or ``[UNKNOWN]``."""
    if cond:
        return [FactState.TRUE]
    return [FactState.FALSE if else_false else FactState.UNKNOWN]


def propagate_first(key: AssumptionKey, op: Any, feature: Any, fgraph: Any, node: Apply,
                    input_states: list[FactState]) -> list[FactState]:
    """A rule: the output has the fact when the first input is known to have it."""
    return true_if(input_states[0] is FactState.TRUE)


def all_inputs_have_key(key: AssumptionKey, op: Any, feature: Any, fgraph: Any, node: Apply,
                        input_states: list[FactState]) -> list[FactState]:
    """A rule: the output has the fact when every input is known to have it."""
    return true_if(all(s is FactState.TRUE for s in input_states))


def _from_constant(var: Variable, key: AssumptionKey) -> FactState:
    fn = CONSTANT_INFER_REGISTRY.get(key)
    if fn is None or not isinstance(var, Constant):
        return FactState.UNKNOWN
    return fn(var)


def infer_assumption_for_node(key: AssumptionKey, op: Any, feature: Any, fgraph: Any,
                              node: Apply, input_states: list[FactState]) -> list[FactState]:
    """The ``key`` state of each output of ``node`` by the rule for its Op (UNKNOWN when
    there is none)."""
    rule = find_rule(key, op)
    if rule is None:
        return [FactState.UNKNOWN] * len(node.outputs)
    states = list(rule(key, op, feature, fgraph, node, input_states))
    if len(states) != len(node.outputs):
        raise ValueError(f"an assumption rule returned {len(states)} states for "
                         f"{len(node.outputs)} outputs on {node}")
    return states


def find_rule(key: AssumptionKey, op: Any) -> Rule | None:
    """The rule registered for ``key`` and the most specific class of ``op``."""
    for cls in type(op).__mro__:
        rule = ASSUMPTION_INFER_REGISTRY.get((key, cls))
        if rule is not None:
            return rule
    return None


def _closure(key: AssumptionKey, forward: bool) -> set[AssumptionKey]:
    """Keys implied by ``key`` (forward) or implying it (backward), transitively."""
    found: set[AssumptionKey] = set()
    todo = [key]
    while todo:
        k = todo.pop()
        if forward:
            nxt = IMPLIES.get(k, ())
        else:
            nxt = [s for s, weaker in IMPLIES.items() if k in weaker]
        for n in nxt:
            if n not in found and n != key:
                found.add(n)
                todo.append(n)
    return found


def stronger_keys(key: AssumptionKey) -> set[AssumptionKey]:
    """Keys whose TRUE makes ``key`` TRUE."""
    return _closure(key, forward=False)


def weaker_keys(key: AssumptionKey) -> set[AssumptionKey]:
    """Keys a TRUE ``key`` makes TRUE (so whose FALSE makes ``key`` FALSE)."""
    return _closure(key, forward=True)


class AssumptionFeature(Feature):
    """Answers what is known about a variable, inferring through the graph on demand.

    Works attached to a FunctionGraph (answers are dropped when the graph
    changes) or on its own for a one-off question about a graph.
    """

    def __init__(self) -> None:
        self.fgraph: Any = None
        self._cache: dict[tuple[Variable, AssumptionKey], FactState] = {}
        #: facts stated for a variable itself (kept when its assume() node is removed)
        self._declared: dict[tuple[Variable, AssumptionKey], FactState] = {}

    def declare(self, var: Variable, key: AssumptionKey, state: FactState) -> None:
        """Record ``state`` of ``key`` for ``var`` as if asserted by ``assume``."""
        new = FactState.join(self._declared.get((var, key), FactState.UNKNOWN), state)
        if new is FactState.CONFLICT:
            raise ConflictingAssumptionsError(f"{var} is declared both ways for '{key.name}'")
        self._declared[(var, key)] = new
        self._cache.clear()

    def on_attach(self, fgraph: Any) -> None:
        if any(isinstance(f, AssumptionFeature) for f in getattr(fgraph, "_features", ())
               if f is not self):
            raise AlreadyThere("AssumptionFeature is already attached")
        self.fgraph = fgraph
        fgraph.assumption_feature = self
        self._cache.clear()

    def on_detach(self, fgraph: Any) -> None:
        self.fgraph = None
        if getattr(fgraph, "assumption_feature", None) is self:
            del fgraph.assumption_feature
        self._cache.clear()

    def on_change_input(self, fgraph: Any, node: Any, i: int, r: Any, new_r: Any,
                        reason: Any = None) -> None:
        self._cache.clear()

    def on_import(self, fgraph: Any, node: Apply, reason: Any) -> None:
        self._cache.clear()

    def on_prune(self, fgraph: Any, node: Apply, reason: Any) -> None:
        self._cache.clear()

    def check(self, var: Variable, key: AssumptionKey) -> bool:
        """True when ``key`` is known TRUE for ``var``."""
        return self.get(var, key) is FactState.TRUE

    def get(self, var: Variable, key: AssumptionKey) -> FactState:
        """What is known about ``key`` for ``var``; raises on a contradiction."""
        if not isinstance(var, Variable):
            raise TypeError(f"AssumptionFeature.get: var must be a Variable, got {var!r:.60}")
        if not isinstance(key, AssumptionKey):
            raise TypeError(f"AssumptionFeature.get: key must be an AssumptionKey, got {key!r}")
        state = self._state(var, key)
        if state is FactState.CONFLICT:
            raise ConflictingAssumptionsError(
                f"{var} is assumed and inferred to have contradicting '{key.name}' facts"
            )
        return state

    def _state(self, var: Variable, key: AssumptionKey) -> FactState:
        state = self._direct(var, key)
        for s in stronger_keys(key):
            if self._direct(var, s) is FactState.TRUE:
                state = FactState.join(state, FactState.TRUE)
        for w in weaker_keys(key):
            if self._direct(var, w) is FactState.FALSE:
                state = FactState.join(state, FactState.FALSE)
        return state

    def _direct(self, var: Variable, key: AssumptionKey) -> FactState:
        """The state from the Op rules alone, computed bottom-up without recursion."""
        cached = self._cache.get((var, key))
        if cached is not None:
            return cached
        stack: list[tuple[Variable, bool]] = [(var, False)]
        while stack:
            v, expanded = stack.pop()
            if (v, key) in self._cache:
                continue
            node = v.owner
            rule = find_rule(key, node.op) if node is not None else None
            if rule is None:
                self._cache[(v, key)] = FactState.join(
                    self._declared.get((v, key), FactState.UNKNOWN), _from_constant(v, key))
                continue
            if not expanded:
                stack.append((v, True))
                stack.extend((i, False) for i in node.inputs if (i, key) not in self._cache)
                continue
            ins = [self._state(i, key) for i in node.inputs]
            outs = infer_assumption_for_node(key, node.op, self, self.fgraph, node, ins)
            for o, st in zip(node.outputs, outs, strict=True):
                self._cache[(o, key)] = FactState.join(
                    st, self._declared.get((o, key), FactState.UNKNOWN))
        return self._cache[(var, key)]

    def known_facts(self, var: Variable, keys: Iterable[AssumptionKey] = BUILTIN_KEYS,
                    ) -> dict[AssumptionKey, FactState]:
        """The keys known TRUE or FALSE (or in CONFLICT) for ``var``."""
        out = {}
        for k in keys:
            st = self._state(var, k)
            if st is not FactState.UNKNOWN:
                out[k] = st
        return out


def check_assumption(fgraph: Any, var: Variable, key: AssumptionKey) -> bool:
    """Whether ``key`` is known TRUE for ``var`` in ``fgraph`` (an AssumptionFeature is
    attached when the graph has none; no graph: False)."""
    if fgraph is None:
        return False
    feature = getattr(fgraph, "assumption_feature", None)
    if feature is None:
        feature = AssumptionFeature()
        fgraph.attach_feature(feature)
    return feature.check(var, key)
