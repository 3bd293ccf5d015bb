"""``pad``: NumPy's ``np.pad`` as an Op (all of NumPy's modes but "empty").

The widths and extra values are inputs (so they may be symbolic); the mode and
its options are Op parameters. For the modes that copy input elements
(constant, edge, wrap, reflect, symmetric) the gradient scatters the output
cotangent back onto the elements that were copied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor.subtensor_more import flip  # noqa: F401  (PyTensor imports it here)
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["Pad", "PadMode", "pad"]

PadMode = Literal[
    "constant", "edge", "linear_ramp", "maximum", "minimum", "mean", "median", "wrap",
    "symmetric", "reflect",
]
_MODES = ("constant", "edge", "linear_ramp", "maximum", "minimum", "mean", "median", "wrap",
          "symmetric", "reflect")
_GATHER = ("constant", "edge", "wrap", "symmetric", "reflect")


def _widths(value: Any, ndim: int, what: str) -> np.ndarray | Variable:
    """``np.pad``-style widths as an (ndim, 2) int64 array (or a symbolic one)."""
    if isinstance(value, Variable):
        value = as_tensor_variable(value)
        if value.type.ndim > 2 or not value.type.dtype.startswith(("int", "uint")):
            raise TypeError(f"pad: {what} must hold integers with at most 2 axes, got {value.type}")
        return value
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"pad: {what} must hold integers, got {arr.dtype} {value!r}")
    try:
        return np.broadcast_to(arr.astype("int64"), (ndim, 2)).copy()
    except ValueError:
        raise ValueError(
            f"pad: {what} {value!r} cannot be broadcast to one (before, after) pair per axis "
            f"of a {ndim}-d array"
        ) from None


class Pad(Op):
    """``np.pad(x, pad_width, mode, ...)``; inputs: x, pad_width (ndim x 2) and the values."""

    __props__ = ("pad_mode", "reflect_type", "stat_length")

    def __init__(self, pad_mode: str, reflect_type: str = "even",
                 stat_length: tuple | None = None) -> None:
        if pad_mode not in _MODES:
            raise ValueError(f"Invalid mode: {pad_mode} (expected one of {', '.join(_MODES)})")
        if reflect_type not in ("even", "odd"):
            raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
        self.pad_mode = pad_mode
        self.reflect_type = reflect_type
        self.stat_length = stat_length

    def make_node(self, x: Any, pad_width: Any, values: Any) -> Apply:
        x = as_tensor_variable(x)
        pad_width = as_tensor_variable(pad_width)
        values = as_tensor_variable(values)
        static = [None] * x.type.ndim
        data = getattr(pad_width, "data", None)
        if data is not None:
            widths = np.broadcast_to(np.asarray(data), (x.type.ndim, 2))
            static = [None if n is None else int(n + a + b)
                      for n, (a, b) in zip(x.type.shape, widths, strict=True)]
        return Apply(self, [x, pad_width, values], [TensorType(x.type.dtype, shape=static)()])

    def _kwargs(self, values: np.ndarray) -> dict:
        mode = self.pad_mode
        if mode == "constant":
            return {"constant_values": values}
        if mode == "linear_ramp":
            return {"end_values": values}
        if mode in ("maximum", "minimum", "mean", "median"):
            return {"stat_length": self.stat_length}
        if mode in ("reflect", "symmetric"):
            return {"reflect_type": self.reflect_type}
        return {}

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, pad_width, values = inputs
        widths = np.broadcast_to(pad_width, (x.ndim, 2))
        out = np.pad(x, widths, mode=self.pad_mode, **self._kwargs(values))
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        x, pad_width, _ = node.inputs
        widths = pad_width
        if widths.type.ndim < 2:
            widths = widths.dimshuffle(*["x"] * (2 - widths.type.ndim), *range(widths.type.ndim))
        n = x.type.ndim
        out = []
        for i, s in enumerate(shapes[0]):
            row = widths[0] if widths.type.shape[0] == 1 else widths[i if n else 0]
            out.append(s + row.sum())
        return [tuple(out)]

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list:
        x, pad_width, values = inputs
        (gz,) = cotangents
        if self.pad_mode not in _GATHER:
            raise NotImplementedError(
                f"pad: the gradient of mode {self.pad_mode!r} is not implemented (only "
                f"{', '.join(_GATHER)})"
            )
        if self.pad_mode == "constant" and values.type.ndim != 0:
            raise NotImplementedError("pad: the gradient needs a scalar constant_values")
        gx, gv = PadGrad(self)(gz, x, pad_width, values)
        return [gx, disconnected_type(), gv if self.pad_mode == "constant" else disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [self.pad_mode in ("constant", "linear_ramp")]]


class PadGrad(Op):
    """Cotangent of Pad for the copying modes: scatter-add back to the copied elements."""

    __props__ = ("pad",)

    def __init__(self, pad: Pad) -> None:
        self.pad = pad

    def make_node(self, gz: Any, x: Any, pad_width: Any, values: Any) -> Apply:
        gz, x = as_tensor_variable(gz), as_tensor_variable(x)
        pad_width, values = as_tensor_variable(pad_width), as_tensor_variable(values)
        gv = TensorType(values.type.dtype, shape=())()
        return Apply(self, [gz, x, pad_width, values], [x.type(), gv])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        gz, x, pad_width, values = inputs
        widths = np.broadcast_to(pad_width, (x.ndim, 2))
        # -1 marks the cells filled with constant_values rather than copied from x
        index = np.arange(x.size).reshape(x.shape)
        mode = self.pad.pad_mode
        if mode == "constant":
            where = np.pad(index, widths, mode="constant", constant_values=-1)
        else:
            where = np.pad(index, widths, **{"mode": mode, **self.pad._kwargs(values)})
        gx = np.zeros(x.size, dtype=node.outputs[0].type.dtype)
        copied = where >= 0
        np.add.at(gx, where[copied], gz[copied])
        output_storage[0][0] = gx.reshape(x.shape)
        # the constant cells all hold the (scalar) constant_values
        output_storage[1][0] = np.asarray(gz[~copied].sum(), dtype=node.outputs[1].type.dtype)


def pad(x: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Variable:
    """Pad an array like ``np.pad`` (``constant_values``, ``end_values``, ``stat_length``,
    ``reflect_type`` as NumPy has them)."""
    if mode not in _MODES:
        raise ValueError(f"Invalid mode: {mode} (expected one of {', '.join(_MODES)})")
    x = as_tensor_variable(x)
    widths = _widths(pad_width, x.type.ndim, "pad_width")
    allowed = {"constant": {"constant_values"}, "linear_ramp": {"end_values"},
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}}
    allowed.update({key: {"stat_length"} for key in ("maximum", "minimum", "mean", "median")})
    unknown = set(kwargs) - allowed.get(mode, set())
    if unknown:
        raise TypeError(f"pad: mode {mode!r} takes no argument(s) {sorted(unknown)}")
    stat = kwargs.get("stat_length")
    if stat is not None:
        stat = tuple(map(tuple, np.broadcast_to(np.asarray(stat, dtype="int64"),
                                                (x.type.ndim, 2)).tolist()))
    values = kwargs.get("constant_values", kwargs.get("end_values", 0))
    if isinstance(values, int | float | np.number):
        values = np.asarray(values, dtype=x.type.dtype)
    op = Pad(mode, kwargs.get("reflect_type", "even"), stat)
    return op(x, widths, values)
