"""Shape operations on named dims: transpose, stack/unstack, concat, expand_dims,
squeeze, broadcast and the ``*_like`` constructors (xarray's semantics)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.graph.basic import Variable
from opgraph.tensor.variable import as_tensor_variable
from opgraph_xtensor.xtensor.basic import XOp, as_xtensor, expand_to, union_dims
from opgraph_xtensor.xtensor.math import XElemwise, astype
from opgraph_xtensor.xtensor.type import XFUNCS, XTensorVariable, dims_of, is_dataarray

__all__ = ["Broadcast", "Concat", "ExpandDims", "Squeeze", "Stack", "Transpose", "UnStack",
           "XBroadcast", "broadcast", "concat", "expand_dims", "full_like", "ones_like", "squeeze",
           "stack",
           "transpose", "unstack", "zeros_like"]


class Transpose(XOp):
    """The same values with the dims in a new order."""

    __props__ = ("dims",)

    def __init__(self, dims: Sequence[str]) -> None:
        self.dims = tuple(dims)

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        return [self.dims]

    def rebatch(self, node: Any, inputs: Sequence[Variable]) -> Transpose:
        new = [d for d in inputs[0].type.dims if d not in node.inputs[0].type.dims]
        return Transpose((*new, *self.dims))

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        src = inputs[0].type.dims
        return [tins[0].dimshuffle([src.index(d) for d in self.dims])]


def _expand_ellipsis(dims: Sequence[Any], all_dims: Sequence[str], missing_dims: str
                     ) -> tuple[str, ...]:
    if sum(d is Ellipsis for d in dims) > 1:
        raise ValueError("Ellipsis (...) can only appear once in the dimensions")
    missing = {d for d in dims if d is not Ellipsis and d not in all_dims}
    if missing:
        msg = f"Dimensions {missing} do not exist. Expected one or more of: {tuple(all_dims)}"
        if missing_dims == "raise":
            raise ValueError(msg)
        if missing_dims == "warn":
            warnings.warn(msg, UserWarning, stacklevel=3)
        dims = [d for d in dims if d not in missing]
    if Ellipsis in dims:
        named = [d for d in dims if d is not Ellipsis]
        rest = [d for d in all_dims if d not in named]
        k = dims.index(Ellipsis)
        return (*dims[:k], *rest, *dims[k + 1:])
    return tuple(dims)


def transpose(x: Any, *dims: Any, missing_dims: str = "raise") -> XTensorVariable:
    """``x`` with dims reordered; no dims reverses them, ``...`` stands for the others."""
    x = as_xtensor(x)
    if missing_dims not in ("raise", "warn", "ignore"):
        raise ValueError(f"missing_dims must be 'raise', 'warn' or 'ignore', got {missing_dims!r}")
    if len(dims) == 1 and isinstance(dims[0], list | tuple):
        dims = tuple(dims[0])
    order = x.type.dims[::-1] if not dims else _expand_ellipsis(list(dims), x.type.dims,
                                                                 missing_dims)
    if len(order) != x.type.ndim or set(order) != set(x.type.dims):
        raise ValueError(f"transpose: {order} is not a permutation of the dims {x.type.dims}")
    if order == x.type.dims:
        return x
    return Transpose(order)(x)


class Stack(XOp):
    """``stacked_dims`` merged into one new last dim ``new_dim`` (C order)."""

    __props__ = ("new_dim", "stacked_dims")

    def __init__(self, new_dim: str, stacked_dims: Sequence[str]) -> None:
        self.new_dim, self.stacked_dims = new_dim, tuple(stacked_dims)

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        rest = tuple(d for d in inputs[0].type.dims if d not in self.stacked_dims)
        return [(*rest, self.new_dim)]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        dims = inputs[0].type.dims
        rest = [d for d in dims if d not in self.stacked_dims]
        t = tins[0].dimshuffle([dims.index(d) for d in (*rest, *self.stacked_dims)])
        keep = [t.shape[i] for i in range(len(rest))]
        n = len(rest)
        size = pt.prod([t.shape[n + i] for i in range(len(self.stacked_dims))])
        static = [s for d, s in zip(dims, inputs[0].type.shape) if d in self.stacked_dims]
        if all(s is not None for s in static):
            size = int(np.prod(static))
        return [t.reshape((*keep, size))]


def stack(x: Any, dim: Mapping[str, Sequence[str]] | None = None, **dims: Sequence[str]
          ) -> XTensorVariable:
    """Merge dims into new ones: ``stack(x, ab=("a", "b"))`` (xarray's ``stack``)."""
    x = as_xtensor(x)
    spec = {**(dim or {}), **dims}
    for new, olds in spec.items():
        olds = dims_of(olds)
        for d in olds:
            if d not in x.type.dims:
                raise ValueError(f"stack: dim {d!r} of {new!r} not found in {x.type.dims}")
        if new in x.type.dims and new not in olds:
            raise ValueError(f"stack: the new dim {new!r} already exists in {x.type.dims}")
        x = Stack(new, olds)(x)
    return x


class UnStack(XOp):
    """Dim ``old_dim`` split into ``new_dims`` (C order) of the lengths given as inputs."""

    __props__ = ("old_dim", "new_dims")

    def __init__(self, old_dim: str, new_dims: Sequence[str]) -> None:
        self.old_dim, self.new_dims = old_dim, tuple(new_dims)

    def convert_input(self, x: Any, index: int) -> Variable:
        if index == 0:
            return as_xtensor(x)
        x = x.values if isinstance(x, XTensorVariable) else x
        return as_tensor_variable(x, ndim=0)

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        rest = tuple(d for d in inputs[0].type.dims if d != self.old_dim)
        return [(*rest, *self.new_dims)]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        dims = inputs[0].type.dims
        rest = [d for d in dims if d != self.old_dim]
        t = tins[0].dimshuffle([dims.index(d) for d in (*rest, self.old_dim)])
        keep = [t.shape[i] for i in range(len(rest))]
        return [t.reshape((*keep, *tins[1:]))]


def unstack(x: Any, dim: Mapping[str, Mapping[str, Any]] | None = None,
            **dims: Mapping[str, Any]) -> XTensorVariable:
    """Split dims: ``unstack(x, ab={"a": 2, "b": 3})``; the new dims go last."""
    x = as_xtensor(x)
    for old, new in {**(dim or {}), **dims}.items():
        if old not in x.type.dims:
            raise ValueError(f"unstack: dim {old!r} not found in {x.type.dims}")
        x = UnStack(old, tuple(new))(x, *new.values())
    return x


class Concat(XOp):
    """Inputs joined along ``dim`` (a new leading dim when no input has it)."""

    __props__ = ("dim",)

    def __init__(self, dim: str) -> None:
        self.dim = dim

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        dims = union_dims(*(i.type.dims for i in inputs))
        return [dims if self.dim in dims else (self.dim, *dims)]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        [out] = self.output_dims(inputs)
        axis = out.index(self.dim)
        sizes: dict[str, Any] = {}
        for i, t in zip(inputs, tins):
            for k, d in enumerate(i.type.dims):
                if d != self.dim and (d not in sizes or i.type.shape[k] is not None):
                    sizes[d] = i.type.shape[k] if i.type.shape[k] is not None else t.shape[k]
        parts = []
        for i, t in zip(inputs, tins):
            e = expand_to(t, i.type.dims, out)
            shape = [(sizes[d] if d != self.dim else e.shape[k]) for k, d in enumerate(out)]
            parts.append(pt.broadcast_to(e, shape) if e.type.ndim else e)
        return [pt.join(axis, *parts)]


def concat(xtensors: Sequence[Any], dim: str) -> XTensorVariable:
    """Join along ``dim`` (xarray's ``concat``); other dims broadcast by name."""
    xs = [as_xtensor(x) for x in xtensors]
    if not xs:
        raise ValueError("concat needs at least one input")
    return Concat(dim)(*xs)


class ExpandDims(XOp):
    """A new leading dim ``dim`` of the length given as input (values repeated)."""

    __props__ = ("dim",)

    def __init__(self, dim: str) -> None:
        self.dim = dim

    def convert_input(self, x: Any, index: int) -> Variable:
        if index == 0:
            return as_xtensor(x)
        x = x.values if isinstance(x, XTensorVariable) else x
        return as_tensor_variable(x, ndim=0)

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        return [(self.dim, *inputs[0].type.dims)]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        t, size = tins
        shape = [size, *(t.shape[i] if s is None else s
                        for i, s in enumerate(inputs[0].type.shape))]
        return [pt.broadcast_to(pt.shape_padleft(t), shape)]


def _expand_spec(dim: Any, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    if dim is None:
        spec: dict[str, Any] = {}
    elif isinstance(dim, str):
        spec = {dim: 1}
    elif isinstance(dim, Mapping):
        spec = dict(dim)
    elif isinstance(dim, list | tuple) and all(isinstance(d, str) for d in dim):
        spec = dict.fromkeys(dim, 1)
    else:
        raise TypeError(f"Invalid type for `dim`: {type(dim).__name__}; expected a str, a "
                        "sequence of str or a mapping of str to sizes")
    spec.update(kwargs)
    for d, size in spec.items():
        if isinstance(size, np.ndarray | list | tuple) or is_dataarray(size):
            warnings.warn(f"expand_dims: a coordinate array was given for {d!r}; only its "
                          "length is used", UserWarning, stacklevel=3)
            spec[d] = len(size)
    return spec


def expand_dims(x: Any, dim: Any = None, axis: int | Sequence[int] | None = None,
                **dim_kwargs: Any) -> XTensorVariable:
    """New dims of length 1 (or given lengths), leading or at ``axis`` (xarray's)."""
    x = as_xtensor(x)
    spec = _expand_spec(dim, dim_kwargs)
    for d in spec:
        if d in x.type.dims:
            raise ValueError(f"expand_dims: dimension {d!r} already exists in {x.type.dims}")
    for d, size in reversed(list(spec.items())):
        x = ExpandDims(d)(x, size)
    if axis is not None:
        axes = [axis] if isinstance(axis, int) else list(axis)
        if len(axes) != len(spec):
            raise ValueError(f"expand_dims: {len(axes)} axes for {len(spec)} new dims")
        ndim = x.type.ndim
        axes = [a + ndim if a < 0 else a for a in axes]
        new = list(spec)
        rest = iter(d for d in x.type.dims if d not in spec)
        placed = dict(zip(axes, new))
        order = [placed[k] if k in placed else next(rest) for k in range(ndim)]
        x = transpose(x, *order)
    return x


class Squeeze(XOp):
    """``dims`` (of length 1, checked when it runs if not known) removed."""

    __props__ = ("dims",)

    def __init__(self, dims: Sequence[str]) -> None:
        self.dims = tuple(dims)

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        return [tuple(d for d in inputs[0].type.dims if d not in self.dims)]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        dims = inputs[0].type.dims
        t = tins[0]
        shape = [1 if d in self.dims else None for d in dims]
        t = pt.specify_shape(t, shape) if any(
            s is None and d in self.dims for d, s in zip(dims, inputs[0].type.shape)) else t
        return [t.dimshuffle([k for k, d in enumerate(dims) if d not in self.dims])]


def squeeze(x: Any, dim: Any = None, drop: bool = False, axis: Any = None) -> XTensorVariable:
    """Drop dims of length 1: named, by ``axis``, or every statically-1 dim."""
    x = as_xtensor(x)
    if dim is not None and axis is not None:
        raise ValueError("squeeze: pass dim or axis, not both")
    if axis is not None:
        axes = [axis] if isinstance(axis, int) else list(axis)
        dims = tuple(x.type.dims[a] for a in axes)
    elif dim is None:
        dims = tuple(d for d, s in zip(x.type.dims, x.type.shape) if s == 1)
    else:
        dims = tuple(dict.fromkeys(dims_of(dim)))
    for d in dims:
        if d not in x.type.dims:
            raise ValueError(f"squeeze: Dimension {d!r} not found in {x.type.dims}")
        s = x.type.shape[x.type.dims.index(d)]
        if s is not None and s != 1:
            raise ValueError(f"squeeze: dimension {d!r} has static size {s}, not 1")
    return Squeeze(dims)(x) if dims else x


class XBroadcast(XOp):
    """Every input broadcast against the others over the dims not in ``exclude``."""

    __props__ = ("exclude",)

    def __init__(self, exclude: Sequence[str] = ()) -> None:
        self.exclude = tuple(exclude)

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        common = tuple(d for d in union_dims(*(i.type.dims for i in inputs))
                       if d not in self.exclude)
        return [(*common, *(d for d in self.exclude if d in i.type.dims)) for i in inputs]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        sizes: dict[str, Any] = {}
        for i, t in zip(inputs, tins):
            for k, d in enumerate(i.type.dims):
                if d in self.exclude:
                    continue
                if d not in sizes or (i.type.shape[k] is not None and i.type.shape[k] != 1):
                    sizes[d] = i.type.shape[k] if i.type.shape[k] is not None else t.shape[k]
        outs = []
        for i, t, dims in zip(inputs, tins, self.output_dims(inputs)):
            e = expand_to(t, i.type.dims, dims)
            shape = [sizes[d] if d in sizes else e.shape[k] for k, d in enumerate(dims)]
            outs.append(pt.broadcast_to(e, shape) if dims else e)
        return outs


def _exclude(exclude: Any) -> tuple[str, ...]:
    if exclude is None:
        return ()
    if isinstance(exclude, str):
        return (exclude,)
    if isinstance(exclude, Sequence | set | frozenset):
        return tuple(exclude)
    raise TypeError(f"exclude must be None, str, or Sequence, got {type(exclude).__name__}")


#: PyTensor's name of the Op
Broadcast = XBroadcast


def broadcast(*args: Any, exclude: Any = None) -> tuple[XTensorVariable, ...]:
    """Every input with every other's dims (xarray's ``broadcast``)."""
    excl = _exclude(exclude)
    if not args:
        return ()
    xs = [as_xtensor(a) for a in args]
    sizes: dict[str, int] = {}
    for x in xs:
        for d, s in zip(x.type.dims, x.type.shape):
            if d in excl or s is None:
                continue
            if d in sizes and sizes[d] != s:
                raise ValueError(f"Dimension {d!r} has conflicting shapes {sizes[d]} and {s}")
            sizes[d] = s
    out = XBroadcast(excl)(*xs)
    return tuple(out) if isinstance(out, list | tuple) else (out,)


def full_like(x: Any, fill_value: Any, dtype: Any = None) -> XTensorVariable:
    """An array like ``x`` filled with the scalar ``fill_value`` (dtype: ``x``'s)."""
    x = as_xtensor(x)
    fill = as_xtensor(fill_value) if not (is_dataarray(fill_value) and fill_value.ndim) else None
    if fill is None or fill.type.ndim != 0:
        raise ValueError(f"fill_value must be a scalar, got {fill_value!r:.60}")
    fill = astype(fill, dtype if dtype is not None else x.type.dtype)
    return XElemwise(ps.second)(x, fill)


def ones_like(x: Any, dtype: Any = None) -> XTensorVariable:
    """Ones shaped like ``x``."""
    return full_like(x, 1, dtype=dtype)


def zeros_like(x: Any, dtype: Any = None) -> XTensorVariable:
    """Zeros shaped like ``x``."""
    return full_like(x, 0, dtype=dtype)


XFUNCS.register(transpose=transpose, zeros_like=zeros_like, broadcast=broadcast)
