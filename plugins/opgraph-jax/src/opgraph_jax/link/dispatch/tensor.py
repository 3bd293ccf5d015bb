"""Creation, shape, join and conversion Ops.

Ops whose output shape is a runtime value (``Alloc``, ``Reshape``, ``ARange``,
``Eye``) need it concrete when JAX traces: shapes of inputs always are (see
:mod:`.basic`), values of inputs are not, and such a graph raises a clear
:class:`~opgraph_jax.link.dispatch.basic.JAXUnsupportedOpError`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from opgraph.assumptions import SpecifyAssumptions
from opgraph.graph.basic import Apply, Constant
from opgraph.raise_op import CheckAndRaise
from opgraph.tensor.basic import AllocEmpty, ScalarFromTensor, TensorFromScalar
from opgraph.tensor.creation import Alloc, ARange, Eye
from opgraph.tensor.indexing import SliceLength, split_inputs
from opgraph.tensor.join import Join, Split
from opgraph.tensor.pad import Pad
from opgraph.tensor.reshape import JoinDims, SplitDims
from opgraph.tensor.shape import MakeVector, Reshape, Shape, Shape_i, SpecifyShape
from opgraph.tensor.signal.conv import Convolve1d
from opgraph_jax.link.dispatch.basic import (
    JAXUnsupportedOpError,
    is_concrete,
    jax_funcify,
    static_int,
    static_ints,
)

__all__: list[str] = []


@jax_funcify.register(Shape)
def _funcify_shape(op: Shape, **kwargs: Any) -> Callable:
    def shape(x: Any) -> Any:
        return np.asarray(jnp.shape(x), dtype="int64")  # concrete: shapes are static in JAX

    return shape


@jax_funcify.register(Shape_i)
def _funcify_shape_i(op: Shape_i, **kwargs: Any) -> Callable:
    i = op.i

    def shape_i(x: Any) -> Any:
        return np.asarray(jnp.shape(x)[i], dtype="int64")

    return shape_i


@jax_funcify.register(SpecifyShape)
def _funcify_specify_shape(op: SpecifyShape, node: Apply | None = None, **kwargs: Any) -> Callable:
    given = op.given

    def specify_shape(x: Any, *dims: Any) -> Any:
        wanted = iter(dims)
        for axis, has in enumerate(given):
            if not has:
                continue
            dim = next(wanted)
            if is_concrete(dim) and int(np.asarray(dim)) != jnp.shape(x)[axis]:
                raise AssertionError(
                    f"SpecifyShape: dimension {axis} of the input has length "
                    f"{jnp.shape(x)[axis]}, the graph says {int(np.asarray(dim))}"
                )
        return x

    return specify_shape


@jax_funcify.register(Reshape)
def _funcify_reshape(op: Reshape, **kwargs: Any) -> Callable:
    def reshape(x: Any, shape: Any) -> Any:
        return jnp.reshape(x, static_ints(shape, "target shape", op))

    return reshape


@jax_funcify.register(JoinDims)
def _funcify_join_dims(op: JoinDims, **kwargs: Any) -> Callable:
    start, n = op.start_axis, op.n_axes

    def join_dims(x: Any) -> Any:
        s = jnp.shape(x)
        return jnp.reshape(x, (*s[:start], int(np.prod(s[start:start + n])), *s[start + n:]))

    return join_dims


@jax_funcify.register(SplitDims)
def _funcify_split_dims(op: SplitDims, **kwargs: Any) -> Callable:
    axis = op.axis

    def split_dims(x: Any, shape: Any) -> Any:
        s = jnp.shape(x)
        return jnp.reshape(x, (*s[:axis], *static_ints(shape, "split shape", op), *s[axis + 1:]))

    return split_dims


@jax_funcify.register(MakeVector)
def _funcify_make_vector(op: MakeVector, node: Apply | None = None, **kwargs: Any) -> Callable:
    dtype = node.outputs[0].type.dtype if node is not None else None

    def make_vector(*xs: Any) -> Any:
        if all(is_concrete(x) for x in xs):
            return np.asarray([np.asarray(x) for x in xs], dtype=dtype).reshape(len(xs))
        return jnp.stack([jnp.asarray(x, dtype=dtype) for x in xs]) if xs else \
            jnp.zeros((0,), dtype=dtype)

    return make_vector


@jax_funcify.register(TensorFromScalar)
@jax_funcify.register(ScalarFromTensor)
def _funcify_scalar_tensor(op: Any, node: Apply | None = None, **kwargs: Any) -> Callable:
    def convert(x: Any) -> Any:
        return x if is_concrete(x) and isinstance(x, np.ndarray | np.generic) else jnp.asarray(x)

    return convert


@jax_funcify.register(Alloc)
def _funcify_alloc(op: Alloc, node: Apply | None = None, **kwargs: Any) -> Callable:
    static = node.inputs[0].type.shape if node is not None else None

    def alloc(value: Any, *shape: Any) -> Any:
        dims = tuple(static_int(s, "shape", op) for s in shape)
        if static is not None:
            vshape = jnp.shape(value)
            for k, (vs, st) in enumerate(zip(vshape, static)):
                target = dims[len(dims) - len(vshape) + k]
                if vs == 1 and target != 1 and st != 1:
                    raise ValueError(
                        f"Runtime broadcasting not allowed. Alloc: dimension {k} of the value "
                        f"has length 1 at runtime but its type {node.inputs[0].type} does not "
                        "declare it broadcastable"
                    )
        return jnp.broadcast_to(value, dims)

    return alloc


@jax_funcify.register(AllocEmpty)
def _funcify_alloc_empty(op: AllocEmpty, **kwargs: Any) -> Callable:
    dtype = op.dtype

    def alloc_empty(*shape: Any) -> Any:
        return jnp.empty(tuple(static_int(s, "shape", op) for s in shape), dtype=dtype)

    return alloc_empty


@jax_funcify.register(ARange)
def _funcify_arange(op: ARange, **kwargs: Any) -> Callable:
    dtype = op.dtype

    def arange(start: Any, stop: Any, step: Any) -> Any:
        if not all(is_concrete(v) for v in (start, stop, step)):
            raise JAXUnsupportedOpError(
                f"{op}: JAX requires the arguments of `jax.numpy.arange` to be constants "
                "when it compiles; they depend on an input's value here"
            )
        bounds = [np.asarray(v).item() for v in (start, stop, step)]
        return jnp.arange(*bounds, dtype=dtype)

    return arange


@jax_funcify.register(Eye)
def _funcify_eye(op: Eye, **kwargs: Any) -> Callable:
    dtype = op.dtype

    def eye(n: Any, m: Any, k: Any) -> Any:
        return jnp.eye(static_int(n, "number of rows", op), static_int(m, "number of columns", op),
                       static_int(k, "diagonal offset", op), dtype=dtype)

    return eye


@jax_funcify.register(Join)
def _funcify_join(op: Join, **kwargs: Any) -> Callable:
    def join(axis: Any, *tensors: Any) -> Any:
        return jnp.concatenate(tensors, axis=static_int(axis, "axis", op))

    return join


@jax_funcify.register(Split)
def _funcify_split(op: Split, node: Apply | None = None, **kwargs: Any) -> Callable:
    if node is not None:
        for var, what in ((node.inputs[1], "axis"), (node.inputs[2], "split positions")):
            if not isinstance(var, Constant):
                warnings.warn(f"Split node does not have constant {what}. JAX can compile it "
                              "only when they are known from shapes", UserWarning, stacklevel=2)

    def split(x: Any, axis: Any, splits: Any) -> Any:
        if not (is_concrete(axis) and is_concrete(splits)):
            return jnp.split(x, jnp.cumsum(splits)[:-1], axis=axis)  # JAX says why it cannot
        ax = int(np.asarray(axis))
        sizes = [int(s) for s in np.asarray(splits).reshape(-1)]
        if len(sizes) != op.len_splits:
            raise ValueError(f"Length of splits is not equal to n_splits: {len(sizes)} sizes "
                             f"for n_splits={op.len_splits}")
        if sum(sizes) != jnp.shape(x)[ax] or any(s < 0 for s in sizes):
            raise ValueError(f"Split sizes do not sum up to input length along axis: "
                             f"{jnp.shape(x)[ax]} (sizes {sizes})")
        cuts = np.cumsum(sizes)[:-1].tolist()
        return jnp.split(x, cuts, axis=ax)

    return split


@jax_funcify.register(CheckAndRaise)
def _funcify_check_and_raise(op: CheckAndRaise, node: Apply | None = None,
                             **kwargs: Any) -> Callable:
    warnings.warn(
        f"JAX cannot raise from inside a compiled function: the assertion of {op} "
        f"({op.msg!r}) is checked only where its condition is known when JAX traces",
        UserWarning, stacklevel=2,
    )

    def check_and_raise(x: Any, *conds: Any) -> Any:
        for cond in conds:
            if is_concrete(cond) and not np.all(np.asarray(cond)):
                raise op.exc_type(op.msg)
        return x

    return check_and_raise


@jax_funcify.register(SpecifyAssumptions)
def _funcify_assumptions(op: SpecifyAssumptions, **kwargs: Any) -> Callable:
    def specify_assumptions(x: Any, *rest: Any) -> Any:
        return x

    return specify_assumptions


@jax_funcify.register(Pad)
def _funcify_pad(op: Pad, **kwargs: Any) -> Callable:
    mode = op.pad_mode

    def pad(x: Any, pad_width: Any, values: Any) -> Any:
        widths = np.broadcast_to(np.asarray(static_ints(pad_width, "pad widths", op)).reshape(
            np.shape(pad_width)), (jnp.ndim(x), 2))
        extra: dict[str, Any] = {}
        if mode in ("constant", "linear_ramp") and is_concrete(values):
            values = _hashable(np.asarray(values).tolist())  # jnp.pad hashes what it is given
        if mode == "constant":
            extra["constant_values"] = values
        elif mode == "linear_ramp":
            extra["end_values"] = values
        elif mode in ("maximum", "minimum", "mean", "median"):
            extra["stat_length"] = op.stat_length
        elif mode in ("reflect", "symmetric"):
            extra["reflect_type"] = op.reflect_type
        return jnp.pad(x, [tuple(int(v) for v in w) for w in widths], mode=mode, **extra)

    return pad


@jax_funcify.register(SliceLength)
def _funcify_slice_length(op: SliceLength, **kwargs: Any) -> Callable:
    def slice_length(n: Any, *rest: Any) -> Any:
        (bounds,) = split_inputs((op.spec,), rest)
        parts = [None if b is None else static_int(b, "slice bounds", op) for b in bounds]
        length = len(range(*slice(*parts).indices(static_int(n, "length", op))))
        return np.asarray(length, dtype="int64")

    return slice_length


@jax_funcify.register(Convolve1d)
def _funcify_convolve1d(op: Convolve1d, **kwargs: Any) -> Callable:
    def convolve1d(a: Any, b: Any) -> Any:
        if jnp.shape(a)[0] == 0 or jnp.shape(b)[0] == 0:
            return jnp.zeros((0,), dtype=jnp.result_type(a, b))
        return jnp.convolve(a, b, mode="full")

    return convolve1d


def _hashable(value: Any) -> Any:
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value
