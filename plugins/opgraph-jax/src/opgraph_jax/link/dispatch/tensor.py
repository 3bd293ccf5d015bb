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

from opgraph.assumptions.specify import SpecifyAssumptions
from opgraph.graph.basic import Apply
from opgraph.raise_op import CheckAndRaise
from opgraph.tensor.basic import ScalarFromTensor, TensorFromScalar
from opgraph.tensor.basic_more import AllocEmpty
from opgraph.tensor.creation import Alloc, ARange, Eye
from opgraph.tensor.join import Join, Split
from opgraph.tensor.reshape import JoinDims, SplitDims
from opgraph.tensor.shape import MakeVector, Reshape, Shape, Shape_i, SpecifyShape
from opgraph_jax.link.dispatch.basic import (
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
def _funcify_alloc(op: Alloc, **kwargs: Any) -> Callable:
    def alloc(value: Any, *shape: Any) -> Any:
        dims = tuple(static_int(s, "shape", op) for s in shape)
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
        bounds = [np.asarray(v).item() if is_concrete(v) else None for v in (start, stop, step)]
        if any(b is None for b in bounds):
            static_ints(start if bounds[0] is None else stop if bounds[1] is None else step,
                        "start, stop and step", op)
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
def _funcify_split(op: Split, **kwargs: Any) -> Callable:
    def split(x: Any, axis: Any, splits: Any) -> Any:
        ax = static_int(axis, "axis", op)
        sizes = static_ints(splits, "split sizes", op)
        if sum(sizes) != jnp.shape(x)[ax] or any(s < 0 for s in sizes):
            raise ValueError(f"Split: sizes {sizes} do not add up to the length "
                             f"{jnp.shape(x)[ax]} of axis {ax}")
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
