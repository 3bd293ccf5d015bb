"""``BatchedDot``: one matrix product per entry of a shared leading (batch) axis.

``BatchedDot(x, y)[i] = x[i] @ y[i]`` for 3-d ``x`` and ``y`` with equal
batch lengths (no broadcasting of the batch axis: that would hide a
materialised copy).  The rewrite ``specialize_matmul_to_batched_dot``
forms it from a 3-d (or raveled higher) ``matmul``.  ``batched_dot`` and
``batched_tensordot`` here are PyTensor's deprecated ``tensor.blas``
spellings of :mod:`opgraph.tensor.contractions`, with its FutureWarning.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.scalar.type import upcast
from opgraph.tensor import contractions
from opgraph.tensor.elemwise import _is_disconnected
from opgraph.tensor.shape import specify_broadcastable
from opgraph.tensor.type import TensorType
from opgraph.tensor.ufuncs import cast
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "BatchedDot",
    "_batched_dot",
    "batched_dot",
    "batched_dot_op",
    "batched_tensordot",
]


def _common_dim(a: int | None, b: int | None, what: str, x: Variable, y: Variable) -> int | None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"BatchedDot: static {what} lengths differ: x has shape {x.type.shape}, "
                         f"y has shape {y.type.shape}")
    return a if a is not None else b


class BatchedDot(Op):
    """``x[i] @ y[i]`` for every ``i`` of the batch axis 0 (3-d operands)."""

    __props__ = ()
    gufunc_signature = "(b,m,k),(b,k,n)->(b,m,n)"

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        if x.type.ndim != 3 or y.type.ndim != 3:
            raise TypeError(f"BatchedDot: inputs must be 3-d, got {x.type.ndim}-d {x.type} and "
                            f"{y.type.ndim}-d {y.type} (batched_dot accepts other ranks)")
        batch = _common_dim(x.type.shape[0], y.type.shape[0], "batch", x, y)
        _common_dim(x.type.shape[2], y.type.shape[1], "contracted", x, y)
        dtype = upcast(x.type.dtype, y.type.dtype)
        x = x if x.type.dtype == dtype else cast(x, dtype)
        y = y if y.type.dtype == dtype else cast(y, dtype)
        out = TensorType(dtype, shape=(batch, x.type.shape[1], y.type.shape[2]))()
        return Apply(self, [x, y], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y = inputs
        if x.shape[0] != y.shape[0]:
            raise ValueError(f"BatchedDot: batch lengths differ: x has shape {x.shape}, "
                             f"y has shape {y.shape}")
        if x.shape[2] != y.shape[1]:
            raise ValueError(f"BatchedDot: x of shape {x.shape} and y of shape {y.shape} "
                             "do not match on the contracted axis")
        output_storage[0][0] = np.asarray(np.matmul(x, y), dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        xs, ys = shapes
        return [(xs[0], xs[1], ys[2])]

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        x, y = inputs
        (gz,) = cotangents
        if _is_disconnected(gz):
            return [disconnected_type(), disconnected_type()]
        gx = self(gz, y.dimshuffle(0, 2, 1))
        gy = self(x.dimshuffle(0, 2, 1), gz)
        out = []
        for g, v in ((gx, x), (gy, y)):
            if g.type.broadcastable != v.type.broadcastable:
                g = specify_broadcastable(g, *(i for i, b in enumerate(v.type.broadcastable) if b))
            out.append(g)
        return out

    def pushforward(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                    tangents: Sequence[Variable]) -> list[Variable]:
        x, y = inputs
        tx, ty = tangents
        terms = []
        if not _is_disconnected(tx):
            terms.append(self(tx, y))
        if not _is_disconnected(ty):
            terms.append(self(x, ty))
        if not terms:
            return [disconnected_type()]
        return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]


batched_dot_op = _batched_dot = BatchedDot()
"""The BatchedDot op instance (``_batched_dot``: PyTensor's private name, kept as an alias)."""


def batched_dot(a: Any, b: Any) -> Variable:
    """Deprecated (as in PyTensor): ``dot(a[i], b[i])`` over the leading axis.

    Use ``dot`` with ``vectorize`` or ``opgraph.tensor.contractions.batched_dot``.
    """
    warnings.warn("batched_dot is deprecated: use dot with tensor.vectorize or "
                  "graph.replace.vectorize_graph", FutureWarning, stacklevel=2)
    return contractions.batched_dot(a, b)


def batched_tensordot(x: Any, y: Any, axes: Any = 2) -> Variable:
    """Deprecated (as in PyTensor): ``tensordot(x[i], y[i], axes)`` over the leading axis."""
    warnings.warn("batched_tensordot is deprecated: use tensordot with tensor.vectorize or "
                  "graph.replace.vectorize_graph", FutureWarning, stacklevel=2)
    return contractions.batched_tensordot(x, y, axes)
