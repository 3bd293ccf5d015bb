"""``JAXShapeTuple``: scalar shape entries gathered into one shape (a tuple under JAX).

Kept apart from the JAX translations (``link.dispatch.shape``) so the rewrites
that build it load without JAX.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.tensor.basic import as_tensor_variable
from opgraph.tensor.type import TensorType

__all__ = ["JAXShapeTuple"]


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
