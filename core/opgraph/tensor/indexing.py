"""Shared pieces of the indexing ops: idx_list entries, index values, static shapes.

An op's ``idx_spec`` has one entry per indexed axis: ``INT`` (an integer
scalar input), a ``SliceSpec`` (which slice bounds are inputs) or, in the
advanced ops, ``ARRAY`` (an integer or boolean array input).  The op's
``idx_list`` presents the same index in PyTensor 3's encoding (an int is the
position of the index input, a ``slice`` holds positions or None), for code
written against PyTensor (PyMC's logprob rewrites); the constructors accept
either encoding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import DisconnectedType, disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor import reduction as _reduction
from opgraph.tensor import ufuncs as ptm
from opgraph.tensor.creation import zeros_like
from opgraph.tensor.exceptions import StaticIndexError
from opgraph.tensor.shape import as_index_scalar, static_int
from opgraph.tensor.type import TensorType, discrete_dtypes
from opgraph.tensor.variable import constant

__all__ = ["ARRAY", "INT", "SliceLength", "SliceSpec", "as_idx_spec", "pytensor_idx_list",
           "unflatten_index_variables"]

INT = "int"  # idx_list entry: an integer scalar input
ARRAY = "array"  # idx_list entry (advanced ops only): an integer or boolean array input


@attrs.frozen
class SliceSpec:
    """An idx_list entry for a slice: which of start/stop/step are given as inputs."""

    start: bool = False
    stop: bool = False
    step: bool = False

    @property
    def n_inputs(self) -> int:
        return int(self.start) + int(self.stop) + int(self.step)

    def __str__(self) -> str:
        text = ("start" if self.start else "") + ":" + ("stop" if self.stop else "")
        return text + (":step" if self.step else "")


def pytensor_idx_list(idx_spec: Sequence[Any]) -> tuple:
    """PyTensor 3's encoding of ``idx_spec``: ``x[i, :j]`` is ``(0, slice(None, 1, None))``."""
    out: list[Any] = []
    pos = 0
    for entry in idx_spec:
        if isinstance(entry, SliceSpec):
            bounds = []
            for given in (entry.start, entry.stop, entry.step):
                bounds.append(pos if given else None)
                pos += int(given)
            out.append(slice(*bounds))
        else:
            out.append(pos)
            pos += 1
    return tuple(out)


def as_idx_spec(entries: Any, position: str = INT) -> tuple:
    """An op's ``idx_spec`` from opgraph's entries or PyTensor 3's (ints and slices).

    A PyTensor position (an int) becomes ``position``: ``INT`` for the basic
    ops, ``ARRAY`` for the advanced ones (an array input may be 0-d).
    """
    if isinstance(entries, str) or not isinstance(entries, Sequence):
        raise TypeError(f"idx_list must be a sequence of index entries (SliceSpec, 'int', "
                        f"'array', or PyTensor 3's ints and slices); got {entries!r:.80}")
    out: list[Any] = []
    for entry in entries:
        if isinstance(entry, SliceSpec) or (isinstance(entry, str) and entry in (INT, ARRAY)):
            out.append(entry)
        elif isinstance(entry, slice):
            out.append(SliceSpec(*(p is not None for p in (entry.start, entry.stop, entry.step))))
        elif isinstance(entry, int | np.integer) and not isinstance(entry, bool):
            out.append(position)
        else:
            raise TypeError(f"idx_list entries must be SliceSpec, 'int', 'array', an int "
                            f"(PyTensor 3's input position) or a slice; got {entry!r:.80}")
    return tuple(out)


def as_advanced_idx_spec(entries: Any) -> tuple:
    """``as_idx_spec`` for the advanced ops (a PyTensor position is an array input)."""
    return as_idx_spec(entries, ARRAY)


def n_inputs(entry: Any) -> int:
    return entry.n_inputs if isinstance(entry, SliceSpec) else 1


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def is_missing(g: Any) -> bool:
    return g is None or isinstance(getattr(g, "type", None), DisconnectedType)


def idx_str(idx_list: Sequence[Any]) -> str:
    return ", ".join(str(e) for e in idx_list)


# --------------------------------------------------------------------------- index values


def split_inputs(idx_list: Sequence[Any], inputs: Sequence[Any]) -> list[Any]:
    """Pair idx_list entries with their inputs: ints/arrays get one, slices get a tuple."""
    it = iter(inputs)
    parts: list[Any] = []
    for entry in idx_list:
        if isinstance(entry, SliceSpec):
            parts.append(
                (
                    next(it) if entry.start else None,
                    next(it) if entry.stop else None,
                    next(it) if entry.step else None,
                )
            )
        else:
            parts.append(next(it))
    return parts


