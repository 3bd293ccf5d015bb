"""Patterns over Ops: match an Op by class (or instance) and by some of its parameters.

``OpPattern(CAReduce, axis=None)`` matches every CAReduce whose ``axis`` is
None, whatever its other parameters. A string parameter value is a logic
variable: it matches anything and binds the name (``OpPattern(MyOp, x="x")``
binds ``x`` to ``op.x``); wrap a string in ``LiteralString`` to match it
literally. OpPatterns nest (``OpPattern(Blockwise, core_op=OpPattern(Solve))``)
and serve as ``tracks`` of node rewriters and heads of PatternNodeRewriter
patterns.

PyTensor's unification names (``ConstrainedVar``, ``convert_strs_to_vars``,
``eval_if_etuple``) and the ``unify``/``reify`` rules for graphs live in
``opgraph.graph.rewriting.logic``, which needs the optional packages of
``opgraph[kanren]``; they are loaded from here on first use.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from opgraph.graph.op import Op
from opgraph.graph.utils import lazy_exports, type_name

__all__ = ["PATTERN_CONSTANT_BUILDERS", "LiteralString", "OpPattern", "register_pattern_constant"]

#: Builders of the constant for a number in a pattern (the tensor layer registers
#: ``opgraph.tensor.constant``); the first one is used.
PATTERN_CONSTANT_BUILDERS: list[Callable[[Any], Any]] = []


def register_pattern_constant(build: Callable[[Any], Any]) -> None:
    """Make ``build(value)`` the Constant a number or array in a pattern stands for."""
    if build not in PATTERN_CONSTANT_BUILDERS:
        PATTERN_CONSTANT_BUILDERS.insert(0, build)


_LOGIC = "opgraph.graph.rewriting.logic"
__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(
    ("ConstrainedVar", "convert_strs_to_vars", "eval_if_etuple", "apply_Op_ExpressionTuple",
     "car_Op", "car_Type", "car_Variable", "cdr_Op", "cdr_Type", "cdr_Variable"), _LOGIC))


@dataclass(frozen=True)
class LiteralString:
    """A string parameter value to match literally (a bare string is a variable)."""

    value: str


class OpPattern:
    """Matches Ops of ``op_type`` (a class, or an instance to compare with) and parameters.

    Parameters not given are not looked at.
    """

    __slots__ = ("op_type", "parameters")

    def __init__(
        self,
        op_type: type[Op] | Op,
        parameters: Mapping[str, Any] | tuple[tuple[str, Any], ...] | None = None,
        **kwargs: Any,
    ) -> None:
        if not (isinstance(op_type, Op) or (isinstance(op_type, type) and issubclass(op_type, Op))):
            raise TypeError(
                f"OpPattern: op_type must be an Op class or instance, got "
                f"{type_name(op_type)} {op_type!r:.60}"
            )
        params = dict(parameters.items() if isinstance(parameters, Mapping) else parameters or ())
        overlap = set(params) & set(kwargs)
        if overlap:
            raise ValueError(f"OpPattern: parameters given twice: {sorted(overlap)}")
        params.update(kwargs)
        self.op_type = op_type
        self.parameters = tuple(sorted(params.items()))

    def match_op(self, op: Any) -> bool:
        """True when ``op`` is of this type and has the literal parameters asked for."""
        return self.match(op, {}) is not None

    def match(self, op: Any, bindings: dict[str, Any]) -> dict[str, Any] | None:
        """``bindings`` extended with this pattern's variables, or None if ``op`` differs.

        A variable already bound must see an equal value.
        """
        if isinstance(self.op_type, type):
            if not isinstance(op, self.op_type):
                return None
        elif op != self.op_type:
            return None
        out = dict(bindings)
        for name, want in self.parameters:
            if not hasattr(op, name):
                return None
            have = getattr(op, name)
            if isinstance(want, OpPattern):
                sub = want.match(have, out)
                if sub is None:
                    return None
                out = sub
            elif isinstance(want, LiteralString):
                if have != want.value:
                    return None
            elif isinstance(want, str):
                if want in out:
                    if out[want] != have:
                        return None
                else:
                    out[want] = have
            elif not _equal(have, want):
                return None
        return out

    @property
    def op_class(self) -> type:
        """The Op class every matching Op is an instance of (for dispatch tables)."""
        return self.op_type if isinstance(self.op_type, type) else type(self.op_type)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, OpPattern)
            and self.op_type == other.op_type
            and self.parameters == other.parameters
        )

    def __hash__(self) -> int:
        try:
            return hash((OpPattern, self.op_type, self.parameters))
        except TypeError:
            return hash((OpPattern, self.op_type))

    def __repr__(self) -> str:
        name = self.op_type.__name__ if isinstance(self.op_type, type) else str(self.op_type)
        params = ", ".join(f"{k}={v!r}" for k, v in self.parameters)
        return f"OpPattern({name}{', ' if params else ''}{params})"

    __str__ = __repr__


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # arrays and other ambiguous comparisons
        return a is b


#: what an op position of a pattern may be: an Op class, a tuple of them, a union
OpPatternOpTypeType = type | tuple[type, ...] | types.UnionType
