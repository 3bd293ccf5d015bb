"""Find the constant scalar a symbolic value is known to hold (used by rewrites).

It looks through the ops that only move or broadcast a value (DimShuffle,
Alloc, SpecifyShape, casts, scalar/tensor conversions), reads static shapes
for Shape/Shape_i, and, when asked, evaluates Elemwise over constant scalars.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Constant, Variable
from opgraph.tensor.exceptions import EmptyConstantError, NotScalarConstantError

__all__ = ["get_scalar_constant_value", "get_underlying_scalar_constant_value"]


def _unique_value(data: Any) -> Any:
    arr = np.asarray(data)
    if arr.size == 0:
        raise EmptyConstantError("the constant has no elements")
    flat = arr.ravel()
    first = flat[0]
    if flat.size > 1 and not np.all(flat == first):
        raise NotScalarConstantError("the constant holds different values")
    return first


def _passthrough_classes() -> tuple[type, ...]:
    """Ops whose first input's scalar value is their output's value."""
    from opgraph.tensor.basic import Alloc, ScalarFromTensor, TensorFromScalar
    from opgraph.tensor.elemwise import DimShuffle
    from opgraph.tensor.shape import Reshape, SpecifyShape

    return (Alloc, DimShuffle, SpecifyShape, Reshape, TensorFromScalar, ScalarFromTensor)


def _is_cast_like(scalar_op: Any) -> bool:
    return type(scalar_op).__name__ in ("Cast", "Identity")


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
            return np.asarray(_unique_value(v))[()]
        raise NotScalarConstantError(f"{v!r} is not a variable or a number")
    depth = 0
    while True:
        if isinstance(v, Constant):
            value = _unique_value(v.data)
            dtype = getattr(v.type, "dtype", None)
            return np.asarray(value, dtype=dtype)[()] if dtype else value
        owner = v.owner
        if owner is None or only_process_constants or depth > max_recur:
            raise NotScalarConstantError(f"{v} is not a constant")
        depth += 1
        op = owner.op
        out_dtype = getattr(v.type, "dtype", None)
        special = _special_case(v, op, owner, elemwise, max_recur - depth)
        if special is not None:
            return np.asarray(special, dtype=out_dtype)[()] if out_dtype else special
        if isinstance(op, _passthrough_classes()):
            value = get_underlying_scalar_constant_value(
                owner.inputs[0], elemwise, only_process_constants, max_recur - depth
            )
            return np.asarray(value, dtype=out_dtype)[()] if out_dtype else value
        raise NotScalarConstantError(f"{v} (output of {op}) is not a known constant")


def _special_case(v: Variable, op: Any, owner: Any, elemwise: bool, budget: int) -> Any:
    """Values from static shapes, casts and constant Elemwise; None if not applicable."""
    from opgraph.tensor.shape import MakeVector, Shape, Shape_i

    if isinstance(op, Shape_i):
        dim = owner.inputs[0].type.shape[op.i]
        if dim is None:
            raise NotScalarConstantError(f"dimension {op.i} of {owner.inputs[0]} is not static")
        return dim
    if isinstance(op, Shape):
        static = owner.inputs[0].type.shape
        if static and all(s is not None for s in static) and len(set(static)) == 1:
            return static[0]
        raise NotScalarConstantError(f"{v} is a whole shape, not one scalar")
    if type(op).__name__ == "Subtensor":
        return _subtensor_of_known(v, owner, budget)
    if isinstance(op, MakeVector):
        values = [
            get_underlying_scalar_constant_value(i, elemwise, False, budget) for i in owner.inputs
        ]
        return _unique_value(np.asarray(values))
    from opgraph.tensor.elemwise import Elemwise

    if isinstance(op, Elemwise):
        scalar_op = getattr(op, "scalar_op", None)
        if _is_cast_like(scalar_op) and len(owner.inputs) == 1:
            return get_underlying_scalar_constant_value(owner.inputs[0], elemwise, False, budget)
        if not elemwise:
            raise NotScalarConstantError(f"{v} is an Elemwise result (elemwise=False)")
        values = [
            np.asarray(get_underlying_scalar_constant_value(i, elemwise, False, budget))
            for i in owner.inputs
        ]
        storage: list[list[Any]] = [[None] for _ in owner.outputs]
        probe = _scalar_node(owner)
        op.perform(probe, values, storage)
        return np.asarray(storage[v.index][0]).ravel()[0]
    return None


def _scalar_node(owner: Any) -> Any:
    """A copy of an Elemwise node over 0-d inputs (perform may read node.outputs types)."""
    from opgraph.tensor.type import TensorType

    inputs = [TensorType(i.type.dtype, ())() for i in owner.inputs]
    return owner.op.make_node(*inputs)


def _subtensor_of_known(v: Variable, owner: Any, budget: int) -> Any:
    """An indexed part of a constant, of a shape, of make_vector, or of a filled tensor."""
    from opgraph.tensor.indexing import INT, numpy_index
    from opgraph.tensor.shape import MakeVector, Shape, static_int

    base = owner.inputs[0]
    idx_list = owner.op.idx_list
    known = [static_int(i) for i in owner.inputs[1:]]
    if all(k is not None for k in known):
        index = numpy_index(idx_list, known)
        if isinstance(base, Constant):
            return _unique_value(np.asarray(base.data)[index])
        single = len(idx_list) == 1 and idx_list[0] == INT
        if single and base.owner is not None and isinstance(base.owner.op, Shape):
            static = base.owner.inputs[0].type.shape
            if -len(static) <= known[0] < len(static) and static[known[0]] is not None:
                return static[known[0]]
        if single and base.owner is not None and isinstance(base.owner.op, MakeVector):
            inputs = base.owner.inputs
            if -len(inputs) <= known[0] < len(inputs):
                return get_underlying_scalar_constant_value(inputs[known[0]], True, False, budget)
    # Any part of a tensor filled with one value holds that value.
    return get_underlying_scalar_constant_value(base, True, False, budget)


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