def unflatten_index_variables(flat_indices: Sequence[Any], idx_list: Sequence[Any]) -> tuple:
    """The index tuple (slices rebuilt) from an indexing op's inputs and its ``idx_list``.

    Reads both encodings: opgraph's (``"int"``/``"array"`` entries and
    :class:`SliceSpec`, inputs consumed in order) and PyTensor 3's (an int is
    the position of the input in ``flat_indices``; a slice holds positions or
    None).  ``x[i, 1:j]`` built from inputs ``[i, one, j]`` gives ``(i, slice(one, j))``.
    """
    if all(isinstance(e, SliceSpec) or e in (INT, ARRAY) for e in idx_list):
        parts = split_inputs(idx_list, flat_indices)
        return tuple(slice(*p) if isinstance(e, SliceSpec) else p for e, p in zip(idx_list, parts))
    out: list[Any] = []
    for entry in idx_list:
        if isinstance(entry, slice):
            out.append(slice(*(None if p is None else flat_indices[p]
                               for p in (entry.start, entry.stop, entry.step))))
        elif isinstance(entry, int | np.integer) and not isinstance(entry, bool):
            out.append(flat_indices[entry])
        else:
            raise ValueError(f"idx_list entries must be int or slice, got {entry!r}")
    return tuple(out)


def numpy_index(idx_list: Sequence[Any], values: Sequence[Any]) -> tuple:
    """The index tuple NumPy takes, from the op's idx_list and the index input values."""
    out: list[Any] = []
    for entry, part in zip(idx_list, split_inputs(idx_list, values)):
        if isinstance(entry, SliceSpec):
            out.append(slice(*(None if p is None else int(p) for p in part)))
        elif entry == INT:
            out.append(int(part))
        else:
            out.append(np.asarray(part))
    return tuple(out)


def static_slice_length(n: int | None, parts: Sequence[Any]) -> int | None:
    known = [None if p is None else static_int(p) for p in parts]
    step = known[2]
    if parts[2] is not None and step == 0:
        raise ValueError("slice step cannot be zero")
    if parts[0] is None and parts[1] is None and (parts[2] is None or step == 1):
        return n
    if any(p is not None and k is None for p, k in zip(parts, known)):
        return None
    if n is None:
        # Empty whatever the length: start and stop of one sign, stop not past start.
        start, stop = known[0], known[1]
        if (start is not None and stop is not None and (start >= 0) == (stop >= 0)
                and (step is None or step > 0) and stop <= start):
            return 0
        return None
    return len(range(*slice(*known).indices(n)))


def check_static_int(x: Variable, axis: int, index: Any) -> None:
    i = static_int(index)
    n = x.type.shape[axis]
    if i is not None and n is not None and not -n <= i < n:
        raise StaticIndexError(
            f"index {i} is out of bounds for axis {axis} of {_name(x)} with size {n}"
        )


# --------------------------------------------------------------------------- SliceLength


@attrs.frozen
class SliceLength(Op):
    """The length of ``range(n)[start:stop:step]`` (symbolic shapes of Subtensor)."""

    spec: SliceSpec

    def make_node(self, n: Any, *parts: Any) -> Apply:
        inputs = [as_index_scalar(n, "slice length n")]
        inputs += [as_index_scalar(p, "slice bound") for p in parts]
        return Apply(self, inputs, [TensorType("int64", ())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        n, *rest = inputs
        (bounds,) = split_inputs((self.spec,), rest)
        sl = slice(*(None if b is None else int(b) for b in bounds))
        output_storage[0][0] = np.asarray(len(range(*sl.indices(int(n)))), dtype="int64")

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False] for _ in node.inputs]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [disconnected_type() for _ in inputs]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return [None]


def slice_length(n: Any, parts: Sequence[Any]) -> Variable:
    static = static_slice_length(static_int(n), parts)
    if static is not None:
        return constant(np.int64(static))
    if parts[0] is None and parts[1] is None and parts[2] is None:
        return as_index_scalar(n)
    spec = SliceSpec(*(p is not None for p in parts))
    return SliceLength(spec)(n, *[p for p in parts if p is not None])


def basic_static_shape(x: Variable, idx_list: Sequence[Any], inputs: Sequence[Any]) -> list:
    out: list[int | None] = []
    for axis, (entry, part) in enumerate(zip(idx_list, split_inputs(idx_list, inputs))):
        if isinstance(entry, SliceSpec):
            out.append(static_slice_length(x.type.shape[axis], part))
        else:
            check_static_int(x, axis, part)
    return out + list(x.type.shape[len(idx_list) :])


def check_basic_inputs(op: Any, x: Variable, idx_list: Sequence[Any], inputs: Sequence) -> list:
    if any(not (e == INT or isinstance(e, SliceSpec)) for e in idx_list):
        raise TypeError(f"{type(op).__name__}: idx_list entries must be 'int' or SliceSpec")
    if len(idx_list) > x.type.ndim:
        raise IndexError(
            f"too many indices for {_name(x)}: it has {x.type.ndim} dimension(s), "
            f"{len(idx_list)} were indexed"
        )
    expected = sum(n_inputs(e) for e in idx_list)
    if len(inputs) != expected:
        raise TypeError(
            f"{type(op).__name__}{{{idx_str(idx_list)}}} expects {expected} index inputs, "
            f"got {len(inputs)}"
        )
    return [as_index_scalar(i, f"index of {_name(x)}") for i in inputs]


