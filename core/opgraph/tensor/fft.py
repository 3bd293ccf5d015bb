"""Real FFTs over every axis but the first (``pytensor.tensor.fft``: ``rfft``, ``irfft``).

Complex spectra are real tensors with a trailing axis of 2 (real, imaginary), so
they flow through graphs and gradients of real tensors.  The Ops compute the
unnormalised transforms; the functions apply the normalisation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor import math as ptm
from opgraph.tensor.join import concatenate
from opgraph.tensor.shape import make_vector, shape, static_vector_entries
from opgraph.tensor.subtensor import set_subtensor
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["IRFFTOp", "RFFTOp", "irfft", "irfft_op", "rfft", "rfft_op"]

_NORMS = (None, "ortho", "no_norm")


def _float_dtype(dtype: str) -> str:
    return dtype if dtype in ("float32", "float64") else "float64"


def _shape_arg(s: Any, what: str) -> Variable:
    s = as_tensor_variable(s)
    if s.type.ndim != 1 or not s.type.dtype.startswith(("int", "uint")):
        raise TypeError(f"{what}: the transform shape must be an integer vector, got {s.type}")
    return s


class RFFTOp(Op):
    """The unnormalised real FFT of ``x`` over axes ``1..``, of transform shape ``s``.

    Output: ``(batch, *s[:-1], s[-1] // 2 + 1, 2)``, real and imaginary parts last.
    """

    __props__ = ()

    def make_node(self, x: Any, s: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim < 2:
            raise TypeError(f"rfft: expected a batch of signals (ndim >= 2), got {x.type}")
        s = _shape_arg(s, "rfft")
        entries = static_vector_entries(s) if s.type.shape[0] is not None else None
        if entries is None or len(entries) != x.type.ndim - 1:
            entries = list(x.type.shape[1:])
        last = None if entries[-1] is None else entries[-1] // 2 + 1
        out = (x.type.shape[0], *entries[:-1], last, 2)
        return Apply(self, [x, s], [TensorType(_float_dtype(x.type.dtype), out)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, s = inputs
        spec = np.fft.rfftn(x, s=tuple(int(v) for v in s), axes=tuple(range(1, x.ndim)))
        out = np.stack([spec.real, spec.imag], axis=-1)
        output_storage[0][0] = out.astype(node.outputs[0].type.dtype, copy=False)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        x_shape = input_shapes[0]
        s = node.inputs[1]
        n = len(x_shape) - 1
        dims = [s[i] for i in range(n)]
        return [(x_shape[0], *dims[:-1], dims[-1] // 2 + 1, 2)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        # d(sum g * rfft(x))/dx is the unnormalised inverse of g with the interior
        # frequencies halved: irfft counts each of them twice (Hermitian symmetry).
        _, s = inputs
        (g,) = cotangents
        n = s[-1]
        interior = (slice(None),) * (g.type.ndim - 2) + (slice(1, n // 2 + n % 2),)
        g = set_subtensor(g[interior], g[interior] * 0.5)
        return [irfft_op(g, s), disconnected_type()]


class IRFFTOp(Op):
    """The unnormalised inverse of :class:`RFFTOp`: a real signal of transform shape ``s``."""

    __props__ = ()

    def make_node(self, x: Any, s: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim < 3 or x.type.shape[-1] not in (None, 2):
            raise TypeError(
                "irfft: expected a batch of spectra with a trailing (real, imaginary) axis of "
                f"length 2, got {x.type}"
            )
        s = _shape_arg(s, "irfft")
        entries = static_vector_entries(s) if s.type.shape[0] is not None else None
        if entries is None or len(entries) != x.type.ndim - 2:
            entries = [None] * (x.type.ndim - 2)
        out = (x.type.shape[0], *entries)
        return Apply(self, [x, s], [TensorType(_float_dtype(x.type.dtype), out)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, s = inputs
        shp = tuple(int(v) for v in s)
        spec = x[..., 0] + 1j * x[..., 1]
        out = np.fft.irfftn(spec, s=shp, axes=tuple(range(1, spec.ndim))) * np.prod(shp)
        output_storage[0][0] = out.astype(node.outputs[0].type.dtype, copy=False)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        s = node.inputs[1]
        return [(input_shapes[0][0], *(s[i] for i in range(len(input_shapes[0]) - 2)))]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        # Each interior frequency feeds the signal twice (with its conjugate): doubled.
        x, s = inputs
        (g,) = cotangents
        gf = rfft_op(g, s)
        n = s[-1]
        interior = (slice(None),) * (gf.type.ndim - 2) + (slice(1, n // 2 + n % 2),)
        gf = set_subtensor(gf[interior], gf[interior] * 2)
        return [ptm.cast(gf, x.type.dtype), disconnected_type()]


rfft_op = RFFTOp()
irfft_op = IRFFTOp()


def _check_norm(norm: Any) -> None:
    if norm not in _NORMS:
        raise ValueError(f"fft: norm must be one of {_NORMS}, got {norm!r}")


def rfft(inp: Any, norm: str | None = None) -> Variable:
    """The real FFT of each signal ``inp[i]`` over its axes (``numpy.fft.rfftn``).

    ``norm``: None or "no_norm" (unnormalised, NumPy's default), "ortho" (divided by
    the square root of the signal size).
    """
    _check_norm(norm)
    x = as_tensor_variable(inp)
    s = shape(x)[1:]
    out = rfft_op(x, s)
    if norm == "ortho":
        out = out / ptm.cast(ptm.sqrt(ptm.prod(s)), out.type.dtype)
    return out


def irfft(inp: Any, norm: str | None = None, is_odd: bool = False) -> Variable:
    """The inverse of :func:`rfft` (``numpy.fft.irfftn``); ``is_odd``: odd last length.

    ``norm``: None (divided by the signal size, NumPy's default), "ortho" (by its
    square root) or "no_norm".
    """
    _check_norm(norm)
    if not isinstance(is_odd, bool | np.bool_):
        raise ValueError(f"irfft: is_odd must be a bool, got {is_odd!r}")
    x = as_tensor_variable(inp)
    spec_shape = shape(x)[1:-1]
    last = (spec_shape[-1] - 1) * 2 + int(is_odd)
    if x.type.ndim > 3:
        s = concatenate([spec_shape[:-1], make_vector(last, dtype="int64")])
    else:
        s = make_vector(last, dtype="int64")
    out = irfft_op(x, s)
    size = ptm.cast(ptm.prod(s), out.type.dtype)
    if norm is None:
        out = out / size
    elif norm == "ortho":
        out = out / ptm.sqrt(size)
    return out
