"""PyTensor's ``tensor.extra_ops``: cumulative ops, repeat, searchsorted, unique, ...

Each Op computes with the NumPy function of the same name in ``perform``;
the helpers that NumPy spells as a composition of other ops (``diff``,
``bincount``, ``broadcast_to``, ``linspace``...) are built from the tensor
library, so they differentiate and compile like any other graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor import math as ptm
from opgraph.tensor.creation import alloc, arange, zeros, zeros_like
from opgraph.tensor.indexing_along import add_along_axis
from opgraph.tensor.join import join
from opgraph.tensor.reduction import max as pt_max
from opgraph.tensor.shape import flatten, is_int_dtype, shape_i, specify_shape, squeeze
from opgraph.tensor.subtensor import advanced_inc_subtensor1
from opgraph.tensor.type import TensorType, get_floatX, integer_dtypes
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = ["Bartlett", "CpuContiguous", "CumOp", "FillDiagonal", "FillDiagonalOffset",
           "RavelMultiIndex", "Repeat", "SearchsortedOp", "Unique", "UnravelIndex", "bartlett",
           "bincount", "broadcast_arrays", "broadcast_shape", "broadcast_to", "compress",
           "concat_with_broadcast", "cpu_contiguous", "cumprod", "cumsum", "diff",
           "fill_diagonal", "fill_diagonal_offset", "geomspace", "linspace", "logspace",
           "ravel_multi_index", "repeat", "searchsorted", "squeeze", "to_one_hot", "unique",
           "unravel_index"]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def _int_axis(x: Variable, axis: Any, who: str) -> int:
    if isinstance(axis, bool | np.bool_) or not isinstance(axis, int | np.integer):
        raise TypeError(f"{who} of {_name(x)}: axis must be an int, got {axis!r}")
    if not -x.type.ndim <= int(axis) < x.type.ndim:
        raise ValueError(
            f"{who} of {_name(x)}: axis {axis} is out of range for a {x.type.ndim}-d tensor"
        )
    return int(axis) % x.type.ndim


def _reverse(x: Variable, axis: int) -> Variable:
    return x[(slice(None),) * axis + (slice(None, None, -1),)]


# --------------------------------------------------------------------------- cumulative


class CumOp(Op):
    """``np.cumsum`` (mode ``"add"``) or ``np.cumprod`` (``"mul"``) along ``axis``.

    ``axis=None`` works on the flattened input and gives a vector, as NumPy.
    """

    __props__ = ("axis", "mode")

    def __init__(self, axis: int | None = None, mode: str = "add") -> None:
        if mode not in ("add", "mul"):
            raise ValueError(f"CumOp: mode must be 'add' or 'mul', got {mode!r}")
        if axis is not None and not isinstance(axis, int | np.integer):
            raise TypeError(f"CumOp: axis must be an int or None, got {axis!r}")
        self.axis = None if axis is None else int(axis)
        self.mode = mode

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.axis is None:
            size = int(np.prod(x.type.shape)) if None not in x.type.shape else None
            out = TensorType(x.type.dtype, (size,))()
        else:
            _int_axis(x, self.axis, f"cum{'sum' if self.mode == 'add' else 'prod'}")
            out = x.type()
        return Apply(self, [x], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        fn = np.cumsum if self.mode == "add" else np.cumprod
        dtype = node.outputs[0].type.dtype
        output_storage[0][0] = np.asarray(fn(inputs[0], axis=self.axis), dtype=dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        if self.axis is None:
            size = 1
            for s in input_shapes[0]:
                size = size * s
            return [(size,)]
        return [input_shapes[0]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        (x,), (out,), (g,) = inputs, outputs, cotangents
        axis = 0 if self.axis is None else self.axis % x.type.ndim
        if self.mode == "add":
            gx = _reverse(CumOp(axis, "add")(_reverse(g, axis)), axis)
        else:
            # d out_j / d x_i = out_j / x_i for j >= i (x_i != 0), as PyTensor.
            gx = _reverse(CumOp(axis, "add")(_reverse(g * out, axis)), axis) / (
                flatten(x) if self.axis is None else x
            )
        return [gx.reshape(x.shape) if self.axis is None else gx]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        (x,), (out,), (t,) = inputs, outputs, tangents
        if t is None:
            return [None]
        if self.mode == "add":
            return [CumOp(self.axis, "add")(t)]
        # d cumprod(x)_j = cumprod(x)_j * sum_{i <= j} dx_i / x_i
        src, tt = (flatten(x), flatten(t)) if self.axis is None else (x, t)
        return [out * CumOp(0 if self.axis is None else self.axis, "add")(tt / src)]


def cumsum(x: Any, axis: int | None = None) -> Variable:
    """Cumulative sum along ``axis`` (``None``: of the flattened tensor), as ``np.cumsum``."""
    return CumOp(axis=axis, mode="add")(x)


def cumprod(x: Any, axis: int | None = None) -> Variable:
    """Cumulative product along ``axis`` (``None``: flattened), as ``np.cumprod``."""
    return CumOp(axis=axis, mode="mul")(x)


def diff(x: Any, n: int = 1, axis: int = -1) -> Variable:
    """The ``n``-th discrete difference along ``axis``, as ``np.diff``."""
    x = as_tensor_variable(x)
    if n < 0:
        raise ValueError(f"diff of {_name(x)}: order n must be >= 0, got {n}")
    ax = _int_axis(x, axis, "diff")
    head = (slice(None),) * ax
    for _ in range(n):
        x = x[(*head, slice(1, None))] - x[(*head, slice(None, -1))]
    return x


# --------------------------------------------------------------------------- repeat


def _check_repeats_dtype(x: Variable, repeats: Variable) -> None:
    """Integer repeats that NumPy's repeat can take (it casts them safely to intp)."""
    dtype = repeats.type.dtype
    if dtype not in integer_dtypes or not np.can_cast(dtype, np.intp, casting="safe"):
        raise TypeError(
            f"repeat of {_name(x)}: repeats must be integers that fit the platform's "
            f"index type ({np.dtype(np.intp).name}), got {_name(repeats)} of type "
            f"{repeats.type}"
        )


