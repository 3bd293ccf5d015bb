"""``convolve1d`` / ``convolve2d``: SciPy's ``convolve``/``convolve2d`` results.

One core Op per rank computes the *full* convolution (zero outside the
inputs); the other modes are slices of it, and the boundary conditions of
``convolve2d`` pad the data first (with ``pad``). The gradient of a full
convolution is a slice of a full convolution with the reversed other operand,
so everything differentiates and batches (the Ops are Blockwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.scalar.type import upcast
from opgraph.tensor import math as ptm
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.creation import zeros
from opgraph.tensor.join import stack
from opgraph.tensor.pad import pad
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable
from opgraph.utils import lazy_scipy_module

__all__ = ["Convolve1d", "Convolve2d", "convolve1d", "convolve2d"]

_MODES = ("full", "valid", "same")

#: ``scipy.signal``, loaded on first use (what ``perform`` convolves with)
scipy_signal = lazy_scipy_module("signal")


def _full_length(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b - 1


class Convolve1d(Op):
    """Full 1-D convolution of two vectors (``np.convolve(a, b, "full")``)."""

    __props__ = ()
    gufunc_signature = "(n),(k)->(o)"

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        if a.type.ndim != 1 or b.type.ndim != 1:
            raise TypeError(f"Convolve1d: inputs must be vectors, got {a.type} and {b.type}")
        dtype = upcast(a.type.dtype, b.type.dtype)
        n = _full_length(a.type.shape[0], b.type.shape[0])
        return Apply(self, [a, b], [TensorType(dtype, shape=(n,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, b = inputs
        out = np.convolve(a, b) if a.size and b.size else np.zeros(0)
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        (n,), (k,) = shapes
        return [(n + k - 1,)]

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list:
        a, b = inputs
        (g,) = cotangents
        n, k = a.shape[0], b.shape[0]
        ga = _conv1d_full(g, b[::-1])[k - 1: k - 1 + n]
        gb = _conv1d_full(g, a[::-1])[n - 1: n - 1 + k]
        return [ga.astype(a.type.dtype), gb.astype(b.type.dtype)]


class Convolve2d(Op):
    """Full 2-D convolution of two matrices (zero outside the data)."""

    __props__ = ()
    gufunc_signature = "(m,n),(k,l)->(p,q)"

    def make_node(self, x: Any, k: Any) -> Apply:
        x, k = as_tensor_variable(x), as_tensor_variable(k)
        if x.type.ndim != 2 or k.type.ndim != 2:
            raise TypeError(f"Convolve2d: inputs must be matrices, got {x.type} and {k.type}")
        dtype = upcast(x.type.dtype, k.type.dtype)
        shape = tuple(_full_length(a, b) for a, b in zip(x.type.shape, k.type.shape,
                                                          strict=True))
        return Apply(self, [x, k], [TensorType(dtype, shape=shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, k = inputs
        (h, w), (kh, kw) = x.shape, k.shape
        dtype = node.outputs[0].type.dtype
        out = np.zeros((max(h + kh - 1, 0), max(w + kw - 1, 0)), dtype=dtype)
        for i in range(kh):
            for j in range(kw):
                out[i: i + h, j: j + w] += k[i, j] * x
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        (h, w), (kh, kw) = shapes
        return [(h + kh - 1, w + kw - 1)]

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list:
        x, k = inputs
        (g,) = cotangents
        (h, w), (kh, kw) = (x.shape[0], x.shape[1]), (k.shape[0], k.shape[1])
        gx = _conv2d_full(g, k[::-1, ::-1])[kh - 1: kh - 1 + h, kw - 1: kw - 1 + w]
        gk = _conv2d_full(g, x[::-1, ::-1])[h - 1: h - 1 + kh, w - 1: w - 1 + kw]
        return [gx.astype(x.type.dtype), gk.astype(k.type.dtype)]


_conv1d_full = Blockwise(Convolve1d())
_conv2d_full = Blockwise(Convolve2d())


def _check_mode(mode: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"convolve: mode must be one of {_MODES}, got {mode!r}")


def convolve1d(in1: Any, in2: Any, mode: str = "full") -> Variable:
    """Convolution of the last axes of ``in1`` and ``in2`` (batched over leading axes),
    as ``scipy.signal.convolve``: "full", "valid" or "same" (the size of ``in1``)."""
    _check_mode(mode)
    in1, in2 = as_tensor_variable(in1), as_tensor_variable(in2)
    full = _conv1d_full(in1, in2)
    n, k = in1.shape[-1], in2.shape[-1]
    if mode == "full":
        return full
    if mode == "same":
        start = (k - 1) // 2
        return full[..., start: start + n]
    return full[..., ptm.minimum(n, k) - 1: ptm.maximum(n, k)]


def convolve2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
               fillvalue: float = 0, method: str = "direct") -> Variable:
    """``scipy.signal.convolve2d`` over the last two axes (batched over leading axes).

    ``boundary`` is "fill" (with ``fillvalue``), "wrap" or "symm"; ``method`` is
    accepted for PyTensor compatibility (the result is the same).
    """
    _check_mode(mode)
    if boundary not in ("fill", "wrap", "symm"):
        raise ValueError(f"convolve2d: boundary must be 'fill', 'wrap' or 'symm', got {boundary!r}")
    if method not in ("direct", "fft", "auto"):
        raise ValueError(f"convolve2d: method must be 'direct', 'fft' or 'auto', got {method!r}")
    in1, in2 = as_tensor_variable(in1), as_tensor_variable(in2)
    h, w = in1.shape[-2], in1.shape[-1]
    kh, kw = in2.shape[-2], in2.shape[-1]
    if mode == "valid":
        full = _conv2d_full(in1, in2)
        return full[..., ptm.minimum(h, kh) - 1: ptm.maximum(h, kh),
                    ptm.minimum(w, kw) - 1: ptm.maximum(w, kw)]
    if boundary == "fill" and fillvalue == 0:
        full = _conv2d_full(in1, in2)
    else:
        widths = stack([zeros((), dtype="int64")] * 2 * (in1.type.ndim - 2)
                       + [kh - 1, kh - 1, kw - 1, kw - 1]).reshape((in1.type.ndim, 2))
        np_mode = {"fill": "constant", "wrap": "wrap", "symm": "symmetric"}[boundary]
        kwargs = {"constant_values": fillvalue} if boundary == "fill" else {}
        padded = pad(in1, widths, mode=np_mode, **kwargs)
        full = _conv2d_full(padded, in2)[..., kh - 1: kh - 1 + h + kh - 1,
                                         kw - 1: kw - 1 + w + kw - 1]
    if mode == "full":
        return full
    sh, sw = (kh - 1) // 2, (kw - 1) // 2
    return full[..., sh: sh + h, sw: sw + w]
