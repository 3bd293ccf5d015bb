"""Least squares and tensor equations: lstsq, tensorsolve (NumPy's semantics)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.gradient import grad_not_implemented
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.tensor.type import TensorType
from opgraph_linalg._util import float_dtype
from opgraph_linalg.solvers import solve

__all__ = ["Lstsq", "lstsq", "tensorsolve"]


class Lstsq(Op):
    """``numpy.linalg.lstsq(a, b, rcond)``: ``(x, residuals, rank, singular values)``."""

    __props__ = ()

    def make_node(self, a: Any, b: Any, rcond: Any) -> Apply:
        a, b, rcond = (pt.as_tensor_variable(v) for v in (a, b, rcond))
        dtype = float_dtype(a.type.dtype, b.type.dtype)
        outs = [
            TensorType(dtype, (None,) * b.type.ndim)(),
            TensorType(dtype, (None,))(),
            TensorType("int32", ())(),
            TensorType(dtype, (None,))(),
        ]
        return Apply(self, [a, b, rcond], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b, rcond = inputs
        if a.ndim != 2:
            raise np.linalg.LinAlgError(
                f"lstsq: a must be a matrix, got an array of shape {a.shape}"
            )
        if np.ndim(rcond) != 0:
            raise np.linalg.LinAlgError(f"lstsq: rcond must be a scalar, got shape {rcond.shape}")
        x, res, rank, s = np.linalg.lstsq(a, b, rcond=float(rcond))
        for cell, value, out in zip(output_storage, (x, res, rank, s), node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.numpy_dtype)

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        return [grad_not_implemented(self, i, x) for i, x in enumerate(inputs)]


def lstsq(a: Any, b: Any, rcond: Any = -1) -> list[Variable]:
    """``(x, residuals, rank, s)`` minimising ``|b - a @ x|`` (``numpy.linalg.lstsq``)."""
    return Lstsq()(a, b, rcond)


def tensorsolve(a: Any, b: Any, axes: Sequence[int] | None = None) -> Variable:
    """``x`` with ``tensordot(a, x, x.ndim) == b`` (``numpy.linalg.tensorsolve``)."""
    a, b = pt.as_tensor_variable(a), pt.as_tensor_variable(b)
    nd = a.type.ndim
    if axes is not None:
        moved = [int(ax) % nd for ax in axes]
        order = [i for i in range(nd) if i not in moved] + moved
        a = a.dimshuffle(*order)
    x_ndim = nd - b.type.ndim
    if x_ndim < 1:
        raise ValueError(
            f"tensorsolve: a ({a.type}) needs more dimensions than b ({b.type})"
        )
    x_dims = [a.shape[i] for i in range(b.type.ndim, nd)]
    rows = pt.prod(b.shape) if b.type.ndim else 1
    cols = pt.prod(pt.stack(x_dims))
    a2 = pt.reshape(a, pt.stack([rows, cols]), ndim=2)
    x = solve(a2, pt.reshape(b, (-1,), ndim=1), b_ndim=1)
    return pt.reshape(x, pt.stack(x_dims), ndim=x_ndim)
