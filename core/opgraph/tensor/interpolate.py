"""1-d interpolation of tabulated data (``pytensor.tensor.interpolate``).

Built from ``searchsorted`` and indexing, so it is differentiable in the query
points (and in the table values) wherever the chosen method is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from opgraph.graph.basic import Variable
from opgraph.tensor import math as ptm
from opgraph.tensor.extra_ops import searchsorted
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["InterpolationMethod", "interp", "interpolate1d", "valid_methods"]

InterpolationMethod = Literal["linear", "nearest", "first", "last", "mean"]
valid_methods: tuple[str, ...] = ("linear", "nearest", "first", "last", "mean")


def _linear(t: Variable, x: Variable, y: Variable, idx: Variable, n: Variable) -> Variable:
    # The interval [x[i-1], x[i]] holding t (the first or last one outside the table),
    # continued linearly; a query equal to x[i] returns y[i] exactly.
    i = ptm.clip(idx, 1, n - 1)
    x0, x1, y0, y1 = x[i - 1], x[i], y[i - 1], y[i]
    line = y0 + (t - x0) / (x1 - x0) * (y1 - y0)
    return ptm.switch(ptm.eq(t, x1), y1, line)


def _nearest(t: Variable, x: Variable, y: Variable, idx: Variable, n: Variable) -> Variable:
    i = ptm.clip(idx, 1, n - 1)
    closer_right = ptm.lt(ptm.abs(x[i] - t), ptm.abs(t - x[i - 1]))
    return ptm.switch(ptm.or_(closer_right, ptm.eq(t, x[i])), y[i], y[i - 1])


def _first(t: Variable, x: Variable, y: Variable, idx: Variable, n: Variable) -> Variable:
    return y[ptm.clip(idx - 1, 0, n - 1)]  # the left end of the interval (x[i-1], x[i]]


def _last(t: Variable, x: Variable, y: Variable, idx: Variable, n: Variable) -> Variable:
    return y[ptm.clip(idx, 0, n - 1)]  # its right end


def _mean(t: Variable, x: Variable, y: Variable, idx: Variable, n: Variable) -> Variable:
    i = ptm.clip(idx, 1, n - 1)
    return (y[i - 1] + y[i]) / 2


_METHODS: dict[str, Callable[..., Variable]] = {
    "linear": _linear, "nearest": _nearest, "first": _first, "last": _last, "mean": _mean,
}


def interpolate1d(
    x: Any,
    y: Any,
    method: InterpolationMethod = "linear",
    left_pad: Any = None,
    right_pad: Any = None,
    extrapolate: bool = True,
) -> Callable[[Any], Variable]:
    """A function of query points interpolating the table ``y`` at increasing ``x``.

    ``method``: "linear", "nearest", "first"/"last" (the value at the left/right
    end of the interval holding the point), "mean" (of both ends).  With
    ``extrapolate=False`` points left of ``x[0]`` give ``left_pad`` (default
    ``y[0]``) and right of ``x[-1]`` give ``right_pad`` (default ``y[-1]``);
    otherwise the method continues past the ends.
    """
    if method not in _METHODS:
        raise ValueError(f"interpolate1d: method must be one of {valid_methods}, got {method!r}")
    x = as_tensor_variable(x)
    y = as_tensor_variable(y)
    if x.type.ndim != 1 or y.type.ndim != 1:
        raise ValueError(
            f"interpolate1d: x and y must be vectors, got {x.type} and {y.type}"
        )
    rule = _METHODS[method]

    def interpolate(x_hat: Any) -> Variable:
        t = as_tensor_variable(x_hat)
        n = x.shape[0]
        idx = searchsorted(x, t, side="left")
        out = rule(t, x, y, idx, n)
        if not extrapolate:
            left = y[0] if left_pad is None else as_tensor_variable(left_pad)
            right = y[-1] if right_pad is None else as_tensor_variable(right_pad)
            out = ptm.switch(ptm.lt(t, x[0]), left, ptm.switch(ptm.gt(t, x[-1]), right, out))
        return out

    return interpolate


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> Variable:
    """``numpy.interp``: piecewise-linear interpolation of ``fp`` at ``x``.

    Outside ``[xp[0], xp[-1]]`` the result is ``left``/``right`` (default the end
    values).  ``period`` is not supported.
    """
    if period is not None:
        raise NotImplementedError("interp: period is not supported")
    return interpolate1d(xp, fp, "linear", left_pad=left, right_pad=right, extrapolate=False)(x)


def pad_or_return(x: Any, idx: Any, output: Any, left_pad: Any, right_pad: Any,
                  extrapolate: bool) -> Any:
    """``output``, except where ``idx`` is 0 (``left_pad``) or ``len(x)`` (``right_pad``),
    unless ``extrapolate``: then ``output`` everywhere."""
    if extrapolate:
        return output
    n = x.shape[0]
    return ptm.switch(ptm.eq(idx, 0), left_pad, ptm.switch(ptm.eq(idx, n), right_pad, output))
