"""Tensor helpers shared by the standard rewrites: build elemwise nodes, keep types.

Every replacement goes through :func:`keep_type`, so a rewrite never changes a
variable's dtype or static shape: it casts, broadcasts against the original
node's inputs, or narrows with specify_shape, and gives up (None) otherwise.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import is_output_client
from opgraph.scalar.structural import Cast, second
from opgraph.scalar.type import ScalarType
from opgraph.tensor.basic import ScalarFromTensor, TensorFromScalar
from opgraph.tensor.constant_value import get_underlying_scalar_constant_value
from opgraph.tensor.creation import Alloc
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.exceptions import NotScalarConstantError
from opgraph.tensor.shape import Reshape, SpecifyShape
from opgraph.tensor.type import TensorType

__all__ = [
    "const_value",
    "elemwise_of",
    "ew",
    "is_elemwise",
    "keep_type",
    "scalar_op_of",
    "single_client",
    "tensor_constant",
]


@cache
def _elemwise_cls() -> type:
    return Elemwise


_EW_CACHE: dict[Any, Any] = {}


def order_with_new_axes(ndim: int, new_axes: Any) -> tuple[Any, ...]:
    """The DimShuffle order that puts a length-1 axis (``"x"``) at each position of
    ``new_axes`` of an ``ndim``-dimensional result and the input's axes, in order, in
    the others."""
    order: list[Any] = []
    j = 0
    for k in range(ndim):
        if k in new_axes:
            order.append("x")
        else:
            order.append(j)
            j += 1
    return tuple(order)


def ew(scalar_op: Any) -> Any:
    """The (non-inplace) Elemwise of ``scalar_op``, one shared instance per scalar op."""
    op = _EW_CACHE.get(scalar_op)
    if op is None:
        op = _EW_CACHE[scalar_op] = _elemwise_cls()(scalar_op)
    return op


def scalar_op_of(node: Any) -> Any:
    """The scalar op of an Elemwise node, else None."""
    if node is None or isinstance(node, str):
        return None
    return getattr(node.op, "scalar_op", None) if isinstance(node.op, _elemwise_cls()) else None


def is_elemwise(var_or_node: Any, *scalar_classes: type) -> bool:
    node = var_or_node.owner if isinstance(var_or_node, Variable) else var_or_node
    sop = scalar_op_of(node)
    return sop is not None and (not scalar_classes or isinstance(sop, scalar_classes))


def elemwise_of(var: Variable, *scalar_classes: type) -> Apply | None:
    """``var``'s owner when it is an Elemwise of one of ``scalar_classes``."""
    node = var.owner
    return node if node is not None and is_elemwise(node, *scalar_classes) else None


#: Ops that only move or broadcast a value: a constant seen through them is still constant.
_PASSTHROUGH = frozenset(
    {DimShuffle, Alloc, SpecifyShape, Reshape, TensorFromScalar, ScalarFromTensor}
)


def const_value(var: Variable) -> Any:
    """The single scalar value ``var`` is known to hold (through broadcasts), else None."""
    if isinstance(var, Constant):
        data = np.asarray(var.data)
        if data.size == 0:
            return None
        flat = data.ravel()
        if flat.size > 1 and not np.all(flat == flat[0]):
            return None
        return flat[0]
    owner = var.owner
    if owner is None or type(owner.op) not in _PASSTHROUGH:
        return None
    try:
        return get_underlying_scalar_constant_value(var, elemwise=False)
    except (NotScalarConstantError, ValueError, TypeError):
        return None
    except Exception:
        return None


def tensor_constant(value: Any, dtype: str, ndim: int = 0) -> Constant:
    """A constant of ``dtype`` with ``ndim`` broadcastable dimensions."""

    data = np.asarray(value, dtype=dtype).reshape((1,) * ndim)
    return TensorType(dtype, (1,) * ndim).make_constant(data)


def single_client(fgraph: Any, var: Variable) -> bool:
    """``var`` is used exactly once, and not as a graph output."""
    clients = fgraph.clients.get(var, ())
    return len(clients) == 1 and not is_output_client(clients[0][0])


def _cast(var: Variable, dtype: str) -> Variable:
    return ew(Cast(ScalarType(dtype)))(var)


def keep_type(old: Variable, new: Variable, refs: Any = ()) -> Variable | None:
    """``new`` made to have exactly ``old``'s type, or None when that is not possible.

    ``refs`` are variables whose broadcast gives ``old``'s shape (usually the
    inputs of the node being replaced); they broadcast ``new`` when it has
    length-1 dimensions ``old`` does not.
    """

    ot, nt = old.type, new.type
    if ot == nt:
        return new
    if not isinstance(ot, TensorType) or not isinstance(nt, TensorType):
        return None
    if nt.ndim > ot.ndim:
        return None
    if nt.ndim < ot.ndim:
        pad = ["x"] * (ot.ndim - nt.ndim)
        new = DimShuffle(input_ndim=nt.ndim, new_order=(*pad, *range(nt.ndim)))(new)
        nt = new.type
    if any(n == 1 and o != 1 for n, o in zip(nt.shape, ot.shape)):
        for ref in refs:
            rt = getattr(ref, "type", None)
            if not isinstance(rt, TensorType) or rt.ndim > ot.ndim or ref is new:
                continue
            rshape = (1,) * (ot.ndim - rt.ndim) + rt.shape
            if any(n == 1 and r != 1 for n, r in zip(new.type.shape, rshape)):
                new = ew(second)(ref, new)
        nt = new.type
        if any(n == 1 and o != 1 for n, o in zip(nt.shape, ot.shape)):
            return None
    if nt.dtype != ot.dtype:
        new = _cast(new, ot.dtype)
    if new.type == ot:
        return new
    try:
        return ot.filter_variable(new, allow_convert=True)
    except TypeError:
        return None
