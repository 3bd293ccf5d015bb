"""Gradient overrides of OpFromGraph: normalising what users pass, freezing it, resolving it.

Users override the pullback (per input) or the pushforward (per output) with
None/'default', a callable, an OpFromGraph, or a NullType/DisconnectedType
marker, either for everything at once or as a list with one entry per item.
This module turns all of these into :class:`Overrides`: a value-comparable
record (so equal OpFromGraphs compare equal) that, at first use, yields one
result per item: a Variable, a :class:`Marker`, or :data:`DEFAULT`.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from opgraph.graph.basic import Variable
from opgraph.graph.null_type import DisconnectedType, NullType
from opgraph.tensor.variable import as_tensor_variable
from opgraph_ofg.inner import GraphKey

__all__ = ["DEFAULT", "Marker", "Overrides", "normalize_overrides"]

DEFAULT = "default"
"""An item whose gradient is the one computed from the inner graph."""


@attrs.frozen
class Marker:
    """A gradient that is disconnected (numerically zero) or undefined (NullType)."""

    kind: str  # "disconnected" | "null"
    why: str = ""

    def variable(self) -> Variable:
        """A fresh marker Variable for the gradient drivers."""
        if self.kind == "null":
            return NullType(self.why)()
        return DisconnectedType()()

    @classmethod
    def of(cls, value: Any) -> Marker | None:
        """The marker ``value`` stands for (a NullType/DisconnectedType Type or Variable)."""
        t = value.type if isinstance(value, Variable) else value
        if isinstance(t, NullType):
            return cls("null", t.why_null)
        if isinstance(t, DisconnectedType):
            return cls("disconnected")
        return None


class _Kind:
    CALLABLE = "callable"
    OFG = "ofg"
    MARKER = "marker"
    DEFAULT = "default"


class Entry:
    """One override: its kind, the user's object, and the frozen key used in equality."""

    __slots__ = ("key", "kind", "value")

    def __init__(self, kind: str, value: Any, key: Any) -> None:
        self.kind = kind
        self.value = value
        self.key = key


class Overrides:
    """Normalised overrides of one direction (pullback or pushforward).

    ``whole`` covers every item at once; otherwise ``items`` has one Entry per
    item (None means no override at all).
    """

    __slots__ = ("direction", "items", "n_items", "whole")

    def __init__(self, direction: str, n_items: int, whole: Entry | None,
                 items: list[Entry] | None) -> None:
        self.direction = direction
        self.n_items = n_items
        self.whole = whole
        self.items = items

    @property
    def is_default(self) -> bool:
        return self.whole is None and (
            self.items is None or all(e.kind == _Kind.DEFAULT for e in self.items)
        )

    def key(self) -> Any:
        """The frozen representation compared by OpFromGraph equality."""
        if self.is_default:
            return None
        if self.whole is not None:
            return ("whole", self.whole.key)
        return ("items", tuple(e.key for e in self.items or ()))

    def resolve(self, ins: list[Variable], outs: list[Variable],
                third: list[Variable]) -> list[Any]:
        """One result per item for these inner variables (the first-use call)."""
        if self.is_default:
            return [DEFAULT] * self.n_items
        if self.whole is not None:
            return _call_whole(self.whole, self, ins, outs, third)
        return [_call_item(e, self, k, ins, outs, third) for k, e in enumerate(self.items or ())]


# -- normalisation ---------------------------------------------------------------------


def _is_default(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value == "default")


