"""Diagonals and triangles: diagonal, diag, tril, triu, trace, block_diag."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.assumptions import (
    DIAGONAL,
    LOWER_TRIANGULAR,
    SYMMETRIC,
    UPPER_TRIANGULAR,
    FactState,
    register_assumption,
)
from opgraph.autodiff.undefined import is_disconnected as _is_disconnected
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_linalg._util import triangle

scipy_linalg = lazy_scipy_module("linalg")  # imported on first use, not at plugin load

__all__ = [
    "AllocDiag",
    "BlockDiagonal",
    "ExtractDiag",
    "block_diag",
    "diag",
    "diagonal",
    "trace",
    "tril",
    "triu",
]


def _axes(ndim: int, axis1: int, axis2: int, who: str) -> tuple[int, int]:
    a1, a2 = axis1 % ndim if ndim else axis1, axis2 % ndim if ndim else axis2
    if ndim < 2 or not (-ndim <= axis1 < ndim and -ndim <= axis2 < ndim) or a1 == a2:
        raise ValueError(
            f"{who}: axis1={axis1} and axis2={axis2} must name two different axes of a tensor "
            f"with at least 2 dimensions (got ndim={ndim})"
        )
    return a1, a2


def _diag_len(n1: Any, n2: Any, offset: int) -> Any:
    """Length of the ``offset`` diagonal of an ``n1 x n2`` matrix (ints or variables)."""
    if isinstance(n1, int) and isinstance(n2, int):
        return max(0, min(n1 + min(offset, 0), n2 - max(offset, 0)))
    return pt.maximum(0, pt.minimum(n1 + min(offset, 0), n2 - max(offset, 0)))


class ExtractDiag(Op):
    """``numpy.diagonal(x, offset, axis1, axis2)`` (a copy, the diagonal as last axis)."""

    __props__ = ("offset", "axis1", "axis2")

    def __init__(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> None:
        self.offset, self.axis1, self.axis2 = int(offset), int(axis1), int(axis2)

    def make_node(self, x: Any) -> Apply:
        x = pt.as_tensor_variable(x)
        a1, a2 = _axes(x.type.ndim, self.axis1, self.axis2, "diagonal")
        shape = x.type.shape
        rest = tuple(s for i, s in enumerate(shape) if i not in (a1, a2))
        n1, n2 = shape[a1], shape[a2]
        length = None if n1 is None or n2 is None else _diag_len(n1, n2, self.offset)
        return Apply(self, [x], [TensorType(x.type.dtype, (*rest, length))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (x,) = inputs
        output_storage[0][0] = np.diagonal(x, self.offset, self.axis1, self.axis2).copy()

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        (shp,) = input_shapes
        a1, a2 = _axes(len(shp), self.axis1, self.axis2, "diagonal")
        rest = tuple(s for i, s in enumerate(shp) if i not in (a1, a2))
        return [(*rest, _diag_len(shp[a1], shp[a2], self.offset))]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (gz,) = cotangents
        if _is_disconnected(gz):
            return [disconnected_type()]
        (x,) = inputs
        return [AllocDiag(self.offset, self.axis1, self.axis2)(gz, x)]

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> list:
        (t,) = tangents
        return [disconnected_type() if _is_disconnected(t) else self(t)]


class AllocDiag(Op):
    """Zeros shaped like ``like`` with ``values`` on the diagonal ExtractDiag reads."""

    __props__ = ("offset", "axis1", "axis2")

    def __init__(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> None:
        self.offset, self.axis1, self.axis2 = int(offset), int(axis1), int(axis2)

    def make_node(self, values: Any, like: Any) -> Apply:
        values, like = pt.as_tensor_variable(values), pt.as_tensor_variable(like)
        _axes(like.type.ndim, self.axis1, self.axis2, "AllocDiag")
        if values.type.ndim != like.type.ndim - 1:
            raise ValueError(
                f"AllocDiag: values {values.type} must have one axis less than {like.type}"
            )
        return Apply(self, [values, like], [TensorType(values.type.dtype, like.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        values, like = inputs
        out = np.zeros(like.shape, dtype=node.outputs[0].type.numpy_dtype)
        n = values.shape[-1]
        r0, c0 = max(-self.offset, 0), max(self.offset, 0)
        if out.ndim == 2 and values.ndim == 1 and (self.axis1 % 2, self.axis2 % 2) == (0, 1):
            block = out[r0:, c0:]  # a matrix's diagonal (the common case): no fancy indexing
            if min(block.shape) == n:
                np.fill_diagonal(block, values)
                output_storage[0][0] = out
                return
        view = np.moveaxis(out, (self.axis1, self.axis2), (-2, -1))
        view[..., np.arange(n) + r0, np.arange(n) + c0] = values
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[1])]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (gz,) = cotangents
        if _is_disconnected(gz):
            return [disconnected_type(), disconnected_type()]
        return [ExtractDiag(self.offset, self.axis1, self.axis2)(gz), disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """``numpy.diagonal``: the diagonal of axes ``axis1``/``axis2``, moved last.

    Negative axes are counted from ``a``'s rank here, so one diagonal has one Op
    (PyTensor's ``diagonal`` normalizes them the same way)."""
    a = pt.as_tensor_variable(a)
    nd = a.type.ndim
    if nd >= 2 and -nd <= axis1 < nd and -nd <= axis2 < nd:
        axis1, axis2 = axis1 % nd, axis2 % nd
    return ExtractDiag(offset, axis1, axis2)(a)


def alloc_diag(diag: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """A tensor, zero but for ``diag`` (last axis) on the diagonal of ``axis1``/``axis2``."""
    diag = pt.as_tensor_variable(diag)
    n = diag.shape[-1] + abs(offset)
    shape = list(pt.shape_tuple(diag)[:-1])
    for ax in sorted(a % (diag.type.ndim + 1) for a in (axis1, axis2)):
        shape.insert(ax, n)
    return AllocDiag(offset, axis1, axis2)(diag, pt.zeros(shape, dtype=diag.type.dtype))


def diag(v: Any, k: int = 0) -> Variable:
    """``numpy.diag``: a vector's diagonal matrix, or a matrix's diagonal."""
    v = pt.as_tensor_variable(v)
    if v.type.ndim == 1:
        n = v.shape[0] + abs(k)
        like = pt.zeros((n, n), dtype=v.type.dtype)
        return AllocDiag(k, 0, 1)(v, like)
    if v.type.ndim == 2:
        return ExtractDiag(k, 0, 1)(v)
    raise ValueError(f"diag: Input must be 1- or 2-d. Got {v.type.ndim}-d {v.type}")


def trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """``numpy.trace``: the sum of a diagonal of axes ``axis1``/``axis2`` (PyTensor's too)."""
    x = pt.as_tensor_variable(x)
    if x.type.ndim < 2:
        raise ValueError(f"trace: x must have at least 2 dimensions, got {x.type}")
    return ExtractDiag(offset, axis1, axis2)(x).sum(axis=-1)


def tril(m: Any, k: int = 0) -> Variable:
    """The lower triangle of the last two axes (``numpy.tril``)."""
    return triangle(m, k, True)


def triu(m: Any, k: int = 0) -> Variable:
    """The upper triangle of the last two axes (``numpy.triu``)."""
    return triangle(m, k, False)


class BlockDiagonal(Op):
    """``scipy_linalg.block_diag`` of ``n_inputs`` matrices."""

    __props__ = ("n_inputs",)

    def __init__(self, n_inputs: int) -> None:
        if n_inputs < 1:
            raise ValueError("block_diag: needs at least one matrix")
        self.n_inputs = int(n_inputs)

    @property
    def gufunc_signature(self) -> str:
        ins = ",".join(f"(m{i},n{i})" for i in range(self.n_inputs))
        return f"{ins}->(m,n)"

    def make_node(self, *matrices: Any) -> Apply:
        mats = [pt.as_tensor_variable(m) for m in matrices]
        if len(mats) != self.n_inputs:
            raise TypeError(f"block_diag: expected {self.n_inputs} matrices, got {len(mats)}")
        for i, m in enumerate(mats):
            if m.type.ndim != 2:
                raise ValueError(f"block_diag: matrix {i} must be 2-d, got {m.type}")
        rows = [m.type.shape[0] for m in mats]
        cols = [m.type.shape[1] for m in mats]
        shape = (None if None in rows else sum(rows), None if None in cols else sum(cols))
        dtype = np.result_type(*[m.type.dtype for m in mats]).name
        return Apply(self, mats, [TensorType(dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        out = scipy_linalg.block_diag(*inputs)
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        rows = input_shapes[0][0]
        cols = input_shapes[0][1]
        for shp in input_shapes[1:]:
            rows, cols = rows + shp[0], cols + shp[1]
        return [(rows, cols)]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (gz,) = cotangents
        if _is_disconnected(gz):
            return [disconnected_type()] * len(inputs)
        grads = []
        r = c = 0
        for m in inputs:
            r2, c2 = r + m.shape[0], c + m.shape[1]
            grads.append(gz[r:r2, c:c2])
            r, c = r2, c2
        return grads


def _alloc_diag_facts(key: Any, op: AllocDiag, feature: Any, fgraph: Any, node: Apply,
                      input_states: Sequence[FactState]) -> list[FactState]:
    """``alloc_diag(v)`` on the main diagonal of the last two axes is diagonal (hence
    triangular and symmetric); other offsets or axes claim nothing."""
    nd = node.outputs[0].type.ndim
    last_two = {op.axis1 % nd, op.axis2 % nd} == {nd - 2, nd - 1}
    return [FactState.TRUE if op.offset == 0 and last_two else FactState.UNKNOWN]


for _key in (DIAGONAL, LOWER_TRIANGULAR, UPPER_TRIANGULAR, SYMMETRIC):
    register_assumption(_key, AllocDiag)(_alloc_diag_facts)


def block_diag(*matrices: Any) -> Variable:
    """A block-diagonal matrix of ``matrices`` (batched over leading axes)."""
    if not matrices:
        raise ValueError("block_diag: needs at least one matrix")
    return Blockwise(BlockDiagonal(len(matrices)))(*matrices)
