"""Find the constant scalar a symbolic value is known to hold (used by rewrites).

It looks through the ops that only move or broadcast a value (DimShuffle,
Alloc, SpecifyShape, casts, scalar/tensor conversions), reads static shapes
for Shape/Shape_i, and, when asked, evaluates Elemwise over constant scalars.

What each op contributes is a rule in :data:`CONSTANT_RULES`, filled by the
module that defines the op (``register_constant_rule(Alloc, passthrough)``
next to ``Alloc``), so this module needs none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.table import TypeTable
from opgraph.scalar import Cast, Identity
from opgraph.tensor.exceptions import EmptyConstantError, NotScalarConstantError
from opgraph.tensor.type import TensorType

__all__ = [
    "CONSTANT_RULES",
    "elemwise_constant",
    "get_scalar_constant_value",
    "get_underlying_scalar_constant_value",
    "passthrough",
    "register_constant_rule",
    "unique_value",
]

ConstantRule = Callable[[Variable, Apply, bool, int], Any]
"""``rule(v, owner, elemwise, budget)``: the value ``v`` (an output of ``owner``) holds.

Returns None when the op tells nothing about ``v``; raises NotScalarConstantError
when the value is known not to be a constant.  ``budget`` is the recursion left.
"""

CONSTANT_RULES: TypeTable[ConstantRule] = TypeTable(
    "constant_value", "what get_underlying_scalar_constant_value reads through, per Op class")
"""Op class -> its rule; subclasses inherit it (looked up along the MRO)."""


def register_constant_rule(op_class: type, rule: ConstantRule) -> ConstantRule:
    """Use ``rule`` for the outputs of ``op_class`` (and its subclasses)."""
    if not isinstance(op_class, type) or not callable(rule):
        raise TypeError(
            f"register_constant_rule: expected an Op class and a function, got {op_class!r}, "
            f"{rule!r}"
        )
    CONSTANT_RULES.register(op_class, rule, stacklevel=2)
    return rule


def unique_value(data: Any) -> Any:
    """The one value every element of ``data`` holds (else NotScalarConstantError)."""
    arr = np.asarray(data)
    if arr.size == 0:
        raise EmptyConstantError("the constant has no elements")
    flat = arr.ravel()
    first = flat[0]
    if flat.size > 1 and not np.all(flat == first):
        raise NotScalarConstantError("the constant holds different values")
    return first


_unique_value = unique_value


def passthrough(v: Variable, owner: Apply, elemwise: bool, budget: int) -> Any:
    """Rule of the ops whose first input's scalar value is their output's value."""
    return get_underlying_scalar_constant_value(owner.inputs[0], elemwise, False, budget)


def _rule_for(op: Any) -> ConstantRule | None:
    return CONSTANT_RULES.lookup(op)


def get_underlying_scalar_constant_value(
    v: Any,
    elemwise: bool = True,
    only_process_constants: bool = False,
    max_recur: int = 10,
) -> np.generic:
    """The scalar ``v`` is known to hold, as a NumPy scalar of ``v``'s dtype.

    Raises NotScalarConstantError when it cannot be known at graph construction.
    ``v`` may be of any rank as long as all its elements are the same constant.
    """
    if not isinstance(v, Variable):
        if isinstance(v, int | float | complex | bool | np.generic | np.ndarray):
            return np.asarray(unique_value(v))[()]
        raise NotScalarConstantError(f"{v!r} is not a variable or a number")
    if isinstance(v, Constant):
        value = unique_value(v.data)
        dtype = getattr(v.type, "dtype", None)
        return np.asarray(value, dtype=dtype)[()] if dtype else value
    owner = v.owner
    if owner is None or only_process_constants or max_recur < 0:
        raise NotScalarConstantError(f"{v} is not a constant")
    op = owner.op
    rule = _rule_for(op)
    value = None if rule is None else rule(v, owner, elemwise, max_recur - 1)
    if value is None:
        raise NotScalarConstantError(f"{v} (output of {op}) is not a known constant")
    out_dtype = getattr(v.type, "dtype", None)
    return np.asarray(value, dtype=out_dtype)[()] if out_dtype else value


def elemwise_constant(v: Variable, owner: Apply, elemwise: bool, budget: int) -> Any:
    """Rule of Elemwise: a cast looks through; otherwise evaluate over constant inputs."""
    scalar_op = getattr(owner.op, "scalar_op", None)
    if isinstance(scalar_op, Cast | Identity) and len(owner.inputs) == 1:
        return get_underlying_scalar_constant_value(owner.inputs[0], elemwise, False, budget)
    if not elemwise:
        raise NotScalarConstantError(f"{v} is an Elemwise result (elemwise=False)")
    values = [
        np.asarray(get_underlying_scalar_constant_value(i, elemwise, False, budget))
        for i in owner.inputs
    ]
    storage: list[list[Any]] = [[None] for _ in owner.outputs]
    probe = _scalar_node(owner)
    owner.op.perform(probe, values, storage)
    return np.asarray(storage[v.index][0]).ravel()[0]


def _scalar_node(owner: Any) -> Any:
    """A copy of an Elemwise node over 0-d inputs (perform may read node.outputs types)."""
    inputs = [TensorType(i.type.dtype, ())() for i in owner.inputs]
    return owner.op.make_node(*inputs)


def get_scalar_constant_value(
    v: Any,
    elemwise: bool = True,
    only_process_constants: bool = False,
    max_recur: int = 10,
) -> np.generic:
    """Like :func:`get_underlying_scalar_constant_value`, but ``v`` must be a scalar."""
    ndim = getattr(getattr(v, "type", None), "ndim", 0)
    if isinstance(v, np.ndarray):
        ndim = v.ndim
    if ndim != 0:
        raise NotScalarConstantError(f"{v} is not a scalar (it has {ndim} dimensions)")
    return get_underlying_scalar_constant_value(v, elemwise, only_process_constants, max_recur)
