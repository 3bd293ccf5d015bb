"""Canonical forms for shape ops: reshapes and allocs that do nothing are removed,
a sum of a broadcast alloc becomes a multiplication.

A shape entry "is" dimension ``i`` of ``x`` when it is a constant equal to
``x``'s static length, ``Shape_i(i)(x)``, ``shape(x)[i]``, or the same
expression the ShapeFeature infers for that dimension.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.config import config
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph.scalar.structural import Cast
from opgraph.scalar.type import ScalarType
from opgraph.tensor.creation import Alloc
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.reduction import Sum
from opgraph.tensor.reduction import sum as tsum
from opgraph.tensor.shape import MakeVector, Reshape, Shape, Shape_i, specify_shape, static_int
from opgraph.tensor.subtensor import Subtensor
from opgraph.tensor.variable import constant
from opgraph_rewrites.utils import ew, keep_type, tensor_constant

__all__ = ["useless_shape_rewriters"]


def _static(var: Variable) -> int | None:
    try:
        return static_int(var)
    except Exception:
        return None


def _dim_key(d: Variable) -> tuple | None:
    """A key equal for entries computing the same dimension: a static value,
    ``("shape", i, x)`` for ``Shape_i(i)(x)`` and ``shape(x)[i]``, else the
    producing op and its input identities (what merge would unify)."""

    value = _static(d)
    if value is not None:
        return ("static", value)
    node = d.owner
    if node is None:
        return ("var", id(d))
    if isinstance(node.op, Shape_i):
        return ("shape", node.op.i, id(node.inputs[0]))
    if isinstance(node.op, Subtensor) and len(node.inputs) == 2:
        src = node.inputs[0].owner
        i = _static(node.inputs[1])
        if src is not None and isinstance(src.op, Shape) and i is not None:
            return ("shape", i, id(src.inputs[0]))
    return ("node", node.op, d.index, *(id(i) for i in node.inputs))


def is_dim_of(fgraph: Any, entry: Variable, x: Variable, i: int) -> bool:
    """``entry`` is known to equal ``x.shape[i]``."""
    static = x.type.shape[i]
    value = _static(entry)
    if value is not None:
        return static is not None and value == static
    key = _dim_key(entry)
    if key == ("shape", i, id(x)):
        return True
    feature = getattr(fgraph, "shape_feature", None)
    if feature is not None:
        shp = feature.get_shape(x)
        if shp is not None and i < len(shp):
            try:
                return _dim_key(shp[i]) == key
            except TypeError:  # an unhashable op in the key
                return False
    return False


def _entries(vec: Variable) -> list[Variable] | None:
    """The entries of a shape vector as scalar variables, when visible."""

    if isinstance(vec, Constant):
        return [constant(np.int64(v)) for v in np.asarray(vec.data).ravel()]
    node = vec.owner
    if node is not None and isinstance(node.op, MakeVector):
        return list(node.inputs)
    return None


def _shape_of(vec: Variable) -> Variable | None:
    """``x`` when ``vec`` is ``shape(x)``."""

    node = vec.owner
    return node.inputs[0] if node is not None and isinstance(node.op, Shape) else None


def local_useless_reshape() -> NodeRewriter:
    @node_rewriter([Reshape], name="local_useless_reshape")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """reshape(x, shape(x)) = x; reshape(x, s) = x when every entry of s is x's
        dimension (at most one -1 among otherwise matching entries)."""
        x, shp = node.inputs
        out = node.outputs[0]
        if out.type.ndim != x.type.ndim:
            return False
        if _shape_of(shp) is not x:
            entries = _entries(shp)
            if entries is None or len(entries) != x.type.ndim:
                return False
            unmatched = [k for k, e in enumerate(entries) if not is_dim_of(fgraph, e, x, k)]
            if len(unmatched) > 1:
                return False
            if unmatched and _static(entries[unmatched[0]]) != -1:
                # the other lengths match, so the size leaves this one equal to x's:
                # a length check (PyTensor's form); a constant, as a symbolic entry
                # could be -1 at run time
                k = unmatched[0]
                length = _static(entries[k])
                if length is None or length < 0:
                    return False
                fixed = keep_type(out, specify_shape(
                    x, [length if j == k else None for j in range(x.type.ndim)]))
                return [fixed] if fixed is not None else False
        fixed = keep_type(out, x)
        return [fixed] if fixed is not None else False

    return rewrite


def local_reshape_reshape() -> NodeRewriter:
    @node_rewriter([Reshape], name="local_reshape_reshape")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """reshape(reshape(x, s1), s2) = reshape(x, s2): a reshape only reads the data order."""
        inner, shp = node.inputs
        if inner.owner is None or not isinstance(inner.owner.op, Reshape):
            return False
        new = node.op(inner.owner.inputs[0], shp)
        fixed = keep_type(node.outputs[0], new)
        return [fixed] if fixed is not None else False

    return rewrite


def local_useless_alloc() -> NodeRewriter:
    @node_rewriter([Alloc], name="local_useless_alloc")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """alloc(v, *shape(v)) = v: the value already has the requested shape."""
        v, *dims = node.inputs
        out = node.outputs[0]
        if v.type.ndim != out.type.ndim or v.type.dtype != out.type.dtype:
            return False
        if not all(is_dim_of(fgraph, d, v, k) for k, d in enumerate(dims)):
            return False
        fixed = keep_type(out, v)
        return [fixed] if fixed is not None else False

    return rewrite


def local_sum_of_alloc() -> NodeRewriter:
    @node_rewriter([Sum], name="local_sum_of_alloc")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """sum(alloc(v, *s), axes) = alloc(sum(v, real axes) * prod(s[a] for broadcast a),
        *kept s): broadcast copies of v are counted, not added, and only v is summed."""
        (a,) = node.inputs
        out = node.outputs[0]
        alloc = a.owner
        if alloc is None or not isinstance(alloc.op, Alloc):
            return False
        v, *dims = alloc.inputs
        n, k = len(dims), v.type.ndim
        offset = n - k
        axes = node.op.axis if node.op.axis is not None else tuple(range(n))
        dtype = out.type.dtype
        counted, summed, dropped = [], [], []
        for ax in axes:
            if ax < offset:
                counted.append(dims[ax])
            elif v.type.shape[ax - offset] == 1 and a.type.shape[ax] != 1:
                counted.append(dims[ax])
                dropped.append(ax - offset)
            elif v.type.shape[ax - offset] == 1:
                dropped.append(ax - offset)
            else:
                summed.append(ax - offset)
        if not counted and not summed:
            return False
        value = v if v.type.dtype == dtype else ew(_cast_op(dtype))(v)
        if summed:
            value = tsum(value, axis=summed, keepdims=True, dtype=dtype)
        if dropped or summed:
            gone = set(dropped) | set(summed)
            order = tuple(d for d in range(k) if d not in gone)
            value = DimShuffle(input_ndim=k, new_order=order)(value)
        if counted:
            count = counted[0] if len(counted) == 1 else ew(ps.mul)(*counted)
            scaled = ew(ps.mul)(value, ew(_cast_op(dtype))(count))
            if _count_is_exact(counted, dtype):
                value = scaled
            else:  # a sum of no terms is 0, but inf * 0 and nan * 0 are NaN
                empty = ew(ps.eq)(count, tensor_constant(0, count.type.dtype, 0))
                value = ew(ps.switch)(empty, tensor_constant(0, dtype, 0), scaled)
        kept_dims = [d for ax, d in enumerate(dims) if ax not in axes]
        new = Alloc()(value, *kept_dims) if kept_dims else value
        fixed = keep_type(out, new)
        return [fixed] if fixed is not None else False

    return rewrite


def _count_is_exact(counted: list[Variable], dtype: str) -> bool:
    """``v * n`` equals a sum of ``n`` copies of ``v`` for inf and NaN too, except for
    ``n == 0`` (the sum is 0, ``inf * 0`` is NaN): exact for integers, for static
    nonzero counts, or under ``config.fast_math``."""
    if config.fast_math or not dtype.startswith(("float", "complex")):
        return True
    return all((_static(d) or 0) > 0 for d in counted)


def _cast_op(dtype: str) -> Any:
    return Cast(ScalarType(dtype))


def useless_shape_rewriters() -> list[tuple[str, NodeRewriter, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase."""
    return [
        ("local_useless_reshape", local_useless_reshape(), ("fast_compile", "shape")),
        ("local_reshape_reshape", local_reshape_reshape(), ("fast_compile", "shape")),
        ("local_useless_alloc", local_useless_alloc(), ("fast_compile", "shape")),
        ("local_sum_of_alloc", local_sum_of_alloc(), ()),
    ]
