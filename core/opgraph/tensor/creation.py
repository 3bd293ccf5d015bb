"""Ops that create arrays: Alloc (broadcast a value to a shape), ARange, Eye.

The user-facing helpers (zeros, ones, full, *_like, arange, eye) build these
with static shapes filled in whenever the requested sizes are constants.
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
from opgraph.tensor.constant_value import (
    get_underlying_scalar_constant_value,
    passthrough,
    register_constant_rule,
)
from opgraph.tensor.exceptions import NotScalarConstantError, ShapeError
from opgraph.tensor.shape import (
    as_index_scalar,
    dims_of,
    shape_i,
    shape_tuple,
    static_int,
)
from opgraph.tensor.type import TensorType, discrete_dtypes, normalize_dtype
from opgraph.tensor.variable import (
    _as_tensor_variable,
    as_tensor_variable,
    constant,
)

__all__ = [
    "ARange",
    "Alloc",
    "Eye",
    "alloc",
    "arange",
    "eye",
    "full",
    "full_like",
    "identity_like",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def _missing(g: Any) -> bool:
    return g is None or isinstance(getattr(g, "type", None), DisconnectedType)


# --------------------------------------------------------------------------- Alloc


class Alloc(Op):
    """``alloc(value, *shape)``: a new array of ``shape`` filled by broadcasting ``value``.

    Like PyTensor, a value dimension broadcasts only if its static length is 1,
    so the gradient (a sum over broadcast dimensions) is known at graph construction.
    """

    #: Static output shapes come from input values: remade by non-strict clones.
    _output_type_depends_on_input_value = True

    __props__ = ()

    def make_node(self, value: Any, *shape: Any) -> Apply:
        v = as_tensor_variable(value)
        dims = [as_index_scalar(s, f"alloc shape[{i}]") for i, s in enumerate(shape)]
        if len(dims) < v.type.ndim:
            raise ValueError(
                f"alloc: the value {_name(v)} has {v.type.ndim} dimension(s), more than the "
                f"{len(dims)} of the requested shape"
            )
        out = [static_int(d) for d in dims]
        for i, s in enumerate(out):
            if s is not None and s < 0:
                raise ValueError(f"alloc: shape[{i}] must be >= 0, got {s}")
        offset = len(dims) - v.type.ndim
        for j, vs in enumerate(v.type.shape):
            a = offset + j
            if vs is None or vs == 1:
                continue
            if out[a] is not None and out[a] != vs:
                raise ValueError(
                    f"Alloc static input type and target shape are incompatible: dimension "
                    f"{j} of the value {_name(v)} has static length {vs}, which cannot "
                    f"broadcast to shape[{a}] = {out[a]}"
                )
            out[a] = vs
        return Apply(self, [v, *dims], [TensorType(v.type.dtype, out)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        v, *shape = inputs
        target = tuple(int(s) for s in shape)
        if any(s < 0 for s in target):
            raise ShapeError(f"alloc: negative dimension in the requested shape {target}")
        v = np.asarray(v)
        offset = len(target) - v.ndim
        static = node.inputs[0].type.shape
        for j, vs in enumerate(v.shape):
            want = target[offset + j]
            if vs == want:
                continue
            if vs == 1 and static[j] == 1:
                continue
            extra = (
                " (Runtime broadcasting not allowed: a length-1 dimension broadcasts only if "
                "its static shape is 1)"
                if vs == 1
                else ""
            )
            raise ShapeError(
                f"alloc: the value {_name(node.inputs[0])} of shape {v.shape} cannot be "
                f"broadcast to shape {target}{extra}"
            )
        out = np.empty(target, dtype=node.outputs[0].type.dtype)
        out[...] = v
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [tuple(node.inputs[1:])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        v = inputs[0]
        g = cotangents[0]
        m = ptm
        out_ndim = outputs[0].type.ndim
        offset = out_ndim - v.type.ndim
        out_static = outputs[0].type.shape
        if offset:
            g = _reduction.sum(g, axis=tuple(range(offset)))
        bcast = tuple(
            j for j, vs in enumerate(v.type.shape) if vs == 1 and out_static[offset + j] != 1
        )
        if bcast:
            g = _reduction.sum(g, axis=bcast, keepdims=True)
        if g.type.dtype != v.type.dtype and v.type.dtype not in discrete_dtypes:
            g = m.cast(g, v.type.dtype)
        return [g] + [disconnected_type() for _ in inputs[1:]]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        if _missing(tangents[0]):
            return [None]
        return [self(tangents[0], *inputs[1:])]

    def do_constant_folding(self, fgraph: Any, node: Apply) -> bool:
        # Folding would store a possibly huge array in the graph for a cheap fill.
        return False


_alloc = Alloc()


def alloc(value: Any, *shape: Any) -> Variable:
    """``value`` broadcast to ``shape``: ``alloc(0.0, n, 3)`` or ``alloc(v, x.shape)``."""
    if len(shape) == 1 and not isinstance(shape[0], int | np.integer):
        dims = dims_of(shape[0], "alloc shape")
    else:
        dims = [as_index_scalar(s, f"alloc shape[{i}]") for i, s in enumerate(shape)]
    return _alloc(value, *dims)


def _filled(value: Any, dtype: str) -> Variable:
    return constant(np.asarray(value, dtype=dtype))


def zeros(shape: Any, dtype: Any = None) -> Variable:
    """An array of zeros (dtype defaults to floatX)."""
    return _alloc(_filled(0, normalize_dtype(dtype)), *dims_of(shape, "zeros shape"))


def ones(shape: Any, dtype: Any = None) -> Variable:
    """An array of ones (dtype defaults to floatX)."""
    return _alloc(_filled(1, normalize_dtype(dtype)), *dims_of(shape, "ones shape"))


def _fill_value(who: str, fill_value: Any, ndim: int) -> Variable:
    """``fill_value`` as a tensor that broadcasts to ``ndim`` dimensions (as NumPy's)."""
    value = as_tensor_variable(fill_value)
    if value.type.ndim > ndim:
        raise ValueError(f"{who}: fill_value must broadcast to the {ndim}-d shape; got "
                         f"{_name(value)} ({value.type}) with more dimensions")
    return value


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Variable:
    """An array of ``shape`` filled with ``fill_value``, broadcast as NumPy's ``full``
    (dtype defaults to its dtype)."""
    dims = dims_of(shape, "full shape")
    value = _fill_value("full", fill_value, len(dims))
    if dtype is not None and normalize_dtype(dtype) != value.type.dtype:
        value = ptm.cast(value, normalize_dtype(dtype))
    return _alloc(value, *dims)


def _like(model: Any, value: Any, dtype: Any) -> Variable:
    model = as_tensor_variable(model)
    dt = model.type.dtype if dtype is None else normalize_dtype(dtype)
    if isinstance(value, Variable):
        if value.type.dtype != dt:
            value = ptm.cast(value, dt)
    else:
        value = _filled(value, dt)
    return _alloc(value, *shape_tuple(model))


def zeros_like(model: Any, dtype: Any = None, opt: bool = False) -> Variable:
    """Zeros with the shape (and, by default, the dtype) of ``model``."""
    return _like(model, 0, dtype)


def ones_like(model: Any, dtype: Any = None, opt: bool = False) -> Variable:
    """Ones with the shape (and, by default, the dtype) of ``model``."""
    return _like(model, 1, dtype)


def full_like(a: Any, fill_value: Any, dtype: Any = None) -> Variable:
    """``fill_value`` broadcast to the shape (and, by default, the dtype) of ``a``."""
    value = _fill_value("full_like", fill_value, as_tensor_variable(a).type.ndim)
    return _like(a, value, dtype)


# --------------------------------------------------------------------------- ARange


def _arange_length(start: float, stop: float, step: float) -> int:
    return max(int(np.ceil((stop - start) / step)), 0)


@attrs.frozen
class ARange(Op):
    """``arange(start, stop, step)`` of the given dtype."""

    #: Static output shapes come from input values: remade by non-strict clones.
    _output_type_depends_on_input_value = True

    dtype: str

    def make_node(self, start: Any, stop: Any, step: Any) -> Apply:
        args = []
        for what, value in (("start", start), ("stop", stop), ("step", step)):
            var = as_tensor_variable(value)
            if var.type.ndim != 0 or var.type.dtype.startswith("complex"):
                raise TypeError(
                    f"arange: {what} must be a real scalar, got {_name(var)} of type {var.type}"
                )
            args.append(var)
        known = [_static_number(a) for a in args]
        if known[2] == 0:
            raise ValueError("arange: step must not be 0")
        length = None
        if all(k is not None for k in known):
            length = _arange_length(*known)
        return Apply(self, args, [TensorType(self.dtype, (length,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        start, stop, step = (np.asarray(v).item() for v in inputs)
        if step == 0:
            raise ValueError("arange: step must not be 0")
        output_storage[0][0] = np.arange(start, stop, step, dtype=self.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        static = node.outputs[0].type.shape[0]
        if static is not None:
            return [(constant(np.int64(static)),)]
        m = ptm
        start, stop, step = node.inputs
        count = m.ceil(m.true_div(m.sub(stop, start), step))
        return [(m.maximum(m.cast(count, "int64"), constant(np.int64(0))),)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        cont = self.dtype not in discrete_dtypes
        return [[cont], [cont], [cont]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        if self.dtype in discrete_dtypes:
            return [disconnected_type() for _ in inputs]
        m = ptm
        start, stop, step = inputs
        g = cotangents[0]
        index = arange(0, shape_i(outputs[0], 0), 1, dtype=self.dtype)
        gstart = _reduction.sum(g)
        gstep = _reduction.sum(m.mul(g, index))
        return [
            _cast_like(gstart, start),
            zeros_like(stop),
            _cast_like(gstep, step),
        ]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        if self.dtype in discrete_dtypes:
            return [None]
        m = ptm
        t_start, _, t_step = tangents
        index = arange(0, shape_i(outputs[0], 0), 1, dtype=self.dtype)
        terms = []
        if not _missing(t_start):
            terms.append(m.add(zeros_like(outputs[0]), t_start))
        if not _missing(t_step):
            terms.append(m.mul(index, t_step))
        if not terms:
            return [None]
        return [terms[0] if len(terms) == 1 else m.add(*terms)]


def _cast_like(g: Variable, x: Variable) -> Variable:
    if x.type.dtype in discrete_dtypes or g.type.dtype == x.type.dtype:
        return g
    return ptm.cast(g, x.type.dtype)


def _static_number(var: Variable) -> Any:
    try:
        return get_underlying_scalar_constant_value(var).item()
    except NotScalarConstantError:
        return None


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Variable:
    """NumPy's ``arange``; the dtype defaults to the common type of the arguments."""
    if stop is None:
        start, stop = 0, start
    args = [as_tensor_variable(a) for a in (start, stop, step)]
    if dtype is None:
        dt = np.result_type(*[a.type.dtype for a in args])
        if dt.kind == "b":
            dt = np.dtype("int64")
        dtype = dt.name
    return ARange(normalize_dtype(dtype))(*args)


# --------------------------------------------------------------------------- Eye


@attrs.frozen
class Eye(Op):
    """``eye(n, m, k)``: ones on the k-th diagonal of an n x m array."""

    #: Static output shapes come from input values: remade by non-strict clones.
    _output_type_depends_on_input_value = True

    #: None (PyTensor's ``Eye()``) means floatX.
    dtype: str = attrs.field(default=None, converter=normalize_dtype)

    def make_node(self, n: Any, m: Any, k: Any) -> Apply:
        n = as_index_scalar(n, "eye: n")
        m = as_index_scalar(m, "eye: m")
        k = as_index_scalar(k, "eye: k")
        rows, cols = static_int(n), static_int(m)
        for what, value in (("n", rows), ("m", cols)):
            if value is not None and value < 0:
                raise ValueError(f"eye: {what} must be >= 0, got {value}")
        return Apply(self, [n, m, k], [TensorType(self.dtype, (rows, cols))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        n, m, k = (int(v) for v in inputs)
        output_storage[0][0] = np.eye(n, m, k, dtype=self.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [(node.inputs[0], node.inputs[1])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False], [False], [False]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [disconnected_type() for _ in inputs]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return [None]


def eye(n: Any, m: Any = None, k: Any = 0, dtype: Any = None) -> Variable:
    """An ``n x m`` array with ones on diagonal ``k`` (dtype defaults to floatX)."""
    return Eye(normalize_dtype(dtype))(n, n if m is None else m, k)


def identity_like(x: Any, dtype: Any = None) -> Variable:
    """The identity with the shape of the matrix ``x`` (dtype defaults to x's)."""
    x = as_tensor_variable(x)
    if x.type.ndim != 2:
        raise ValueError(f"identity_like: {_name(x)} must be a matrix, got {x.type}")
    dt = x.type.dtype if dtype is None else dtype
    return eye(shape_i(x, 0), shape_i(x, 1), 0, dtype=dt)


@_as_tensor_variable.register(range)
def _range_to_tensor(x: range, name: str | None, ndim: int | None, **kwargs: Any) -> Variable:
    """``as_tensor_variable(range(...))`` is an ARange graph, as in PyTensor."""
    if ndim not in (None, 1):
        raise ValueError(f"as_tensor_variable: ndim for range must be 1, got {ndim}")
    out = arange(x.start, x.stop, x.step, dtype=kwargs.get("dtype") or "int64")
    if name is not None:
        out.name = name
    return out


register_constant_rule(Alloc, passthrough)  # every element is the filled value
