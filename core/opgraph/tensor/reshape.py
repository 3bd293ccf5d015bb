"""Merging and splitting neighbouring axes (PyTensor 3's ``pytensor.tensor.reshape``).

``join_dims``/``split_dims`` are Ops rather than general reshapes, so their
static shapes, gradients and batching follow from which axes they touch;
``pack``/``unpack`` (einops' ``pack``) flatten several tensors into one and back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.autodiff.vectorize import NoBatchingRule, register_batching_rule
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor.join import concatenate, split
from opgraph.tensor.reduction import prod
from opgraph.tensor.shape import (
    as_index_scalar,
    is_int_dtype,
    make_vector,
    shape,
    shape_tuple,
    static_vector_entries,
)
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = ["JoinDims", "SplitDims", "join_dims", "pack", "split_dims", "unpack"]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


@attrs.frozen
class JoinDims(Op):
    """Axes ``start_axis .. start_axis + n_axes - 1`` of ``x`` merged into one.

    ``n_axes=1`` changes nothing; ``n_axes=0`` inserts an axis of length 1.
    """

    start_axis: int
    n_axes: int
    view_map = {0: [0]}  # np.reshape returns a view when it can

    def __attrs_post_init__(self) -> None:
        if self.start_axis < 0 or self.n_axes < 0:
            raise ValueError(
                f"JoinDims: start_axis and n_axes must be non-negative, got "
                f"{self.start_axis} and {self.n_axes}"
            )

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        end = self.start_axis + self.n_axes
        if end > x.type.ndim:
            raise ValueError(
                f"JoinDims was asked to join dimensions {self.start_axis} to {end}, but input "
                f"{_name(x)} has only {x.type.ndim} dimensions."
            )
        sh = x.type.shape
        middle = sh[self.start_axis : end]
        joined = int(np.prod(middle, dtype=np.int64)) if None not in middle else None
        out = (*sh[: self.start_axis], joined, *sh[end:])
        return Apply(self, [x], [TensorType(x.type.dtype, out)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        end = self.start_axis + self.n_axes
        new = (*x.shape[: self.start_axis], int(np.prod(x.shape[self.start_axis : end])),
               *x.shape[end:])
        output_storage[0][0] = np.reshape(x, new)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        (sh,) = input_shapes
        end = self.start_axis + self.n_axes
        middle = list(sh[self.start_axis : end])
        joined = prod(make_vector(*middle)) if middle else constant(np.int64(1))
        return [(*sh[: self.start_axis], joined, *sh[end:])]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        (x,), (g,) = inputs, cotangents
        end = self.start_axis + self.n_axes
        return [split_dims(g, shape(x)[self.start_axis : end], axis=self.start_axis)]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return [None if tangents[0] is None else self(tangents[0])]


def join_dims(x: Any, start_axis: int = 0, n_axes: int | None = None) -> Variable:
    """``x`` with ``n_axes`` consecutive axes from ``start_axis`` merged (all by default)."""
    x = as_tensor_variable(x)
    ndim = x.type.ndim
    if not -ndim <= start_axis <= ndim:  # start_axis == ndim: append an axis (n_axes=0)
        raise np.exceptions.AxisError(
            f"Axis {start_axis} is out of bounds for array of dimension {ndim} (join_dims)"
        )
    if start_axis < 0:
        start_axis += ndim
    if n_axes is None:
        n_axes = ndim - start_axis
    return JoinDims(int(start_axis), int(n_axes))(x)


@attrs.frozen
class SplitDims(Op):
    """Axis ``axis`` of ``x`` split into the dimensions of the integer vector ``shape``.

    An empty ``shape`` removes the axis (it must have length 1).
    """

    axis: int
    view_map = {0: [0]}

    def __attrs_post_init__(self) -> None:
        if self.axis < 0:
            raise ValueError(f"SplitDims: axis must be non-negative, got {self.axis}")

    def make_node(self, x: Any, shp: Any) -> Apply:
        x = as_tensor_variable(x)
        shp = as_tensor_variable(shp)
        if shp.type.ndim != 1 or not is_int_dtype(shp.type.dtype):
            raise TypeError(
                f"split_dims of {_name(x)}: shape must be an integer vector, got {_name(shp)} "
                f"of type {shp.type}"
            )
        if shp.type.shape[0] is None:
            raise ValueError(
                f"split_dims of {_name(x)}: the length of shape {_name(shp)} must be known at "
                "graph construction (use specify_shape)"
            )
        if not 0 <= self.axis < x.type.ndim:
            raise np.exceptions.AxisError(
                f"split_dims: axis {self.axis} is out of bounds for array of dimension "
                f"{x.type.ndim}"
            )
        entries = [None if e == -1 else e for e in static_vector_entries(shp)]
        n = x.type.shape[self.axis]
        if n is not None and None not in entries and int(np.prod(entries)) != n:
            raise ValueError(
                f"split_dims of {_name(x)}: cannot split axis {self.axis} of length {n} into "
                f"shape {tuple(entries)}"
            )
        if n is not None and entries.count(None) == 1:
            known = int(np.prod([e for e in entries if e is not None], dtype=np.int64))
            if known and n % known == 0:
                entries[entries.index(None)] = n // known
        out = (*x.type.shape[: self.axis], *entries, *x.type.shape[self.axis + 1 :])
        return Apply(self, [x, shp], [TensorType(x.type.dtype, out)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, shp = inputs
        new = (*x.shape[: self.axis], *(int(s) for s in shp), *x.shape[self.axis + 1 :])
        try:
            output_storage[0][0] = np.reshape(x, new)
        except ValueError as exc:
            raise ValueError(
                f"split_dims of {_name(node.inputs[0])}: cannot split axis {self.axis} of a "
                f"value of shape {x.shape} into {tuple(int(s) for s in shp)}"
            ) from exc

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        sh, _ = input_shapes
        shp = node.inputs[1]
        n = shp.type.shape[0]
        return [(*sh[: self.axis], *(shp[i] for i in range(n)), *sh[self.axis + 1 :])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        shp = inputs[1]
        (g,) = cotangents
        n = shp.type.shape[0]
        return [JoinDims(self.axis, n)(g), disconnected_type()]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return [None if tangents[0] is None else self(tangents[0], inputs[1])]


def _shape_vector(value: Any, what: str) -> Variable:
    """An int scalar, a sequence of them, or an integer vector, as an int64 vector."""
    if isinstance(value, list | tuple):
        dims = [as_index_scalar(v, f"{what}[{i}]") for i, v in enumerate(value)]
        if all(isinstance(d, Constant) for d in dims):
            return constant(np.asarray([int(d.data) for d in dims], dtype="int64"))
        return make_vector(*dims, dtype="int64")
    var = as_tensor_variable(value)
    if var.type.ndim == 0:
        return make_vector(as_index_scalar(var, what), dtype="int64")
    return var


def split_dims(x: Any, shape: Any, axis: int = 0) -> Variable:
    """``x`` with axis ``axis`` split into ``shape`` (an int, ints, or an integer vector)."""
    x = as_tensor_variable(x)
    ndim = x.type.ndim
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(
            f"split_dims: axis {axis} is out of bounds for array of dimension {ndim}"
        )
    return SplitDims(int(axis) % ndim)(x, _shape_vector(shape, "split_dims: shape"))


def _analyze_axes_list(axes: Any) -> tuple[int, int, int]:
    """(axes kept before the raveled block, axes kept after it, minimum input ndim).

    Kept axes are non-negative ones counted from the start (0, 1, ... with no gap)
    followed by negative ones counted from the end (..., -2, -1): einops' ``i j * k``.
    """
    if axes is None:
        return 0, 0, 0
    if isinstance(axes, int | np.integer):
        axes = [axes]
    try:
        axes = [int(a) for a in axes]
    except TypeError:
        raise TypeError(
            f"pack: axes must be an int, an iterable of ints, or None, got {axes!r}"
        ) from None
    if not axes:
        raise ValueError("pack: axes=[] is ambiguous; use None to ravel all axes")
    if len(set(axes)) != len(axes):
        raise ValueError(f"pack: axes must have no duplicates, got {axes}")
    pos = [a for a in axes if a >= 0]
    neg = [a for a in axes if a < 0]
    if axes != pos + neg:
        raise ValueError(f"pack: Negative axes must come after positive ones, got {axes}")
    if pos != sorted(pos) or neg != sorted(neg):
        raise ValueError(f"pack: Axes must be strictly increasing, got {axes}")
    if pos != list(range(len(pos))):
        raise ValueError(f"pack: Positive axes must be contiguous from 0, got {pos}")
    if neg != list(range(-len(neg), 0)):
        raise ValueError(f"pack: Negative axes must be contiguous up to -1, got {neg}")
    return len(pos), len(neg), len(pos) + len(neg)


def pack(
    *tensors: Any, keep_axes: Sequence[int] | int | None = None
) -> tuple[Variable, list[Variable]]:
    """Ravel every axis of each tensor except ``keep_axes`` and concatenate the results.

    Returns the packed tensor and, per input, the shape of the raveled block
    (what :func:`unpack` needs to undo it).
    """
    n_before, n_after, min_axes = _analyze_axes_list(keep_axes)
    ts = [as_tensor_variable(t) for t in tensors]
    if not ts:
        raise ValueError("pack: No tensor arguments provided")
    joined, shapes = [], []
    for i, t in enumerate(ts):
        ndim = t.type.ndim
        if ndim < min_axes:
            plural = "" if min_axes == 1 else "s"
            raise ValueError(
                f"Input {i} (zero indexed) to pack has {ndim} dimensions, but "
                f"keep_axes={keep_axes} assumes at least {min_axes} dimension{plural}."
            )
        dims = shape_tuple(t)[n_before : ndim - n_after]  # constants where static
        shapes.append(make_vector(*dims, dtype="int64") if dims
                      else constant(np.zeros(0, dtype="int64")))
        joined.append(join_dims(t, start_axis=n_before, n_axes=ndim - n_before - n_after)
                      if ndim > 0 else t.reshape((1,)))
    packed = joined[0] if len(joined) == 1 else concatenate(joined, axis=n_before)
    return packed, shapes


def unpack(
    packed_input: Any, packed_shapes: Sequence[Any], keep_axes: Sequence[int] | int | None = None
) -> list[Variable]:
    """The tensors :func:`pack` made ``packed_input`` from, given their ``packed_shapes``."""
    x = as_tensor_variable(packed_input)
    n_before, n_after, _ = _analyze_axes_list(keep_axes)
    if x.type.ndim != n_before + n_after + 1:
        raise ValueError(
            f"unpack: the packed input must have {n_before + n_after + 1} dimensions for "
            f"keep_axes={keep_axes}, got {x.type.ndim}"
        )
    vectors = [_shape_vector(s, f"unpack: packed_shapes[{i}]")
               for i, s in enumerate(packed_shapes)]
    if not vectors:
        raise ValueError("unpack: packed_shapes is empty")
    sizes = [prod(v) if v.type.shape[0] != 0 else constant(np.int64(1)) for v in vectors]
    pieces = [x] if len(vectors) == 1 else split(x, sizes, len(vectors), axis=n_before)
    return [split_dims(p, v, axis=n_before) for p, v in zip(pieces, vectors)]


def _join_dims_batched(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    op = node.op
    return [JoinDims(op.start_axis + extra[0], op.n_axes)(ins[0])]


def _split_dims_batched(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    if extra[1]:
        raise NoBatchingRule(f"{node.op} with a batched shape")
    return [SplitDims(node.op.axis + extra[0])(*ins)]


register_batching_rule(JoinDims, _join_dims_batched)
register_batching_rule(SplitDims, _split_dims_batched)