class Repeat(Op):
    """``np.repeat(x, repeats, axis)`` with a scalar or vector of integer repeats."""

    __props__ = ("axis",)

    def __init__(self, axis: int | None = None) -> None:
        self.axis = axis

    def make_node(self, x: Any, repeats: Any) -> Apply:
        x, repeats = as_tensor_variable(x), as_tensor_variable(repeats)
        _check_repeats_dtype(x, repeats)
        if repeats.type.ndim > 1:
            raise ValueError(f"repeat of {_name(x)}: repeats must be a scalar or a vector")
        if self.axis is None:
            shape: list[int | None] = [None]
        else:
            _int_axis(x, self.axis, "repeat")
            shape = list(x.type.shape)
            axis = self.axis % x.type.ndim
            reps = getattr(repeats, "data", None)
            if reps is not None and repeats.type.ndim == 0 and shape[axis] is not None:
                shape[axis] = shape[axis] * int(reps)
            elif reps is not None and repeats.type.ndim == 1:
                shape[axis] = int(np.sum(reps))
            else:
                shape[axis] = None
        return Apply(self, [x, repeats], [TensorType(x.type.dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, repeats = inputs
        output_storage[0][0] = np.repeat(x, repeats, axis=self.axis)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        x, repeats = inputs
        (g,) = cotangents
        src = flatten(x) if self.axis is None else x
        axis = 0 if self.axis is None else self.axis % x.type.ndim
        # Output position k along the axis came from input position owner[k].
        owner = Repeat(0)(arange(shape_i(src, axis)), repeats)
        shape = [1] * src.type.ndim
        shape[axis] = -1
        gx = add_along_axis(zeros_like(src), owner.reshape(shape), g, axis)
        return [gx.reshape(x.shape) if self.axis is None else gx, disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Variable:
    """Repeat the elements of ``x`` (``axis=None``: flattened), as ``np.repeat``.

    One repeat count for every element (a scalar, or a vector of static length 1)
    is a broadcast and a reshape, which later rewrites understand; per-element
    counts use the Repeat Op.
    """
    x, reps = as_tensor_variable(x), as_tensor_variable(repeats)
    _check_repeats_dtype(x, reps)
    if (
        reps.type.ndim == 0 or (reps.type.ndim == 1 and reps.type.shape[0] == 1)
    ):
        count = reps if reps.type.ndim == 0 else reps[0]
        src = flatten(x) if axis is None else x
        ax = 0 if axis is None else _int_axis(src, axis, "repeat")
        dims = [shape_i(src, i) for i in range(src.type.ndim)]
        spread = broadcast_to(src.dimshuffle(*range(ax + 1), "x", *range(ax + 1, src.type.ndim)),
                              [*dims[: ax + 1], count, *dims[ax + 1:]])
        merged = [*dims[:ax], dims[ax] * count, *dims[ax + 1:]]
        out = spread.reshape(merged)
        static = getattr(count, "data", None)
        if static is not None and src.type.shape[ax] is not None:
            shape = list(src.type.shape)
            shape[ax] = shape[ax] * int(static)
            out = specify_shape(out, shape)
        return out
    return Repeat(axis=axis)(x, repeats)


# --------------------------------------------------------------------------- search / unique


class SearchsortedOp(Op):
    """``np.searchsorted(a, v, side, sorter)``: int64 insertion positions, shaped like ``v``."""

    __props__ = ("side",)

    def __init__(self, side: str = "left") -> None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        self.side = side

    def make_node(self, a: Any, v: Any, sorter: Any = None) -> Apply:
        a, v = as_tensor_variable(a), as_tensor_variable(v)
        if a.type.ndim != 1:
            raise ValueError(f"searchsorted: {_name(a)} must be a vector, got {a.type}")
        inputs = [a, v]
        if sorter is not None:
            sorter = as_tensor_variable(sorter)
            if sorter.type.ndim != 1:
                raise ValueError(f"searchsorted: sorter must be a vector, got {sorter.type}")
            if sorter.type.dtype not in integer_dtypes:
                raise TypeError(
                    f"searchsorted: sorter must be an integer vector, got {sorter.type}"
                )
            inputs.append(sorter)
        return Apply(self, inputs, [TensorType("int64", v.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, v, *rest = inputs
        out = np.searchsorted(a, v, side=self.side, sorter=rest[0] if rest else None)
        output_storage[0][0] = np.asarray(out, dtype=np.int64)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[1]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        # Piecewise constant in a and v: zero gradient where it exists.
        return [zeros_like(inputs[0]), zeros_like(inputs[1])] + [disconnected_type()] * (
            len(inputs) - 2
        )


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Variable:
    """Where ``v`` would go in the sorted vector ``a``, as ``np.searchsorted``."""
    return SearchsortedOp(side=side)(a, v, sorter)


class Unique(Op):
    """``np.unique`` with its optional index, inverse and counts outputs (in that order)."""

    __props__ = ("return_index", "return_inverse", "return_counts", "axis")

    def __init__(
        self,
        return_index: bool = False,
        return_inverse: bool = False,
        return_counts: bool = False,
        axis: int | None = None,
    ) -> None:
        self.return_index = bool(return_index)
        self.return_inverse = bool(return_inverse)
        self.return_counts = bool(return_counts)
        self.axis = axis

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.axis is None:
            values = TensorType(x.type.dtype, (None,))()
            inverse_shape: tuple = (None,) if x.type.ndim != 1 else x.type.shape
        else:
            ax = _int_axis(x, self.axis, "unique")
            shape = list(x.type.shape)
            shape[ax] = None
            values = TensorType(x.type.dtype, shape)()
            inverse_shape = (x.type.shape[ax],)
        outs = [values]
        if self.return_index:
            outs.append(TensorType("int64", (None,))())
        if self.return_inverse:
            outs.append(TensorType("int64", inverse_shape)())
        if self.return_counts:
            outs.append(TensorType("int64", (None,))())
        return Apply(self, [x], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        result = np.unique(
            inputs[0],
            return_index=self.return_index,
            return_inverse=self.return_inverse,
            return_counts=self.return_counts,
            axis=self.axis,
        )
        results = result if isinstance(result, tuple) else (result,)
        for k, (cell, value) in enumerate(zip(output_storage, results)):
            out_type = node.outputs[k].type
            value = np.asarray(value, dtype=out_type.dtype)
            cell[0] = value.reshape(-1) if k > 0 and out_type.ndim == 1 else value


def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
) -> Variable | list[Variable]:
    """The sorted unique elements of ``ar`` (and indices/inverse/counts), as ``np.unique``."""
    return Unique(return_index, return_inverse, return_counts, axis)(ar)


# --------------------------------------------------------------------------- indices


class RavelMultiIndex(Op):
    """``np.ravel_multi_index(multi_index, dims, mode, order)``."""

    __props__ = ("mode", "order")

    def __init__(self, mode: str = "raise", order: str = "C") -> None:
        if mode not in ("raise", "wrap", "clip"):
            raise ValueError(f"ravel_multi_index: mode must be raise/wrap/clip, got {mode!r}")
        if order not in ("C", "F"):
            raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
        self.mode, self.order = mode, order

    def make_node(self, *inputs: Any) -> Apply:
        *index, dims = (as_tensor_variable(i) for i in inputs)
        if not index:
            raise ValueError("ravel_multi_index: needs at least one index array")
        for i in (*index, dims):
            if i.type.dtype not in integer_dtypes:
                raise TypeError(f"ravel_multi_index: {_name(i)} must be integers, got {i.type}")
        if dims.type.ndim != 1:
            raise TypeError(f"ravel_multi_index: dims must be an integer vector, got {dims.type}")
        return Apply(self, [*index, dims], [TensorType("int64", index[0].type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        *index, dims = inputs
        out = np.ravel_multi_index(tuple(index), tuple(int(d) for d in dims), mode=self.mode,
                                   order=self.order)
        output_storage[0][0] = np.asarray(out, dtype=np.int64)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]


def ravel_multi_index(multi_index: Sequence[Any], dims: Any, mode: str = "raise",
                      order: str = "C") -> Variable:
    """Flat indices of the index arrays in ``multi_index``, as ``np.ravel_multi_index``."""
    if not isinstance(multi_index, list | tuple):
        raise TypeError("ravel_multi_index: multi_index must be a list or tuple of index arrays")
    return RavelMultiIndex(mode=mode, order=order)(*multi_index, dims)


class UnravelIndex(Op):
    """``np.unravel_index(indices, dims, order)``: one int64 output per dimension."""

    __props__ = ("order",)

    def __init__(self, order: str = "C") -> None:
        if order not in ("C", "F"):
            raise ValueError(f"unravel_index: order must be 'C' or 'F', got {order!r}")
        self.order = order

    def make_node(self, indices: Any, dims: Any) -> Apply:
        indices, dims = as_tensor_variable(indices), as_tensor_variable(dims)
        if indices.type.dtype not in integer_dtypes:
            raise TypeError(f"unravel_index: indices must be integers, got {indices.type}")
        if dims.type.dtype not in integer_dtypes or dims.type.ndim != 1:
            raise TypeError(f"unravel_index: dims must be an integer vector, got {dims.type}")
        n = dims.type.shape[0]
        if n is None:
            data = getattr(dims, "data", None)
            if data is None:
                raise ValueError("unravel_index: the length of dims must be known")
            n = len(data)
        outs = [TensorType("int64", indices.type.shape)() for _ in range(n)]
        return Apply(self, [indices, dims], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        indices, dims = inputs
        result = np.unravel_index(indices, tuple(int(d) for d in dims), order=self.order)
        for cell, value in zip(output_storage, result):
            cell[0] = np.asarray(value, dtype=np.int64)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]] * len(node.outputs)


def unravel_index(indices: Any, dims: Any, order: str = "C") -> tuple[Variable, ...]:
    """Index arrays for the flat ``indices`` into shape ``dims``, as ``np.unravel_index``."""
    out = UnravelIndex(order=order)(indices, dims)
    return tuple(out) if isinstance(out, list) else (out,)


# --------------------------------------------------------------------------- diagonals


class FillDiagonal(Op):
    """A copy of the matrix (or n-d cube) ``a`` with its main diagonal set to ``val``."""

    __props__ = ()

    def make_node(self, a: Any, val: Any) -> Apply:
        a = as_tensor_variable(a)
        val = as_tensor_variable(val)
        if a.type.ndim < 2:
            raise TypeError(f"fill_diagonal: {_name(a)} must be at least 2-d, got {a.type}")
        if val.type.ndim != 0:
            raise TypeError(f"fill_diagonal: val must be a scalar, got {val.type}")
        if np.result_type(a.type.dtype, val.type.dtype) != np.dtype(a.type.dtype):
            raise TypeError(
                f"fill_diagonal: val of type {val.type.dtype} would be downcast to "
                f"{a.type.dtype}, the dtype of {_name(a)}"
            )
        return Apply(self, [a, val], [a.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, val = inputs
        out = np.array(a, copy=True)
        np.fill_diagonal(out, val)
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        a, _val = inputs
        (g,) = cotangents
        if a.type.ndim != 2:
            raise NotImplementedError("fill_diagonal: gradient only for matrices")
        n = ptm.minimum(a.shape[0], a.shape[1])
        diag = g[arange(n), arange(n)]
        return [FillDiagonal()(g, constant(np.zeros((), g.type.dtype))), diag.sum()]


def fill_diagonal(a: Any, val: Any) -> Variable:
    """``a`` with its main diagonal set to the scalar ``val``, as ``np.fill_diagonal``."""
    return FillDiagonal()(a, val)


class FillDiagonalOffset(Op):
    """A copy of the matrix ``a`` with the diagonal at ``offset`` set to ``val``."""

    __props__ = ()

    def make_node(self, a: Any, val: Any, offset: Any) -> Apply:
        a, val, offset = (as_tensor_variable(v) for v in (a, val, offset))
        if a.type.ndim != 2:
            raise TypeError(f"fill_diagonal_offset: {_name(a)} must be a matrix, got {a.type}")
        if val.type.ndim != 0:
            raise TypeError(f"fill_diagonal_offset: val must be a scalar, got {val.type}")
        if offset.type.ndim != 0 or not is_int_dtype(offset.type.dtype):
            raise TypeError(f"fill_diagonal_offset: offset must be an integer scalar, got "
                            f"{offset.type}")
        if np.result_type(a.type.dtype, val.type.dtype) != np.dtype(a.type.dtype):
            raise TypeError(
                f"fill_diagonal_offset: val of type {val.type.dtype} would be downcast to "
                f"{a.type.dtype}, the dtype of {_name(a)}"
            )
        return Apply(self, [a, val, offset], [a.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, val, offset = inputs
        out = np.array(a, copy=True)
        rows, cols = _offset_diagonal(out.shape, int(offset))
        out[rows, cols] = val
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        _a, _val, offset = inputs
        (g,) = cotangents
        zero = constant(np.zeros((), g.type.dtype))
        picked = g - FillDiagonalOffset()(g, zero, offset)
        return [FillDiagonalOffset()(g, zero, offset), picked.sum(), disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True], [False]]


def _offset_diagonal(shape: Sequence[int], offset: int) -> tuple[np.ndarray, np.ndarray]:
    rows, cols = shape
    if offset >= 0:
        n = max(0, min(rows, cols - offset))
        return np.arange(n), np.arange(n) + offset
    n = max(0, min(rows + offset, cols))
    return np.arange(n) - offset, np.arange(n)


def fill_diagonal_offset(a: Any, val: Any, offset: Any) -> Variable:
    """``a`` with the diagonal ``offset`` above (below, if negative) the main set to ``val``."""
    return FillDiagonalOffset()(a, val, offset)


# --------------------------------------------------------------------------- small ops


class Bartlett(Op):
    """``np.bartlett(M)``: the triangular window of ``M`` points (float64)."""

    __props__ = ()

    def make_node(self, M: Any) -> Apply:
        M = as_tensor_variable(M)
        if M.type.ndim != 0 or not is_int_dtype(M.type.dtype):
            raise TypeError(f"bartlett: M must be an integer scalar, got {M.type}")
        return Apply(self, [M], [TensorType("float64", (None,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.bartlett(int(inputs[0]))

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        M = node.inputs[0]
        return [(ptm.maximum(M, 0),)]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]


def bartlett(M: Any) -> Variable:
    """The Bartlett window of ``M`` points, as ``np.bartlett``."""
    return Bartlett()(M)


class CpuContiguous(Op):
    """A C-contiguous copy of ``x`` (``x`` itself when it already is)."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.ascontiguousarray(inputs[0])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [cotangents[0]]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return [tangents[0]]


def cpu_contiguous(x: Any) -> Variable:
    """``x`` as a C-contiguous array (a copy only when needed)."""
    return CpuContiguous()(x)


# --------------------------------------------------------------------------- compositions


def bincount(x: Any, weights: Any = None, minlength: int | None = None,
             assert_nonneg: bool = False) -> Variable:
    """How often each value of the non-negative integer vector ``x`` occurs (``np.bincount``).

    With ``weights``, the sums of the weights per value.  Negative values wrap
    around like Python indices unless ``assert_nonneg`` asks for a check.
    """
    x = as_tensor_variable(x)
    if x.type.ndim != 1 or not is_int_dtype(x.type.dtype):
        raise TypeError(f"bincount: {_name(x)} must be an integer vector, got {x.type}")
    if assert_nonneg:
        x = _NonNegative()(x)
    size = pt_max(x) + 1
    if minlength is not None:
        size = ptm.maximum(size, minlength)
    if weights is None:
        out = zeros((size,), dtype="int64")
        return advanced_inc_subtensor1(out, _ones(x), x)
    weights = as_tensor_variable(weights)
    out = zeros((size,), dtype=weights.type.dtype)
    return advanced_inc_subtensor1(out, weights, x)


def _ones(x: Variable) -> Variable:
    return alloc(constant(np.int64(1)), shape_i(x, 0))


class _NonNegative(Op):
    """Passes an integer tensor through, raising if any entry is negative."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        if x.size and x.min() < 0:
            # AssertionError, as PyTensor's Assert-based check raises.
            raise AssertionError(f"bincount: {_name(node.inputs[0])} has negative entries")
        output_storage[0][0] = x


def broadcast_shape(*arrays: Any, arrays_are_shapes: bool = False) -> tuple[Variable, ...]:
    """The broadcast shape of ``arrays`` (or of the shapes given), one scalar per dimension."""
    shapes = []
    for a in arrays:
        if arrays_are_shapes:
            shapes.append([as_tensor_variable(s) for s in a])
        else:
            v = as_tensor_variable(a)
            shapes.append([shape_i(v, d) for d in range(v.type.ndim)])
    ndim = max((len(s) for s in shapes), default=0)
    one = constant(np.int64(1))
    out = []
    for d in range(ndim):
        entries = [s[len(s) - ndim + d] for s in shapes if len(s) - ndim + d >= 0]
        dim = one
        for e in entries:
            dim = ptm.switch(ptm.eq(dim, 1), e, dim)
        out.append(dim)
    return tuple(out)


def broadcast_to(x: Any, shape: Sequence[Any]) -> Variable:
    """``x`` broadcast to ``shape``, as ``np.broadcast_to`` (a new tensor, not a view)."""
    return alloc(as_tensor_variable(x), *shape)


def broadcast_arrays(*args: Any) -> tuple[Variable, ...]:
    """Each argument broadcast to their common shape, as ``np.broadcast_arrays``."""
    shape = broadcast_shape(*args)
    return tuple(broadcast_to(a, shape) for a in args)


def compress(condition: Any, x: Any, axis: int | None = None) -> Variable:
    """The slices of ``x`` along ``axis`` where the vector ``condition`` holds (``np.compress``)."""
    x = as_tensor_variable(x)
    condition = as_tensor_variable(condition)
    if condition.type.ndim != 1:
        raise ValueError(f"compress: condition must be a vector, got {condition.type}")
    if axis is None:
        x, axis = flatten(x), 0
    ax = _int_axis(x, axis, "compress")
    keep = Nonzero1()(condition)
    return x[(slice(None),) * ax + (keep,)]


class Nonzero1(Op):
    """The int64 positions of the non-zero entries of a vector (``np.flatnonzero``)."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [TensorType("int64", (None,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.flatnonzero(inputs[0]).astype(np.int64)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]


def to_one_hot(y: Any, nb_class: int, dtype: str | None = None) -> Variable:
    """A ``(len(y), nb_class)`` matrix with a 1 at column ``y[i]`` of row ``i``."""
    y = as_tensor_variable(y)
    if y.type.ndim != 1 or not is_int_dtype(y.type.dtype):
        raise TypeError(f"to_one_hot: {_name(y)} must be an integer vector, got {y.type}")
    hot = ptm.eq(y.dimshuffle(0, "x"), arange(nb_class).dimshuffle("x", 0))
    return ptm.cast(hot, dtype or get_floatX())


def linspace(start: Any, end: Any, steps: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: str | None = None, axis: int = 0) -> Any:
    """``steps`` evenly spaced values from ``start`` to ``end``, as ``np.linspace``."""
    start, end = as_tensor_variable(start), as_tensor_variable(end)
    if int(steps) < 0:
        raise ValueError(f"linspace: steps must be >= 0, got {steps}")
    div = (steps - 1) if endpoint else steps
    delta = end - start
    k = arange(steps, dtype=get_floatX() if dtype is None else "float64")
    k = k.reshape((-1,) + (1,) * max(start.type.ndim, end.type.ndim, 0))
    step = delta / div if div > 0 else delta * np.nan
    values = start + k * step if div > 0 else start + k * delta
    if endpoint and steps > 1:
        values = ptm.switch(ptm.eq(k, steps - 1), end + 0 * k, values)
    if axis != 0:
        values = _moveaxis0(values, axis)
    if dtype is not None:
        values = ptm.cast(values, dtype)
    return (values, step) if retstep else values


def _moveaxis0(x: Variable, axis: int) -> Variable:
    order = list(range(1, x.type.ndim))
    axis = axis % x.type.ndim
    order.insert(axis, 0)
    return x.dimshuffle(*order)


def logspace(start: Any, end: Any, steps: int = 50, base: float = 10.0,
             endpoint: bool = True, dtype: str | None = None, axis: int = 0) -> Variable:
    """``base ** linspace(start, end)``, as ``np.logspace``."""
    values = ptm.power(base, linspace(start, end, steps, endpoint=endpoint, axis=axis))
    return ptm.cast(values, dtype) if dtype is not None else values


def geomspace(start: Any, end: Any, steps: int = 50, base: float = 10.0,
              endpoint: bool = True, dtype: str | None = None, axis: int = 0) -> Variable:
    """Values evenly spaced on a log scale from ``start`` to ``end``, as ``np.geomspace``."""
    start, end = as_tensor_variable(start), as_tensor_variable(end)
    lo = ptm.log(start) / np.log(base)
    hi = ptm.log(end) / np.log(base)
    values = logspace(lo, hi, steps, base=base, endpoint=endpoint)
    # The ends exactly, as NumPy gives them (exp(log(x)) may be off by an ulp).
    k = arange(steps).reshape((-1,) + (1,) * max(start.type.ndim, end.type.ndim, 0))
    values = ptm.switch(ptm.eq(k, 0), start + 0 * values, values)
    if endpoint and steps > 1:
        values = ptm.switch(ptm.eq(k, steps - 1), end + 0 * values, values)
    if axis != 0:
        values = _moveaxis0(values, axis)
    return ptm.cast(values, dtype) if dtype is not None else values




def concat_with_broadcast(tensor_list: Sequence[Any], axis: int = 0) -> Variable:
    """Join tensors along ``axis`` after broadcasting their other axes to a common length
    (an axis of length 1 stretches, as NumPy broadcasting does)."""
    if not tensor_list:
        raise ValueError("concat_with_broadcast: cannot concatenate an empty list of tensors")
    tensors = [as_tensor_variable(t) for t in tensor_list]
    ndims = [t.type.ndim for t in tensors]
    if len(set(ndims)) != 1:
        raise TypeError("concat_with_broadcast: the tensors must have the same number of "
                        f"dimensions, got {ndims}")
    axis = _int_axis(tensors[0], axis, "concat_with_broadcast")
    shape: list[Any] = [1] * ndims[0]
    for t in tensors:
        for i, static in enumerate(t.type.shape):
            if i != axis and static != 1:
                shape[i] = t.shape[i]
    parts = []
    for t in tensors:
        shape[axis] = t.shape[axis]
        parts.append(broadcast_to(t, list(shape)))
    return join(axis, *parts)