def _positional_arity(fn: Callable[..., Any]) -> int | None:
    """How many positional arguments ``fn`` requires (None: takes *args / unknown)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    n = 0
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            return None
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty:
            n += 1
    return n


def _adapt_callable(fn: Callable[..., Any], who: str) -> Callable[..., Any]:
    """A 3-argument callable; a Theano-style 2-argument one is wrapped with a warning."""
    arity = _positional_arity(fn)
    if arity == 2:
        warnings.warn(
            f"{who}: a callable taking 2 arguments (inputs, output_grads / eval_points) is the "
            "deprecated Theano form; take (inputs, outputs, output_grads) instead",
            DeprecationWarning,
            stacklevel=5,
        )

        def three(ins: Any, outs: Any, third: Any) -> Any:
            return fn(ins, third)

        three.__wrapped__ = fn  # type: ignore[attr-defined]
        return three
    if arity is not None and arity != 3:
        raise TypeError(
            f"{who}: an override callable must take (inputs, outputs, output_grads); "
            f"{getattr(fn, '__name__', fn)!s} takes {arity} positional arguments"
        )
    return fn


def normalize_overrides(value: Any, direction: str, who: str, in_vars: Sequence[Variable],
                        out_vars: Sequence[Variable], *, ofg_type: type | tuple[type, ...] = (),
                        ) -> Overrides:
    """Check ``value`` and freeze it, calling each callable once on dummy variables.

    ``direction`` is "pullback" (one item per input) or "pushforward" (one per
    output); ``in_vars``/``out_vars`` give the types of the dummies.  ``ofg_type``
    is the OpFromGraph class (given by op.py, which imports this module: an
    override of that type is used as a graph, not called).
    """
    n_items = len(in_vars) if direction == "pullback" else len(out_vars)
    item_word = "input" if direction == "pullback" else "output"
    dummies = _dummies(direction, in_vars, out_vars)
    if _is_default(value):
        return Overrides(direction, n_items, None, None)
    if isinstance(value, list | tuple):
        if len(value) != n_items:
            raise ValueError(
                f"{who}: the {direction} override list must have one entry per {item_word} "
                f"({n_items}); got {len(value)}"
            )
        items = [_entry(v, direction, f"{who}: {direction}[{k}]", dummies, single=True,
                        ofg_type=ofg_type)
                 for k, v in enumerate(value)]
        return Overrides(direction, n_items, None, items)
    marker = Marker.of(value)
    if marker is not None:
        items = [Entry(_Kind.MARKER, marker, marker) for _ in range(n_items)]
        return Overrides(direction, n_items, None, items)
    whole = _entry(value, direction, f"{who}: {direction}", dummies, single=False,
                   n_items=n_items, ofg_type=ofg_type)
    return Overrides(direction, n_items, whole, None)


def _dummies(direction: str, in_vars: Sequence[Variable],
             out_vars: Sequence[Variable]) -> tuple[list, list, list]:
    ins = [v.type() for v in in_vars]
    outs = [v.type() for v in out_vars]
    third = [v.type() for v in (out_vars if direction == "pullback" else in_vars)]
    return ins, outs, third


def _entry(value: Any, direction: str, who: str, dummies: tuple[list, list, list],
           single: bool, n_items: int = 1, ofg_type: type | tuple[type, ...] = ()) -> Entry:
    if _is_default(value):
        return Entry(_Kind.DEFAULT, None, DEFAULT)
    marker = Marker.of(value)
    if marker is not None:
        if not single:
            raise TypeError(f"{who}: internal error, marker given as a whole override")
        return Entry(_Kind.MARKER, marker, marker)
    ins, outs, third = dummies
    if isinstance(value, ofg_type):
        _ofg_convention(value, direction, len(ins), len(outs), who)
        want = 1 if single else n_items
        if len(value.inner_outputs) != want:
            raise ValueError(
                f"{who}: the OpFromGraph override must have {want} output(s); it has "
                f"{len(value.inner_outputs)}"
            )
        return Entry(_Kind.OFG, value, ("ofg", value))
    if callable(value):
        fn = _adapt_callable(value, who)
        entry = Entry(_Kind.CALLABLE, fn, None)
        results = _invoke(fn, who, ins, outs, third, single, n_items)
        entry.key = ("graph", GraphKey([*ins, *outs, *third], results))
        return entry
    raise TypeError(
        f"{who}: expected None, 'default', a callable, an OpFromGraph or a "
        f"NullType/DisconnectedType marker; got {type(value).__name__} {value!r:.60}"
    )


def _ofg_convention(op: Any, direction: str, n_in: int, n_out: int, who: str) -> bool:
    """Whether the override OpFromGraph takes outputs too (True) or not (False)."""
    nin = op.n_explicit_inputs
    third = n_out if direction == "pullback" else n_in
    if nin == n_in + n_out + third:
        return True
    if nin == n_in + third:
        return False
    raise ValueError(
        f"{who}: the OpFromGraph override must take (inputs, outputs, "
        f"{'output_grads' if direction == 'pullback' else 'eval_points'}): "
        f"{n_in + n_out + third} inputs (or {n_in + third} without outputs); it takes {nin}"
    )


def _as_result(value: Any, who: str) -> Any:
    """A Variable or a Marker from what an override returned."""
    if value is None:
        return Marker("disconnected")
    marker = Marker.of(value)
    if marker is not None:
        return marker
    if isinstance(value, Variable):
        return value
    try:
        return as_tensor_variable(value)
    except Exception as exc:
        raise TypeError(f"{who} returned {type(value).__name__} {value!r:.60}; expected a "
                        "Variable") from exc


def _invoke(fn: Callable[..., Any], who: str, ins: list, outs: list, third: list,
            single: bool, n_items: int) -> list[Any]:
    result = fn(list(ins), list(outs), list(third))
    if single:
        if isinstance(result, list | tuple):
            if len(result) != 1:
                raise ValueError(f"{who} must return one Variable; got {len(result)} values")
            result = result[0]
        return [_as_result(result, who)]
    if not isinstance(result, list | tuple):
        result = [result]
    if len(result) != n_items:
        raise ValueError(f"{who} returned {len(result)} values; expected {n_items}")
    return [_as_result(r, who) for r in result]


def _call_ofg(op: Any, direction: str, ins: list, outs: list, third: list, who: str) -> list:
    with_outputs = _ofg_convention(op, direction, len(ins), len(outs), who)
    args = [*ins, *outs, *third] if with_outputs else [*ins, *third]
    return [_as_result(r, who) for r in op(*args, return_list=True)]


def _call_whole(entry: Entry, ov: Overrides, ins: list, outs: list, third: list) -> list:
    who = f"OpFromGraph {ov.direction} override"
    if entry.kind == _Kind.OFG:
        return _call_ofg(entry.value, ov.direction, ins, outs, third, who)
    return _invoke(entry.value, who, ins, outs, third, False, ov.n_items)


def _call_item(entry: Entry, ov: Overrides, k: int, ins: list, outs: list,
               third: list) -> Any:
    who = f"OpFromGraph {ov.direction}[{k}] override"
    if entry.kind == _Kind.DEFAULT:
        return DEFAULT
    if entry.kind == _Kind.MARKER:
        return entry.value
    if entry.kind == _Kind.OFG:
        return _call_ofg(entry.value, ov.direction, ins, outs, third, who)[0]
    return _invoke(entry.value, who, ins, outs, third, True, 1)[0]