def reduce_like(g: Variable, y: Variable) -> Variable:
    """Sum ``g`` down to ``y``'s shape: extra leading axes and axes ``y`` broadcasts on."""
    m = ptm
    extra = g.type.ndim - y.type.ndim
    if extra > 0:
        g = _reduction.sum(g, axis=tuple(range(extra)))
    axes = tuple(
        i for i, (ys, gs) in enumerate(zip(y.type.shape, g.type.shape)) if ys == 1 and gs != 1
    )
    if axes:
        g = _reduction.sum(g, axis=axes, keepdims=True)
    if g.type.dtype != y.type.dtype and y.type.dtype not in discrete_dtypes:
        g = m.cast(g, y.type.dtype)
    return g


def check_update_value(x: Variable, y: Variable, sub_shape: Sequence, what: str) -> None:
    if y.type.ndim > len(sub_shape):
        raise TypeError(
            f"{what}: cannot {'set' if 'set' in what else 'increment'} a "
            f"{len(sub_shape)}-dimensional part of {_name(x)} with the "
            f"{y.type.ndim}-dimensional value {_name(y)}"
        )
    offset = len(sub_shape) - y.type.ndim
    for j, ys in enumerate(y.type.shape):
        ss = sub_shape[offset + j]
        if ys is not None and ss is not None and ys != ss and ys != 1:
            raise ValueError(
                f"{what}: the value {_name(y)} of static shape {y.type.shape} cannot "
                f"broadcast to the indexed part of {_name(x)}, of static shape {tuple(sub_shape)}"
            )
    if not np.can_cast(y.type.dtype, x.type.dtype, "same_kind"):
        raise TypeError(
            f"{what}: the value {_name(y)} has dtype {y.type.dtype}, which cannot be stored in "
            f"{_name(x)} of dtype {x.type.dtype}"
        )


class ReadOp(Op):
    """Shared gradient of the indexing ops ``x[idx]``: inputs are ``x`` then the indices.

    Subclasses name their increment counterpart in ``update_op``; the cotangent
    is scattered into zeros shaped like ``x`` through it.
    """

    def update_op(self) -> Op:
        raise NotImplementedError

    @property
    def idx_list(self) -> tuple:
        """The index in PyTensor 3's encoding (``idx_spec`` is opgraph's)."""
        return pytensor_idx_list(self.idx_spec)  # type: ignore[attr-defined]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        x, *idx = inputs
        g = cotangents[0]
        if x.type.dtype in discrete_dtypes:
            gx = zeros_like(x, dtype=g.type.dtype)
        else:
            gx = self.update_op()(zeros_like(x), g, *idx)
        return [gx] + [disconnected_type() for _ in idx]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        if is_missing(tangents[0]):
            return [None]
        return [self(tangents[0], *inputs[1:])]


class UpdateOp(Op):
    """Shared parts of the set/increment ops: flags, destroy_map, printing, gradients.

    Inputs are ``x``, the value ``y``, then the indices; subclasses name the
    matching read op (``x[idx]``) in ``read_op``.
    """

    def read_op(self) -> Op:
        raise NotImplementedError

    @property
    def idx_list(self) -> tuple:
        """The index in PyTensor 3's encoding (``idx_spec`` is opgraph's)."""
        return pytensor_idx_list(self.idx_spec)  # type: ignore[attr-defined]

    @property
    def destroy_map(self) -> dict[int, list[int]]:  # type: ignore[override]
        return {0: [0]} if self.inplace else {}

    def _label(self) -> str:
        flags = ["set" if self.set_instead_of_inc else "inc"]
        if self.inplace:
            flags.append("inplace")
        return ";".join(flags)

    def _write(self, x: np.ndarray, index: Any, y: Any, accumulate: bool) -> np.ndarray:
        out = x if self.inplace else x.copy()
        if self.set_instead_of_inc:
            out[index] = y
        elif accumulate:
            np.add.at(out, index, y)
        else:
            out[index] = out[index] + y
        return out

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True]] + [[False]] * (len(node.inputs) - 2)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        _x, y, *idx = inputs
        g = cotangents[0]
        if self.set_instead_of_inc:
            zero = constant(np.zeros((), dtype=g.type.dtype))
            gx = attrs.evolve(self, inplace=False, set_instead_of_inc=True)(g, zero, *idx)
        else:
            gx = g
        gy = reduce_like(self.read_op()(g, *idx), y)
        return [gx, gy] + [disconnected_type() for _ in idx]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return update_pushforward(self, inputs, tangents)


def update_pushforward(op: Any, inputs: Sequence, tangents: Sequence) -> list:
    x, y, *idx = inputs
    tx, ty = tangents[0], tangents[1]
    if is_missing(tx) and is_missing(ty):
        return [None]
    tx = zeros_like(x) if is_missing(tx) else tx
    ty = zeros_like(y) if is_missing(ty) else ty
    return [attrs.evolve(op, inplace=False)(tx, ty, *idx)]
