"""NumPy's everyday array helpers, built from the tensor library's ops.

``tile``, ``roll``, ``moveaxis``, ``swapaxes``, ``take``, ``nonzero``,
``isclose``, ``ptp``, ``median``, ``nan_to_num``, ``meshgrid``...: each is a
short composition of existing ops, so it differentiates, rewrites and
compiles in every backend with no new kernel.  ``nonzero`` is the one new Op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor import ufuncs as ptm
from opgraph.tensor.creation import alloc
from opgraph.tensor.join import concatenate
from opgraph.tensor.reduction import all as pt_all
from opgraph.tensor.reduction import max as pt_max
from opgraph.tensor.reduction import min as pt_min
from opgraph.tensor.shape import flatten, shape_i
from opgraph.tensor.sort import sort
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = [
    "Nonzero",
    "allclose",
    "flatnonzero",
    "isclose",
    "median",
    "meshgrid",
    "moveaxis",
    "nan_to_num",
    "nonzero",
    "nonzero_values",
    "ptp",
    "roll",
    "swapaxes",
    "take",
    "tile",
    "where",
]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def _axes(axes: int | Sequence[int], ndim: int, who: str) -> list[int]:
    items = [axes] if isinstance(axes, int | np.integer) else list(axes)
    out = []
    for a in items:
        if not -ndim <= int(a) < ndim:
            # AxisError: a ValueError and an IndexError, as NumPy raises it.
            raise np.exceptions.AxisError(
                f"{who}: axis {a} is out of bounds for array of dimension {ndim}"
            )
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{who}: repeated axis in {items}")
    return out


def moveaxis(a: Any, source: int | Sequence[int], destination: int | Sequence[int]) -> Variable:
    """Move axes of ``a`` to new positions, as ``np.moveaxis`` (a view)."""
    x = as_tensor_variable(a)
    src = _axes(source, x.type.ndim, "moveaxis source")
    dst = _axes(destination, x.type.ndim, "moveaxis destination")
    if len(src) != len(dst):
        raise ValueError(
            "moveaxis: `source` and `destination` arguments must have the same number of "
            f"elements (got {len(src)} and {len(dst)})"
        )
    order = [d for d in range(x.type.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x.dimshuffle(*order)


def swapaxes(y: Any, axis1: int, axis2: int) -> Variable:
    """``y`` with two axes exchanged, as ``np.swapaxes`` (a view)."""
    x = as_tensor_variable(y)
    (a,) = _axes(axis1, x.type.ndim, "swapaxes")
    (b,) = _axes(axis2, x.type.ndim, "swapaxes")
    order = list(range(x.type.ndim))
    order[a], order[b] = order[b], order[a]
    return x.dimshuffle(*order)


def tile(A: Any, reps: Sequence[Any] | Any) -> Variable:
    """``A`` repeated ``reps`` times along each axis, as ``np.tile``."""
    x = as_tensor_variable(A)
    if isinstance(reps, int | np.integer):
        reps = [reps]
    elif isinstance(reps, Variable):
        if reps.type.ndim != 1 or reps.type.shape[0] is None:
            raise ValueError(
                f"tile: the length of reps {_name(reps)} is not known at graph construction. "
                "Use specify_shape to set the length of reps"
            )
        reps = [reps[i] for i in range(reps.type.shape[0])]
    reps = list(reps)
    ndim = max(x.type.ndim, len(reps))
    x = x.reshape((1,) * (ndim - x.type.ndim) + tuple(shape_i(x, d) for d in range(x.type.ndim)))
    reps = [1] * (ndim - len(reps)) + reps
    # Interleave a new axis of length reps[d] before each axis d, broadcast, then merge.
    expanded = x.dimshuffle(*[p for d in range(ndim) for p in ("x", d)])
    shape = [s for d in range(ndim) for s in (reps[d], shape_i(x, d))]
    out = alloc(expanded, *shape)
    return out.reshape(tuple(reps[d] * shape_i(x, d) for d in range(ndim)))


def roll(x: Any, shift: Any, axis: int | None = None) -> Variable:
    """Elements shifted by ``shift`` along ``axis`` (``None``: flattened), as ``np.roll``."""
    x = as_tensor_variable(x)
    if axis is None:
        return roll(flatten(x), shift, 0).reshape(x.shape)
    (ax,) = _axes(axis, x.type.ndim, "roll")
    n = shape_i(x, ax)
    shift = ptm.mod(as_tensor_variable(shift), ptm.maximum(n, 1))
    head = (slice(None),) * ax
    return concatenate([x[(*head, slice(-shift, None))], x[(*head, slice(None, -shift))]],
                       axis=ax) if not _is_zero(shift) else x


def _is_zero(v: Variable) -> bool:
    data = getattr(v, "data", None)
    return data is not None and int(data) == 0


def take(a: Any, indices: Any, axis: int | None = None, mode: str | None = "raise") -> Variable:
    """Elements of ``a`` at ``indices`` along ``axis`` (``None``: flattened), as ``np.take``
    (``mode=None`` is "raise")."""
    mode = "raise" if mode is None else mode
    x = as_tensor_variable(a)
    idx = as_tensor_variable(indices)
    if axis is None:
        x, axis = flatten(x), 0
    (ax,) = _axes(axis, x.type.ndim, "take")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"take: mode must be raise, wrap or clip, got {mode!r}")
    n = shape_i(x, ax)
    if mode == "wrap":
        idx = ptm.mod(idx, n)
    elif mode == "clip":
        idx = ptm.clip(idx, 0, n - 1)
    return x[(slice(None),) * ax + (idx,)]


class Nonzero(Op):
    """The int64 indices of the non-zero entries: one vector per axis (``np.nonzero``)."""

    __props__ = ()

    def make_node(self, a: Any) -> Apply:
        a = as_tensor_variable(a)
        if a.type.ndim == 0:
            raise ValueError(f"nonzero of {_name(a)}: 0-d tensors are not supported (as NumPy)")
        outs = [TensorType("int64", (None,))() for _ in range(a.type.ndim)]
        return Apply(self, [a], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        for cell, idx in zip(output_storage, np.nonzero(inputs[0])):
            cell[0] = idx.astype(np.int64, copy=False)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False] * len(node.outputs)]


def nonzero(a: Any, return_matrix: bool = False) -> Any:
    """A tuple of index vectors, one per axis, as ``np.nonzero``.

    ``return_matrix=True`` stacks them into a ``(ndim, n)`` matrix.
    """
    out = Nonzero()(a)
    parts = tuple(out) if isinstance(out, list) else (out,)
    if return_matrix:
        return parts[0].dimshuffle("x", 0) if len(parts) == 1 else _stack_rows(parts)
    return parts


def _stack_rows(parts: Sequence[Variable]) -> Variable:
    return concatenate([p.dimshuffle("x", 0) for p in parts], axis=0)


def flatnonzero(a: Any) -> Variable:
    """Indices of the non-zero entries of the flattened ``a``, as ``np.flatnonzero``."""
    return nonzero(flatten(as_tensor_variable(a)))[0]


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """``np.where``: ``switch(condition, x, y)``, or with one argument ``nonzero(condition)``."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("where: give either both x and y, or neither (then: nonzero)")
    return ptm.switch(condition, x, y)


