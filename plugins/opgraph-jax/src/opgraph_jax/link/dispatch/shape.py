"""PyTensor's ``link.jax.dispatch.shape`` path (shape Ops are translated in ``dispatch.tensor``).

``JAXShapeTuple`` is PyTensor's JAX-only Op that gathers scalar shape entries
into the tuple ``jnp`` functions take as a static shape; opgraph's JAX mode
keeps shapes static without it (docs/jax.md), and the Op is here for graphs
and rewrites that build it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.tensor.basic import as_tensor_variable
from opgraph.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape
from opgraph.tensor.type import TensorType
from opgraph_jax.link.dispatch.basic import (
    JAXUnsupportedOpError,
    is_concrete,
    jax_funcify,
    registered_translation,
)

__all__ = ["SHAPE_NOT_COMPATIBLE", "JAXShapeTuple", "assert_shape_argument_jax_compatible",
           "jax_funcify_JAXShapeTuple", "jax_funcify_Reshape", "jax_funcify_Shape",
           "jax_funcify_Shape_i", "jax_funcify_SpecifyShape"]

SHAPE_NOT_COMPATIBLE = (
    "JAX needs a shape as values known when it compiles: constants, or computed from the "
    "shapes of inputs. This shape depends on an input's value."
)


def assert_shape_argument_jax_compatible(shape: Any) -> None:
    """Raise :class:`JAXUnsupportedOpError` (a ``NotImplementedError``) when ``shape``
    is only known when the function runs (a JAX tracer)."""
    values = shape if isinstance(shape, tuple | list) else (shape,)
    if not all(is_concrete(v) for v in values):
        raise JAXUnsupportedOpError(SHAPE_NOT_COMPATIBLE)


class JAXShapeTuple(Op):
    """Scalar integer entries gathered into one shape vector (a tuple under JAX)."""

    __props__ = ()

    def make_node(self, *entries: Any) -> Apply:
        inputs = [as_tensor_variable(e) for e in entries]
        for k, var in enumerate(inputs):
            if var.type.ndim != 0 or not var.type.dtype.startswith(("int", "uint")):
                raise TypeError(f"JAXShapeTuple: entry {k} must be an integer scalar, "
                                f"got {var.type}")
        return Apply(self, inputs, [TensorType("int64", shape=(len(inputs),))()])

    def perform(self, node: Apply, inputs: list[Any], output_storage: list[Any]) -> None:
        output_storage[0][0] = np.asarray([int(v) for v in inputs], dtype="int64")


@jax_funcify.register(JAXShapeTuple)
def jax_funcify_JAXShapeTuple(op: JAXShapeTuple, **kwargs: Any) -> Callable:
    """The entries as a Python tuple (static while JAX traces when they are)."""

    def shape_tuple(*entries: Any) -> tuple:
        return tuple(entries)

    return shape_tuple


jax_funcify_Reshape = registered_translation(Reshape)
jax_funcify_Shape = registered_translation(Shape)
jax_funcify_Shape_i = registered_translation(Shape_i)
jax_funcify_SpecifyShape = registered_translation(SpecifyShape)
