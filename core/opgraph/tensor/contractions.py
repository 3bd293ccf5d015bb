"""Tensor contractions: ``tensordot``, ``batched_dot`` and ``batched_tensordot``.

Every contraction is lowered to transposes, reshapes and one matrix product
(``matmul`` for a batch), so gradients, rewrites and BLAS come for free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Variable
from opgraph.tensor.products import dot, matmul
from opgraph.tensor.reduction import sum as pt_sum
from opgraph.tensor.shape import shape_i
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["batched_dot", "batched_tensordot", "prod_of", "tensordot"]

def prod_of(dims: Sequence[Any]) -> Any:
    """The product of symbolic or Python lengths (1 for none)."""
    out: Any = 1
    for d in dims:
        out = out * d
    return out


def _normalize_axes(axes: Any, a: Variable, b: Variable) -> tuple[list[int], list[int]]:
    if isinstance(axes, int | np.integer):
        n = int(axes)
        if n < 0 or n > a.type.ndim or n > b.type.ndim:
            raise ValueError(
                f"tensordot: axes={n} needs at least {n} dimensions in both operands "
                f"(got {a.type.ndim} and {b.type.ndim})"
            )
        axes = (list(range(a.type.ndim - n, a.type.ndim)), list(range(n)))
    try:
        ax_a, ax_b = axes
    except (TypeError, ValueError):
        raise TypeError(
            f"tensordot: axes must be an int or a pair of axis lists, got {axes!r}"
        ) from None
    ax_a = [ax_a] if isinstance(ax_a, int | np.integer) else list(ax_a)
    ax_b = [ax_b] if isinstance(ax_b, int | np.integer) else list(ax_b)
    if len(ax_a) != len(ax_b):
        raise ValueError(f"tensordot: {len(ax_a)} axes of a paired with {len(ax_b)} of b")
    out = []
    for axs, v, who in ((ax_a, a, "a"), (ax_b, b, "b")):
        norm = []
        for ax in axs:
            if not -v.type.ndim <= int(ax) < v.type.ndim:
                raise ValueError(f"tensordot: axis {ax} out of range for {who} ({v.type.ndim}-d)")
            norm.append(int(ax) % v.type.ndim)
        out.append(norm)
    for i, j in zip(*out):
        sa, sb = a.type.shape[i], b.type.shape[j]
        if sa is not None and sb is not None and sa != sb:
            raise ValueError(f"tensordot: axis {i} of a has length {sa}, axis {j} of b has {sb}")
    return out[0], out[1]


def tensordot(a: Any, b: Any, axes: Any = 2) -> Variable:
    """Sum of products over the given axes, as ``np.tensordot``."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    ax_a, ax_b = _normalize_axes(axes, a, b)
    free_a = [d for d in range(a.type.ndim) if d not in ax_a]
    free_b = [d for d in range(b.type.ndim) if d not in ax_b]
    sa = [shape_i(a, d) for d in range(a.type.ndim)]
    sb = [shape_i(b, d) for d in range(b.type.ndim)]
    k = prod_of([sa[d] for d in ax_a])
    left = a.dimshuffle(*free_a, *ax_a).reshape((prod_of([sa[d] for d in free_a]), k))
    right = b.dimshuffle(*ax_b, *free_b).reshape((k, prod_of([sb[d] for d in free_b])))
    out = dot(left, right)
    return out.reshape(tuple(sa[d] for d in free_a) + tuple(sb[d] for d in free_b))


def batched_dot(a: Any, b: Any) -> Variable:
    """``dot`` of ``a[i]`` and ``b[i]`` for each ``i`` of the leading (batch) axis."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.type.ndim < 1 or b.type.ndim < 1:
        raise TypeError("batched_dot: both operands need a batch dimension")
    if a.type.ndim == 1 or b.type.ndim == 1:
        return a * b if a.type.ndim == b.type.ndim else (
            a * b.dimshuffle(0, *["x"] * (a.type.ndim - 1)) if b.type.ndim == 1
            else a.dimshuffle(0, *["x"] * (b.type.ndim - 1)) * b
        )
    if a.type.ndim == 2 and b.type.ndim == 2:
        return pt_sum(a * b, axis=1)
    if a.type.ndim == 2:
        return matmul(a.dimshuffle(0, "x", 1), b).dimshuffle(0, *range(2, b.type.ndim))
    if b.type.ndim == 2:
        return matmul(a, b.dimshuffle(0, 1, "x")).dimshuffle(*range(a.type.ndim - 1))
    return batched_tensordot(a, b, [[a.type.ndim - 1], [1]])


def batched_tensordot(x: Any, y: Any, axes: Any = 2) -> Variable:
    """``tensordot`` of ``x[i]`` and ``y[i]`` for each ``i`` of the leading axis."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if isinstance(axes, int | np.integer):
        n = int(axes)
        ax_x, ax_y = list(range(x.type.ndim - n, x.type.ndim)), list(range(1, n + 1))
    else:
        ax_x = [int(a) % x.type.ndim for a in np.atleast_1d(axes[0])]
        ax_y = [int(a) % y.type.ndim for a in np.atleast_1d(axes[1])]
    if 0 in ax_x or 0 in ax_y:
        raise ValueError("batched_tensordot: the batch axis 0 cannot be contracted")
    free_x = [d for d in range(1, x.type.ndim) if d not in ax_x]
    free_y = [d for d in range(1, y.type.ndim) if d not in ax_y]
    sx = [shape_i(x, d) for d in range(x.type.ndim)]
    sy = [shape_i(y, d) for d in range(y.type.ndim)]
    k = prod_of([sx[d] for d in ax_x])
    left = x.dimshuffle(0, *free_x, *ax_x).reshape((sx[0], prod_of([sx[d] for d in free_x]), k))
    right = y.dimshuffle(0, *ax_y, *free_y).reshape((sy[0], k, prod_of([sy[d] for d in free_y])))
    out = matmul(left, right)
    return out.reshape((sx[0], *(sx[d] for d in free_x), *(sy[d] for d in free_y)))
