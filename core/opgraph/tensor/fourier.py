"""``numpy.fft.fft`` as an Op (``pytensor.tensor.fourier``: ``Fourier``, ``fft``).

The length ``n`` and the ``axis`` may be symbolic; the result is complex, so it
has no gradient here (complex gradients are not supported, as in PyTensor).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.autodiff.undefined import grad_undefined
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.op import Op
from opgraph.tensor import math as ptm
from opgraph.tensor.shape import as_index_scalar, static_int
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["Fourier", "fft"]


class Fourier(Op):
    """The discrete Fourier transform of ``a`` along ``axis``, padded/cropped to ``n``."""

    __props__ = ()

    def make_node(self, a: Any, n: Any, axis: Any) -> Apply:
        a = as_tensor_variable(a)
        if a.type.ndim < 1:
            raise TypeError(f"fft: expected a tensor of at least one dimension, got {a.type}")
        n = as_index_scalar(n, "fft: n")
        axis = as_index_scalar(axis, "fft: axis")
        out_dtype = "complex64" if a.type.dtype in ("float32", "complex64") else "complex128"
        ax = static_int(axis)
        shape = [None] * a.type.ndim
        if ax is not None:
            if not -a.type.ndim <= ax < a.type.ndim:
                raise np.exceptions.AxisError(
                    f"fft: axis {ax} is out of bounds for array of dimension {a.type.ndim}"
                )
            shape = list(a.type.shape)
            shape[ax % a.type.ndim] = static_int(n)
        return Apply(self, [a, n, axis], [TensorType(out_dtype, tuple(shape))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, n, axis = inputs
        out = np.fft.fft(a, int(n), int(axis))
        output_storage[0][0] = out.astype(node.outputs[0].type.dtype, copy=False)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        _, n, axis = node.inputs
        ndim = len(input_shapes[0])
        axis = ptm.switch(ptm.lt(axis, 0), axis + ndim, axis)
        return [tuple(ptm.switch(ptm.eq(axis, i), n, s) for i, s in enumerate(input_shapes[0]))]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [False]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [grad_undefined(self, i, v, "complex gradients are not supported")
                for i, v in enumerate(inputs)]


_fourier = Fourier()


def fft(a: Any, n: Any = None, axis: Any = -1) -> Variable:
    """``numpy.fft.fft(a, n, axis)``; ``axis=None`` means the last axis."""
    a = as_tensor_variable(a)
    if axis is None:
        axis = -1
    if n is None:
        ax = axis.data if isinstance(axis, Constant) else axis
        if isinstance(ax, int | np.integer):
            n = a.shape[int(ax)]
        else:
            axis_var = as_index_scalar(axis, "fft: axis")
            n = a.shape[ptm.switch(ptm.lt(axis_var, 0), axis_var + a.type.ndim, axis_var)]
    return _fourier(a, n, axis)
