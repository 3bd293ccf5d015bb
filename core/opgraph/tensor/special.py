"""Softmax, log-softmax and log-sum-exp, computed without overflow.

Each subtracts the maximum before exponentiating, so large inputs give
finite results; the gradients are written in the same stable forms
(in terms of the op's output, never ``exp(x)`` of the raw input).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from opgraph import faces as _faces
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import DisconnectedType
from opgraph.graph.op import Op
from opgraph.tensor import reduction as _reduction
from opgraph.tensor import ufuncs as ptm
from opgraph.tensor.shape import squeeze
from opgraph.tensor.type import discrete_dtypes, float_dtypes, get_floatX
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "LogSoftmax",
    "Softmax",
    "beta",
    "factorial",
    "log_softmax",
    "logit",
    "logsumexp",
    "poch",
    "softmax",
]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def _missing(g: Any) -> bool:
    return g is None or isinstance(getattr(g, "type", None), DisconnectedType)


def _check_input(op: Any, x: Variable) -> None:
    if x.type.dtype not in float_dtypes:
        raise TypeError(
            f"{type(op).__name__}: {_name(x)} must have a float dtype, got {x.type.dtype} "
            f"(use {type(op).__name__.lower()}() on integers: it casts them to floatX)"
        )
    if op.axis is not None and not -x.type.ndim <= op.axis < max(x.type.ndim, 1):
        raise ValueError(
            f"{type(op).__name__}: axis {op.axis} is out of range for {_name(x)} with "
            f"{x.type.ndim} dimension(s)"
        )


def _np_axis(axis: int | None, ndim: int) -> int | None:
    return None if axis is None or ndim == 0 else axis


class _SoftmaxBase(Op):
    """Shared node building and shape inference for Softmax and LogSoftmax."""

    axis: int | None

    def __attrs_post_init__(self) -> None:
        axis = self.axis
        if axis is not None and (not isinstance(axis, int | np.integer)
                                 or isinstance(axis, bool | np.bool_)):
            raise TypeError(f"{type(self).__name__}: axis must be an int or None, got {axis!r}")

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        _check_input(self, x)
        return Apply(self, [x], [x.type()])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [input_shapes[0]]

    def _sum(self, v: Variable) -> Variable:
        return _reduction.sum(v, axis=self.axis, keepdims=True)

    def __str__(self) -> str:
        return f"{type(self).__name__}{{axis={self.axis}}}"


@attrs.frozen(repr=False)
class Softmax(_SoftmaxBase):
    """``exp(x) / sum(exp(x), axis)``, computed as ``exp(x - max) / sum(exp(x - max))``."""

    axis: int | None = -1

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x = inputs[0]
        axis = _np_axis(self.axis, x.ndim)
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        out = e / np.sum(e, axis=axis, keepdims=True)
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].type.dtype)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        m = ptm
        sm, g = outputs[0], cotangents[0]
        # d softmax: g*sm - sum(g*sm)*sm, expanded so that g*sm cancels when g = c/sm
        # (the gradient of log(softmax(x)), which is NaN where sm underflows otherwise)
        gs = m.mul(g, sm)
        return [m.sub(gs, m.mul(self._sum(gs), sm))]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        if _missing(tangents[0]):
            return [None]
        m = ptm
        sm, t = outputs[0], tangents[0]
        return [m.mul(sm, m.sub(t, self._sum(m.mul(sm, t))))]


@attrs.frozen(repr=False)
class LogSoftmax(_SoftmaxBase):
    """``x - logsumexp(x, axis)``, computed as ``(x - max) - log(sum(exp(x - max)))``."""

    axis: int | None = -1

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x = inputs[0]
        axis = _np_axis(self.axis, x.ndim)
        shifted = x - np.max(x, axis=axis, keepdims=True)
        out = shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].type.dtype)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        m = ptm
        out, g = outputs[0], cotangents[0]
        # d log_softmax: g - softmax * sum(g), with softmax = exp(out) (never overflows)
        return [m.sub(g, m.mul(m.exp(out), self._sum(g)))]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        if _missing(tangents[0]):
            return [None]
        m = ptm
        out, t = outputs[0], tangents[0]
        return [m.sub(t, self._sum(m.mul(m.exp(out), t)))]


def _as_float(x: Any) -> Variable:
    x = as_tensor_variable(x)
    if x.type.dtype in discrete_dtypes:
        x = ptm.cast(x, get_floatX())
    return x


def _normalize_axis(axis: int | None, x: Variable, who: str) -> int | None:
    if axis is None:
        return None
    if not isinstance(axis, int | np.integer) or not -x.type.ndim <= axis < max(x.type.ndim, 1):
        raise ValueError(
            f"{who}: axis {axis!r} is out of range for {_name(x)} with {x.type.ndim} "
            "dimension(s)"
        )
    return int(axis) % x.type.ndim if x.type.ndim else None


def softmax(x: Any, axis: int | None = -1) -> Variable:
    """Softmax along ``axis`` (None: over all elements); integers are cast to floatX."""
    x = _as_float(x)
    return Softmax(_normalize_axis(axis, x, "softmax"))(x)


def log_softmax(x: Any, axis: int | None = -1) -> Variable:
    """Log of the softmax along ``axis``, stable for large inputs."""
    x = _as_float(x)
    return LogSoftmax(_normalize_axis(axis, x, "log_softmax"))(x)


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """``log(sum(exp(x), axis))`` computed as ``max + log(sum(exp(x - max)))``.

    A maximum of +-inf is replaced by 0 before shifting, so all -inf inputs give -inf
    and an +inf input gives +inf instead of NaN.
    """
    m = ptm
    x = _as_float(x)
    top = _reduction.max(x, axis=axis, keepdims=True)
    safe_top = m.switch(m.isinf(top), np.zeros((), dtype=x.type.dtype), top)
    total = _reduction.sum(m.exp(m.sub(x, safe_top)), axis=axis, keepdims=True)
    out = m.add(m.log(total), safe_top)
    if keepdims:
        return out
    if axis is None:
        axes = list(range(x.type.ndim))
    else:
        axes = [axis] if isinstance(axis, int | np.integer) else list(axis)
        axes = [int(a) % x.type.ndim for a in axes]
    return squeeze(out, axis=axes) if axes else out



# Special functions written with the ones the opgraph-special plugin provides
# (``gamma``, ``betaln``...); without the plugin, calling them names the plugin.


def _plugin(name: str) -> Any:
    return _faces.provided_name("opgraph.tensor", name)


def poch(z: Any, m: Any) -> Variable:
    """Pochhammer's rising factorial ``gamma(z + m) / gamma(z)``."""
    gamma = _plugin("gamma")
    z, m = as_tensor_variable(z), as_tensor_variable(m)
    return gamma(z + m) / gamma(z)


def factorial(n: Any) -> Variable:
    """``n!`` as ``gamma(n + 1)`` (also defined between integers)."""
    return _plugin("gamma")(as_tensor_variable(n) + 1)


def beta(a: Any, b: Any) -> Variable:
    """The beta function ``gamma(a) * gamma(b) / gamma(a + b)``."""
    gamma = _plugin("gamma")
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    return (gamma(a) * gamma(b)) / gamma(a + b)


def logit(x: Any) -> Variable:
    """``log(x / (1 - x))``, the inverse of the sigmoid."""
    x = as_tensor_variable(x)
    return (x / (1 - x)).log()


def __getattr__(name: str) -> Any:
    """``betaln``, ``xlogy``...: the plugin-provided functions, as in PyTensor's module."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _faces.provided_name("opgraph.tensor", name)
