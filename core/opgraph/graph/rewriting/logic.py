"""Graphs as logic terms: unification and miniKanren over opgraph objects.

Makes Variables, Ops and Types terms of the ``cons`` / ``etuples`` /
``logical-unification`` packages (the optional extra ``opgraph[kanren]``):

- a Variable with an owner is the term ``(op, *inputs)``;
- an Op (or Type) with parameters is ``(OpClass, *parameters)``; an Op
  without declared parameters is atomic;
- ``OpPattern(OpClass, a=var("a"))`` unifies with any Op of that class,
  binding its parameters.

``ConstrainedVar`` is a logic variable that only binds to values its
predicate accepts; ``convert_strs_to_vars`` turns a PatternNodeRewriter-style
pattern (strings, tuples, ``{"pattern": ..., "constraint": ...}``) into a
logic term.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from typing import Any

from opgraph.graph.basic import Constant, Variable
from opgraph.graph.op import Op, _props_of
from opgraph.graph.rewriting.unify import PATTERN_CONSTANT_BUILDERS, OpPattern
from opgraph.graph.type import Type

try:  # third-party, optional: the "kanren" extra
    from cons.core import ConsError, _car, _cdr
    from etuples import apply as etuple_apply
    from etuples import etuple, etuplize
    from etuples.core import ExpressionTuple
    from unification import var
    from unification.core import _reify, _unify, assoc, isvar, walk
    from unification.variable import Var
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"opgraph's unification and miniKanren support needs the optional packages "
        f"etuples, cons, logical-unification and minikanren ({exc}); install them with "
        "`pip install opgraph[kanren]`"
    ) from exc

__all__ = ["ConstrainedVar", "apply_Op_ExpressionTuple", "car_Op", "car_Type", "car_Variable",
           "cdr_Op", "cdr_Type", "cdr_Variable", "convert_strs_to_vars", "etuplize",
           "eval_if_etuple"]


# ------------------------------------------------------------------ terms: car / cdr


def _params(obj: Any) -> tuple | None:
    names = _props_of(obj)
    if names is None:
        return None
    return tuple(getattr(obj, n) for n in names)


def _car_variable(x: Variable) -> Any:
    if x.owner is None:
        raise ConsError(f"{x} has no owner: it is not a cons pair")
    return x.owner.op


def _cdr_variable(x: Variable) -> Any:
    if x.owner is None:
        raise ConsError(f"{x} has no owner: it is not a cons pair")
    # keep the variable as the evaluated object so reifying gives it back unchanged
    return etuple(x.owner.op, *x.owner.inputs, evaled_obj=x)[1:]


def _car_parametrised(x: Any) -> type:
    if _params(x) is None:
        raise ConsError(f"{x} declares no parameters: it is atomic, not a cons pair")
    return type(x)


def _cdr_parametrised(x: Any) -> Any:
    params = _params(x)
    if params is None:
        raise ConsError(f"{x} declares no parameters: it is atomic, not a cons pair")
    return etuple(type(x), *params, evaled_obj=x)[1:]


_car.add((Variable,), _car_variable)
_cdr.add((Variable,), _cdr_variable)
for _cls in (Op, Type):
    _car.add((_cls,), _car_parametrised)
    _cdr.add((_cls,), _cdr_parametrised)


#: PyTensor's names of the car / cdr rules
car_Variable, cdr_Variable = _car_variable, _cdr_variable
car_Op = car_Type = _car_parametrised
cdr_Op = cdr_Type = _cdr_parametrised


def apply_Op_ExpressionTuple(op: Op, etuple_arg: Any) -> Any:
    """Evaluating ``etuple(op, *args)``: the node's default output (all outputs when it has
    several and no default)."""
    node = op.make_node(*etuple_arg)
    try:
        return node.default_output()
    except ValueError:
        return node.outputs


etuple_apply.add((Op, ExpressionTuple), apply_Op_ExpressionTuple)


def eval_if_etuple(x: Any) -> Any:
    """The object an expression tuple stands for (anything else unchanged)."""
    if isinstance(x, ExpressionTuple):
        return x.evaled_obj
    return x


# ------------------------------------------------------------------ unification


def _as_etuple(x: Any) -> Any:
    """``x`` as an expression tuple, or None when it is atomic."""
    try:
        return etuplize(x, shallow=True)
    except (ConsError, TypeError):
        return None


def _unify_term_etuple(u: Any, v: Any, s: Mapping) -> Any:
    left = u if isinstance(u, ExpressionTuple) else _as_etuple(u)
    right = v if isinstance(v, ExpressionTuple) else _as_etuple(v)
    if left is None or right is None:
        yield False
        return
    yield _unify(left._tuple, right._tuple, s)


def _unify_constants(u: Constant, v: Constant, s: Mapping) -> Any:
    yield s if (u is v or u.equals(v)) else False


for _cls in (Variable, Op, Type):
    _unify.add((_cls, ExpressionTuple, Mapping), _unify_term_etuple)
    _unify.add((ExpressionTuple, _cls, Mapping), _unify_term_etuple)
_unify.add((Constant, Constant, Mapping), _unify_constants)


def _unify_op_pattern(pattern: OpPattern, op: Any, s: Mapping) -> Any:
    if isinstance(pattern.op_type, type):
        if not isinstance(op, pattern.op_type):
            yield False
            return
    elif op != pattern.op_type:
        yield False
        return
    for name, want in pattern.parameters:
        if not hasattr(op, name):
            yield False
            return
        have = getattr(op, name)
        if isinstance(want, str) and not isvar(want):
            want = var(want)  # OpPattern's convention: a string names a variable
        s = yield _unify(want, have, s)
        if s is False:
            yield False
            return
    yield s


def _unify_op_pattern_swapped(op: Any, pattern: OpPattern, s: Mapping) -> Any:
    yield _unify_op_pattern(pattern, op, s)


_unify.add((OpPattern, Op, Mapping), _unify_op_pattern)
_unify.add((Op, OpPattern, Mapping), _unify_op_pattern_swapped)
_unify.add((OpPattern, OpPattern, Mapping),
           lambda u, v, s: (yield s if u == v else False))


# ------------------------------------------------------------------ constrained variables


class ConstrainedVar(Var):
    """A logic variable that binds only to values ``constraint(value)`` accepts.

    Expression tuples are evaluated before the check, so the constraint sees
    graph objects. Logic variables bind without a check.
    """

    __slots__ = ("constraint",)
    _refs = weakref.WeakValueDictionary()  # its own tokens: never one of var()'s

    def __new__(cls, constraint: Callable[[Any], bool], token: Any = None,
                prefix: str = "") -> ConstrainedVar:
        if not callable(constraint):
            raise TypeError(f"ConstrainedVar: constraint must be callable, got {constraint!r}")
        obj = super().__new__(cls, token, prefix)
        if not hasattr(obj, "constraint"):
            obj.constraint = constraint
        return obj

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.constraint!r}, {self.token})"


def _unify_constrained(u: ConstrainedVar, v: Any, s: Mapping) -> Any:
    u_w = walk(u, s)
    v_w = walk(v, s) if isvar(v) else v
    if u_w is v_w or (not isvar(u_w) and not isvar(v_w) and _same(u_w, v_w)):
        yield s
    elif isvar(u_w):
        if not isvar(v_w) and not u_w.constraint(eval_if_etuple(v_w)):
            yield False
        else:
            yield assoc(s, u_w, v_w)
    elif isvar(v_w):
        yield _unify(v_w, u_w, s)
    else:
        yield _unify(u_w, v_w, s)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _unify_constrained_swapped(u: Any, v: ConstrainedVar, s: Mapping) -> Any:
    yield _unify_constrained(v, u, s)


_unify.add((ConstrainedVar, object, Mapping), _unify_constrained)
_unify.add((object, ConstrainedVar, Mapping), _unify_constrained_swapped)
_unify.add((ConstrainedVar, Var, Mapping), _unify_constrained)
_unify.add((Var, ConstrainedVar, Mapping), _unify_constrained_swapped)
_unify.add((ConstrainedVar, ConstrainedVar, Mapping), _unify_constrained)


def _reify_constrained(u: ConstrainedVar, s: Mapping) -> Any:
    value = walk(u, s)
    if value is u:
        yield u
    else:
        yield _reify(value, s)


_reify.add((ConstrainedVar, Mapping), _reify_constrained)


# ------------------------------------------------------------------ patterns to terms


def convert_strs_to_vars(x: Any, var_map: dict[str, Var] | None = None) -> Any:
    """A PatternNodeRewriter-style pattern as a logic term.

    Strings become logic variables (one per name), ``{"pattern": name,
    "constraint": fn}`` a ConstrainedVar, tuples expression tuples, numbers
    and arrays constants; anything else is kept.
    """
    if var_map is None:
        var_map = {}

    def convert(y: Any) -> Any:
        if isinstance(y, str):
            found = var_map.get(y)
            if found is None:
                found = var_map[y] = var(y)
            return found
        if isinstance(y, Mapping):
            if "pattern" not in y:
                raise ValueError(f"convert_strs_to_vars: a dict pattern needs a 'pattern' key, "
                                 f"got {sorted(y)}")
            name = y["pattern"]
            found = var_map.get(name)
            if found is None:
                found = ConstrainedVar(y.get("constraint", lambda _v: True), name)
                var_map[name] = found
            return found
        if isinstance(y, tuple):
            return etuple(*(convert(e) for e in y))
        if (isinstance(y, int | float | complex) and not isinstance(y, bool)) or (
            type(y).__module__ == "numpy"
        ):
            return _pattern_constant(y)
        return y

    return convert(x)


def _pattern_constant(value: Any) -> Constant:
    for build in PATTERN_CONSTANT_BUILDERS:
        return build(value)
    raise TypeError(
        f"convert_strs_to_vars: cannot make a constant of {value!r}: no constant builder is "
        "registered (import opgraph.tensor)"
    )