def nonzero_values(a: Any) -> Variable:
    """The non-zero entries of ``a``, flattened (``a[a != 0]``)."""
    x = flatten(as_tensor_variable(a))
    return x[flatnonzero(x)]


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Variable:
    """Elementwise ``|a - b| <= atol + rtol * |b|``, with NumPy's handling of inf and nan."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    diff = ptm.abs(a - b)
    close = ptm.le(diff, atol + rtol * ptm.abs(b))
    both_inf = ptm.and_(ptm.eq(a, b), ptm.or_(ptm.isinf(a), ptm.isinf(b)))
    close = ptm.or_(ptm.and_(close, ptm.invert(ptm.or_(ptm.isinf(a), ptm.isinf(b)))), both_inf)
    if equal_nan:
        close = ptm.or_(close, ptm.and_(ptm.isnan(a), ptm.isnan(b)))
    return close


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> Variable:
    """Whether every pair of entries is close (:func:`isclose`), as ``np.allclose``."""
    return pt_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def ptp(a: Any, axis: Any = None) -> Variable:
    """Range (max - min) along ``axis``, as ``np.ptp``."""
    a = as_tensor_variable(a)
    return pt_max(a, axis=axis) - pt_min(a, axis=axis)


def median(x: Any, axis: Any = None) -> Variable:
    """The median along ``axis`` (``None``: of all entries), as ``np.median``."""
    x = as_tensor_variable(x)
    if axis is None:
        x, axis = flatten(x), 0
    axes = _axes(axis, x.type.ndim, "median")
    if len(axes) > 1:
        keep = [d for d in range(x.type.ndim) if d not in axes]
        x = x.dimshuffle(*keep, *axes)
        x = x.reshape((*(shape_i(x, d) for d in range(len(keep))), -1))
        ax = len(keep)
    else:
        ax = axes[0]
    s = sort(x, axis=ax)
    n = shape_i(x, ax)
    lo, hi = (n - 1) // 2, n // 2
    head = (slice(None),) * ax
    return (s[(*head, lo)] + s[(*head, hi)]) / 2


def nan_to_num(x: Any, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Variable:
    """``x`` with nan, +inf and -inf replaced, as ``np.nan_to_num``."""
    x = as_tensor_variable(x)
    if not x.type.dtype.startswith(("float", "complex")):
        return x
    info = np.finfo(x.type.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    value = constant(np.asarray(nan, dtype=x.type.dtype))
    x = ptm.switch(ptm.isnan(x), value, x)
    x = ptm.switch(ptm.eq(x, np.inf), constant(np.asarray(posinf, dtype=x.type.dtype)), x)
    return ptm.switch(ptm.eq(x, -np.inf), constant(np.asarray(neginf, dtype=x.type.dtype)), x)


def meshgrid(*xi: Any, indexing: str = "xy") -> list[Variable]:
    """Coordinate matrices from coordinate vectors, as ``np.meshgrid`` (``xy`` or ``ij``)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    vecs = [flatten(as_tensor_variable(v)) for v in xi]
    n = len(vecs)
    order = list(range(n))
    if indexing == "xy" and n >= 2:
        order[0], order[1] = 1, 0
    shape = [shape_i(vecs[order.index(d)], 0) for d in range(n)]
    out = []
    for k, v in enumerate(vecs):
        pattern = ["x"] * n
        pattern[order[k]] = 0
        out.append(alloc(v.dimshuffle(*pattern), *shape))
    return out

