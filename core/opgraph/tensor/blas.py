"""PyTensor's BLAS-shaped Ops: ``Dot22``, ``Gemv``, ``Gemm``, ``Ger``.

Each is an ordinary Op that a backend can map onto one BLAS call: a 2-D
product, ``beta * y + alpha * A @ x``, ``b * Z + a * X @ Y`` and
``A + alpha * outer(x, y)``. ``perform`` uses NumPy (which calls BLAS for
floats). Rewrites that form them from ``dot`` are not part of opgraph's
standard database yet (see docs/migrating.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.scalar.type import upcast
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["Dot22", "Gemm", "Gemv", "Ger", "dot22", "gemm_no_inplace", "gemv_no_inplace",
           "ger"]


def _checked(op: str, names: Sequence[str], values: Sequence[Any],
             ndims: Sequence[int]) -> list:
    """Inputs as tensors of the expected ranks, or a TypeError naming the bad one."""
    out = []
    for name, value, ndim in zip(names, values, ndims, strict=True):
        var = as_tensor_variable(value)
        if var.type.ndim != ndim:
            raise TypeError(
                f"{op}: input {name!r} must be a {ndim}-d tensor, got {var.type.ndim}-d {var.type}"
            )
        out.append(var)
    return out


class Dot22(Op):
    """Product of two matrices (``x @ y`` with both operands 2-d)."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = _checked("Dot22", ("x", "y"), (x, y), (2, 2))
        shape = (x.type.shape[0], y.type.shape[1])
        out = TensorType(upcast(x.type.dtype, y.type.dtype), shape=shape)()
        return Apply(self, [x, y], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y = inputs
        output_storage[0][0] = np.asarray(np.dot(x, y), dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [(shapes[0][0], shapes[1][1])]


class Gemv(Op):
    """``beta * y + alpha * A @ x`` (inputs ``y, alpha, A, x, beta``)."""

    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def make_node(self, y: Any, alpha: Any, A: Any, x: Any, beta: Any) -> Apply:
        y, alpha, A, x, beta = _checked(
            "Gemv", ("y", "alpha", "A", "x", "beta"), (y, alpha, A, x, beta), (1, 0, 2, 1, 0)
        )
        dtype = upcast(y.type.dtype, A.type.dtype, x.type.dtype)
        return Apply(self, [y, alpha, A, x, beta], [TensorType(dtype, shape=y.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        y, alpha, A, x, beta = inputs
        res = alpha * np.dot(A, x) + (beta * y if beta != 0 else 0)
        output_storage[0][0] = np.asarray(res, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


class Gemm(Op):
    """``b * Z + a * X @ Y`` (inputs ``Z, a, X, Y, b``)."""

    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def make_node(self, z: Any, a: Any, x: Any, y: Any, b: Any) -> Apply:
        z, a, x, y, b = _checked("Gemm", ("z", "a", "x", "y", "b"), (z, a, x, y, b),
                                 (2, 0, 2, 2, 0))
        dtype = upcast(z.type.dtype, x.type.dtype, y.type.dtype)
        return Apply(self, [z, a, x, y, b], [TensorType(dtype, shape=z.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        z, a, x, y, b = inputs
        res = a * np.dot(x, y) + (b * z if b != 0 else 0)
        output_storage[0][0] = np.asarray(res, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


class Ger(Op):
    """``A + alpha * outer(x, y)`` (inputs ``A, alpha, x, y``)."""

    __props__ = ("destructive",)

    def __init__(self, destructive: bool = False) -> None:
        self.destructive = bool(destructive)
        if self.destructive:
            self.destroy_map = {0: [0]}

    def make_node(self, A: Any, alpha: Any, x: Any, y: Any) -> Apply:
        A, alpha, x, y = _checked("Ger", ("A", "alpha", "x", "y"), (A, alpha, x, y),
                                  (2, 0, 1, 1))
        dtype = upcast(A.type.dtype, x.type.dtype, y.type.dtype)
        return Apply(self, [A, alpha, x, y], [TensorType(dtype, shape=A.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        A, alpha, x, y = inputs
        res = A + alpha * np.outer(x, y)
        output_storage[0][0] = np.asarray(res, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


dot22 = Dot22()
gemv_no_inplace = Gemv(inplace=False)
gemm_no_inplace = Gemm(inplace=False)
ger = Ger(destructive=False)
