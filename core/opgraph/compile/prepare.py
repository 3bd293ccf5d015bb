"""From function() arguments to the lists a FunctionGraph is built from.

Checks everything a user can get wrong before anything is compiled:
update targets and types, givens, missing and unused inputs, duplicated
inputs.  Shared variables the outputs depend on become implicit inputs, and
their ``default_update`` expressions join the updates.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from opgraph.compile.io import In, Out
from opgraph.graph.basic import Constant, Variable, ancestors, clone_replace, graph_inputs
from opgraph.graph.null_type import NullType
from opgraph.graph.utils import MissingInputError, type_name
from opgraph.link.sharedvalue import SharedVariable

__all__ = ["GraphSpec", "UnusedInputError", "prepare_graph"]


class UnusedInputError(ValueError):
    """An input of function() that no output depends on (``on_unused_input='raise'``)."""


class GraphSpec:
    """Inputs (explicit then implicit), outputs (user then updates) and who updates whom."""

    def __init__(self, inputs: list[In], outputs: list[Out], n_user_outputs: int,
                 update_targets: list[int]) -> None:
        self.inputs = inputs
        self.outputs = outputs
        self.n_user_outputs = n_user_outputs
        #: for output ``n_user_outputs + k``: the input index it updates
        self.update_targets = update_targets

    @property
    def update_mapping(self) -> dict[int, int]:
        """``{output index: input index}`` (FunctionGraph's ``update_mapping``)."""
        return {self.n_user_outputs + k: i for k, i in enumerate(self.update_targets)}


def _pairs(value: Any, what: str) -> list[tuple[Any, Any]]:
    if value is None:
        return []
    if isinstance(value, Mapping):
        return list(value.items())
    if isinstance(value, Iterable) and not isinstance(value, str | Variable):
        items = list(value)
        for item in items:
            if not (isinstance(item, tuple | list) and len(item) == 2):
                raise TypeError(
                    f"function(): {what} must be a dict or a list of (variable, value) pairs, "
                    f"got the item {item!r:.80}"
                )
        return [tuple(i) for i in items]
    raise TypeError(
        f"function(): {what} must be a dict or a list of pairs, got {type_name(value)}"
    )


def _more_specific(old: Any, new: Any) -> bool:
    """``new`` narrows ``old`` without changing which dimensions broadcast (PyTensor's rule)."""
    return (
        old.is_super(new)
        and getattr(old, "broadcastable", None) == getattr(new, "broadcastable", None)
    )


def _update_value(shared: Any, expr: Any) -> Variable:
    if not isinstance(shared, SharedVariable):
        raise TypeError(
            f"function(): updates keys must be shared variables, got {type_name(shared)} "
            f"{shared!r:.60} (only shared variables keep a value between calls)"
        )
    try:
        new = shared.type.filter_variable(expr, allow_convert=True)
    except (TypeError, ValueError) as exc:
        given = getattr(expr, "type", type_name(expr))
        raise TypeError(
            f"function(): the update of shared variable {shared.name or shared!s} must have "
            f"its type {shared.type}, got {given} ({expr!s:.60}): {exc}"
        ) from None
    if getattr(new, "type", None) != shared.type and not _more_specific(shared.type, new.type):
        # As in PyTensor, a static shape that makes a dimension broadcastable (length 1)
        # is refused: the next call would feed the value back through the shared
        # variable's own type.  Other known lengths are only more specific (accepted).
        raise TypeError(
            f"function(): the update of shared variable {shared.name or shared!s} must have "
            f"its type {shared.type}, got {new.type}. If only the static shape differs "
            "(e.g. dimensions of length 1 from dimshuffle('x') or a constant shape), "
            "build the update with the shared variable's static shape, or create the "
            "shared variable with shape=... matching the update"
        )
    return new


def normalize_updates(updates: Any) -> list[tuple[SharedVariable, Variable]]:
    """Checked ``(shared, expression)`` pairs, each shared variable once."""
    out: list[tuple[SharedVariable, Variable]] = []
    seen: set[SharedVariable] = set()
    for shared, expr in _pairs(updates, "updates"):
        new = _update_value(shared, expr)
        if shared in seen:
            raise ValueError(
                f"function(): shared variable {shared.name or shared!s} is updated twice"
            )
        seen.add(shared)
        out.append((shared, new))
    return out


def normalize_givens(givens: Any, strict: bool = True) -> list[tuple[Variable, Variable]]:
    """Checked ``(old, new)`` substitutions; ``new`` converted to ``old``'s type.

    With ``strict=False`` (``function(rebuild_strict=False)``) a replacement
    of another type is kept as is: the graph above it is rebuilt through
    ``make_node``, so its types follow (e.g. a matrix for a vector).
    """
    out = []
    for old, new in _pairs(givens, "givens"):
        if not isinstance(old, Variable):
            raise TypeError(
                f"function(): givens keys must be symbolic Variables, got {type_name(old)}"
            )
        try:
            conv = old.type.filter_variable(new, allow_convert=True)
        except (TypeError, ValueError) as exc:
            if not strict and isinstance(new, Variable):
                out.append((old, new))
                continue
            raise TypeError(
                f"function(): givens for {old}: the replacement {new!s:.60} does not fit "
                f"type {old.type}: {exc}"
            ) from None
        out.append((old, conv))
    return out


def prepare_graph(
    inputs: Sequence[In],
    outputs: Sequence[Out],
    updates: Any = None,
    givens: Any = None,
    no_default_updates: bool | Sequence[Any] = False,
    on_unused_input: str = "raise",
    rebuild_strict: bool = True,
) -> GraphSpec:
    """Apply givens, collect shared inputs and updates, check inputs; see module doc."""
    if on_unused_input not in ("raise", "warn", "ignore"):
        raise ValueError(
            f"function(): on_unused_input must be 'raise', 'warn' or 'ignore', "
            f"got {on_unused_input!r}"
        )
    check_no_default_updates(no_default_updates)
    update_pairs = normalize_updates(updates)
    given_pairs = normalize_givens(givens, rebuild_strict)
    explicit = list(inputs)
    _check_duplicates(explicit)
    input_set = {i.variable for i in explicit}
    for old, _ in given_pairs:
        if old in input_set:
            raise RuntimeError(
                f"function(): givens replaces {old}, which is also an explicit input; "
                "an input cannot be substituted (remove it from inputs or from givens)"
            )

    # Substitute givens everywhere an expression appears (outputs, updates, In.update).
    exprs: list[Variable] = [o.variable for o in outputs]
    exprs += [e for _, e in update_pairs]
    exprs += [i.update for i in explicit if i.update is not None]
    if given_pairs:
        exprs = clone_replace(exprs, replace=given_pairs)
    n_out = len(outputs)
    outputs = [Out(v, o.borrow) for v, o in zip(exprs[:n_out], outputs)]
    update_pairs = [(s, v) for (s, _), v in zip(update_pairs, exprs[n_out:])]
    rest = iter(exprs[n_out + len(update_pairs):])
    in_updates = [next(rest) if i.update is not None else None for i in explicit]

    # Shared variables: implicit inputs, plus their default updates (to a fixpoint), in
    # PyTensor's order (see _collect_shared): the order of the function's inputs, hence of
    # its update outputs, decides which generator a seeded re-seeding (PyMC) gives each RNG.
    input_vars = [i.variable for i in explicit]
    known = set(input_vars)
    implicit, update_pairs = _collect_shared(
        [o.variable for o in outputs] + [e for e in in_updates if e is not None],
        update_pairs, known, given_pairs, no_default_updates)

    all_exprs = [o.variable for o in outputs] + [e for _, e in update_pairs]
    all_exprs += [e for e in in_updates if e is not None]
    _check_unused(explicit, all_exprs, on_unused_input)  # PyTensor reports this one first
    _check_missing(all_exprs, known)

    spec_inputs = list(explicit)
    for i, upd in zip(range(len(explicit)), in_updates):
        if upd is not None:
            spec_inputs[i] = _with_update(explicit[i], upd)
    spec_inputs += [In(s, implicit=True) for s in implicit]
    for k, i in enumerate(spec_inputs):
        if isinstance(i.variable, SharedVariable) and i.update is not None:
            raise TypeError(
                f"function(): input {k} is the shared variable {i.variable}; give its update "
                "in updates=..., not in In(update=...)"
            )
    # Update outputs in the order of the inputs they update (as PyTensor's function).
    shared_updates = dict(update_pairs)
    all_outputs = list(outputs)
    targets: list[int] = []
    for k, i in enumerate(spec_inputs):
        expr = i.update if i.update is not None else shared_updates.get(i.variable)
        if expr is not None:
            all_outputs.append(Out(expr, borrow=True))
            targets.append(k)
    return GraphSpec(spec_inputs, all_outputs, n_out, targets)


def _leaves_in_order(root: Variable, blockers: set[Variable],
                     visited: set[Variable]) -> list[Variable]:
    """The leaves of ``root``'s graph as a left-to-right depth-first walk first reaches
    them (stopping at ``blockers``), skipping what ``visited`` holds (and adding to it)."""
    found: list[Variable] = []
    stack = [root]
    while stack:
        v = stack.pop()
        if v in visited:
            continue
        visited.add(v)
        if v.owner is not None and v not in blockers:
            stack.extend(reversed(v.owner.inputs))
        else:
            found.append(v)
    return found


def _collect_shared(roots: list[Variable], given: list[tuple[SharedVariable, Variable]],
                    known: set[Variable], given_pairs: list, no_default_updates: Any
                    ) -> tuple[list[SharedVariable], list[tuple[SharedVariable, Variable]]]:
    """The implicit shared inputs and every update, in PyTensor's order.

    The outputs are walked first, each left to right, a shared variable becoming
    an input when first reached (its ``default_update``, when it has one and no
    update was given, joining the updates); then each update expression in turn,
    the given ones first, its target becoming an input after it if not one yet.
    """
    updates = list(given)
    updated = {s for s, _ in updates}
    implicit: list[SharedVariable] = []
    visited: set[Variable] = set()

    def walk(root: Variable) -> None:
        for v in _leaves_in_order(root, known, visited):
            if not isinstance(v, SharedVariable):
                continue
            if v not in known:
                known.add(v)
                implicit.append(v)
            upd = getattr(v, "default_update", None)
            if v not in updated and upd is not None and \
                    _wants_default_update(v, no_default_updates):
                if given_pairs:  # givens apply to default updates too
                    upd = clone_replace([upd], replace=given_pairs)[0]
                updates.append((v, _update_value(v, upd)))
                updated.add(v)

    for root in roots:
        walk(root)
    k = 0
    while k < len(updates):  # grows while default updates are discovered
        target, expr = updates[k]
        walk(expr)
        if target not in known:  # updated but not read: still an (implicit) input
            known.add(target)
            implicit.append(target)
        k += 1
    return implicit, updates


def _with_update(item: In, update: Variable) -> In:
    new = In(item.variable, name=item.name, value=item.value, update=update,
             mutable=item.mutable, strict=item.strict, allow_downcast=item.allow_downcast,
             implicit=item.implicit, borrow=item.borrow)
    return new


def check_no_default_updates(value: Any) -> None:
    """TypeError unless ``value`` is a bool or a list of shared variables."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, list | tuple | set) and all(isinstance(v, Variable) for v in value):
        return
    raise TypeError(
        f"function(): no_default_updates must be True, False or a list of shared variables, "
        f"got {type_name(value)} {value!r:.60}"
    )


def _wants_default_update(var: SharedVariable, no_default_updates: Any) -> bool:
    if no_default_updates is True:
        return False
    if no_default_updates is False or no_default_updates is None:
        return True
    return var not in list(no_default_updates)


def _check_duplicates(inputs: Sequence[In]) -> None:
    seen: dict[Variable, int] = {}
    for k, i in enumerate(inputs):
        if i.variable in seen:
            raise UnusedInputError(
                f"function(): variable {i.variable} is used twice in inputs (positions "
                f"{seen[i.variable]} and {k}); each variable may be an input only once"
            )
        seen[i.variable] = k


def _check_missing(exprs: Sequence[Variable], known: set[Variable]) -> None:
    for v in graph_inputs(exprs, blockers=known):
        if v in known or isinstance(v, Constant):
            continue
        if isinstance(v.type, NullType):  # an undefined gradient (as PyTensor: TypeError)
            raise TypeError(f"function(): the outputs contain an undefined gradient. "
                            f"{v.type.why_null}")
        raise MissingInputError(
            f"function(): the outputs depend on {v!s} (type {v.type}), which is neither an "
            "input, a shared variable nor a constant; add it to the inputs or give it a "
            "value with givens=",
            variable=v,
        )


def _check_unused(inputs: Sequence[In], exprs: Sequence[Variable], policy: str) -> None:
    if policy == "ignore" or not inputs:
        return
    used = set(ancestors(exprs, blockers=[i.variable for i in inputs]))
    for k, i in enumerate(inputs):
        if i.variable in used:
            continue
        msg = (
            f"function() was asked to compute outputs from input {k} ({i.name or i.variable}), "
            "but no output depends on it. Pass on_unused_input='warn' to make this a "
            "warning, or on_unused_input='ignore' to allow it."
        )
        if policy == "raise":
            raise UnusedInputError(msg)
        warnings.warn(msg, UserWarning, stacklevel=4)
