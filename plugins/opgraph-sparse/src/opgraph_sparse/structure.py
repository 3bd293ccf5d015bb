"""Ops that move or select a sparse matrix's entries: transpose, indexing, scaling,
diagonals, stacking, index sorting, explicit-zero removal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.gradient import disconnected_type, grad_not_implemented
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.tensor.basic import arange, as_tensor_variable, cast, stack
from opgraph.tensor.subtensor import advanced_subtensor1
from opgraph.tensor.type import TensorType, discrete_dtypes
from opgraph.tensor.type_other import NoneConst
from opgraph.utils import lazy_scipy_module
from opgraph_sparse.convert import (
    CSC,
    _name,
    as_sparse_variable,
    dense_from_sparse,
    integer_dtypes,
    mul_s_d,
)
from opgraph_sparse.type import SparseTensorType

sp = lazy_scipy_module("sparse")  # SciPy loads when a sparse value is first used

_OTHER = {"csr": "csc", "csc": "csr"}


def _build(fmt: str) -> Any:
    return sp.csr_matrix if fmt == "csr" else sp.csc_matrix


class Transpose(Op):
    """The transpose; CSR becomes CSC and back, sharing the buffers."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        fmt = _OTHER.get(x.type.format, x.type.format)
        out = SparseTensorType(fmt, x.type.dtype, shape=x.type.shape[::-1])()
        return Apply(self, [x], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        out[0][0] = inputs[0].transpose()

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        return [transpose(gout[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0][::-1]]

    def __str__(self) -> str:
        return "Sparse" + type(self).__name__


transpose = Transpose()
"""``transpose``: The transpose; CSR becomes CSC and back, sharing the buffers."""


def _index_vector(ind: Any, who: str) -> Variable:
    ind = as_tensor_variable(ind)
    if ind.type.ndim != 1 or ind.type.dtype not in integer_dtypes:
        raise TypeError(f"{who}: the index must be a vector of integers, got {ind.type}")
    return ind


class GetItemList(Op):
    """The rows of a sparse matrix selected by an integer vector."""

    __props__ = ()

    def make_node(self, x: Any, index: Any) -> Apply:
        x = as_sparse_variable(x)
        ind = _index_vector(index, "GetItemList")
        return Apply(self, [x, ind], [x.type.clone(shape=(None, x.type.shape[1]))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, ind = inputs
        out[0][0] = _build(x.format)(x[ind])

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [(shapes[1][0], shapes[0][1])]

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        x, ind = inputs
        return [get_item_list_grad(x, ind, gout[0]),
                grad_not_implemented(self, 1, ind, "the index is not differentiable")]


get_item_list = GetItemList()
"""``get_item_list``: The rows of a sparse matrix selected by an integer vector."""


class GetItemListGrad(Op):
    """The gradient of ``GetItemList``: ``gz``'s rows added into a zero matrix like ``x``."""

    __props__ = ()

    def make_node(self, x: Any, index: Any, gz: Any) -> Apply:
        x, gz = as_sparse_variable(x), as_sparse_variable(gz)
        ind = _index_vector(index, "GetItemListGrad")
        return Apply(self, [x, ind, gz], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, ind, gz = inputs
        rows = sp.coo_matrix((np.ones(len(ind)), (np.asarray(ind) % x.shape[0],
                                                   np.arange(len(ind)))),
                             shape=(x.shape[0], len(ind)))
        res = (rows @ gz).astype(node.outputs[0].type.dtype)
        out[0][0] = _build(x.format)(res)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


get_item_list_grad = GetItemListGrad()
"""``get_item_list_grad``: The gradient of ``GetItemList``: ``gz``'s rows added into a zero matrix
like ``x``."""


class GetItem2Lists(Op):
    """The entries ``x[ind1[k], ind2[k]]`` of a sparse matrix, as a dense vector."""

    __props__ = ()

    def make_node(self, x: Any, ind1: Any, ind2: Any) -> Apply:
        x = as_sparse_variable(x)
        i1 = _index_vector(ind1, "GetItem2Lists")
        i2 = _index_vector(ind2, "GetItem2Lists")
        return Apply(self, [x, i1, i2], [TensorType(x.type.dtype, (None,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, i1, i2 = inputs
        out[0][0] = np.asarray(x[i1, i2], dtype=x.dtype).reshape(-1)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        x, i1, i2 = inputs
        return [get_item_2lists_grad(x, i1, i2, gout[0]),
                grad_not_implemented(self, 1, i1, "the index is not differentiable"),
                grad_not_implemented(self, 2, i2, "the index is not differentiable")]


get_item_2lists = GetItem2Lists()
"""``get_item_2lists``: The entries ``x[ind1[k], ind2[k]]`` of a sparse matrix, as a dense
vector."""


class GetItem2ListsGrad(Op):
    """The gradient of ``GetItem2Lists``: ``gz`` scattered (summed) into a matrix like ``x``."""

    __props__ = ()

    def make_node(self, x: Any, ind1: Any, ind2: Any, gz: Any) -> Apply:
        x = as_sparse_variable(x)
        i1 = _index_vector(ind1, "GetItem2ListsGrad")
        i2 = _index_vector(ind2, "GetItem2ListsGrad")
        return Apply(self, [x, i1, i2, as_tensor_variable(gz)], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, i1, i2, gz = inputs
        rows, cols = np.asarray(i1) % x.shape[0], np.asarray(i2) % x.shape[1]
        res = sp.coo_matrix((gz, (rows, cols)), shape=x.shape)
        out[0][0] = _build(x.format)(res, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


get_item_2lists_grad = GetItem2ListsGrad()
"""``get_item_2lists_grad``: The gradient of ``GetItem2Lists``: ``gz`` scattered (summed) into a
matrix like ``x``."""


def _slice_part(value: Any, what: str) -> Variable:
    if value is None:
        return NoneConst
    var = value if isinstance(value, Variable) else as_tensor_variable(value)
    if getattr(var.type, "ndim", None) != 0 or var.type.dtype not in discrete_dtypes:
        raise ValueError(
            f"Impossible to index into a sparse matrix with slice where {what}={value}")
    return var


class GetItem2d(Op):
    """A sub-matrix ``x[a:b:c, d:e:f]`` of a sparse matrix (slices only)."""

    __props__ = ()

    def make_node(self, x: Any, index: Any) -> Apply:
        x = as_sparse_variable(x)
        if not isinstance(index, tuple | list):
            index = (index,)
        if len(index) not in (1, 2):
            raise ValueError(f"GetItem2d: expected 1 or 2 indices, got {len(index)}")
        ins = [x]
        for ind in index:
            if isinstance(ind, slice):
                step = None if ind.step is None or (
                    not isinstance(ind.step, Variable) and ind.step == 1) else ind.step
                ins += [_slice_part(ind.start, "start"), _slice_part(ind.stop, "stop"),
                        _slice_part(step, "step")]
            elif np.isscalar(ind) or (isinstance(ind, Variable)
                                      and getattr(ind.type, "ndim", -1) == 0):
                raise NotImplementedError(
                    "opgraph has no sparse vector: use X[a:b, c:d], X[a:b, c:c+1] or X[a:b]")
            else:
                raise ValueError(
                    f"Advanced indexing is not implemented for sparse matrices: {ind!r}")
        if len(index) == 1:
            ins += [NoneConst, NoneConst, NoneConst]
        return Apply(self, ins, [x.type.clone(shape=(None, None))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, a, b, c, d, e, f = inputs
        out[0][0] = x[a:b:c, d:e:f]


get_item_2d = GetItem2d()
"""``get_item_2d``: A sub-matrix ``x[a:b:c, d:e:f]`` of a sparse matrix (slices only)."""


class GetItemScalar(Op):
    """The entry ``x[i, j]`` of a sparse matrix, as a 0-d tensor."""

    __props__ = ()

    def make_node(self, x: Any, index: Any) -> Apply:
        x = as_sparse_variable(x)
        if len(index) != 2:
            raise ValueError(f"GetItemScalar: expected 2 indices, got {len(index)}")
        ins = [x]
        for ind in index:
            if isinstance(ind, slice):
                raise TypeError("GetItemScalar: an index is a slice; use GetItem2d")
            var = as_tensor_variable(ind)
            if var.type.ndim != 0:
                raise NotImplementedError(f"GetItemScalar: index {ind} is not a scalar")
            ins.append(var)
        return Apply(self, ins, [TensorType(x.type.dtype, ())()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, i, j = inputs
        out[0][0] = np.asarray(x[i, j], dtype=x.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [()]


get_item_scalar = GetItemScalar()
"""``get_item_scalar``: The entry ``x[i, j]`` of a sparse matrix, as a 0-d tensor."""


class _ScaleCSC(Op):
    """Multiply each column (``ColScaleCSC``) or row (``RowScaleCSC``) of a CSC matrix."""

    __props__ = ()
    axis = 1

    def make_node(self, x: Any, s: Any) -> Apply:
        x, s = as_sparse_variable(x), as_tensor_variable(s)
        if x.type.format != "csc":
            raise ValueError(f"{type(self).__name__}: {_name(x)} must be CSC, got {x.type}")
        return Apply(self, [x, s], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, s = inputs
        y = x.copy()
        if self.axis == 1:
            y.data = y.data * np.repeat(s, np.diff(x.indptr))
        else:
            y.data = y.data * s[x.indices]
        out[0][0] = y

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        x, s = inputs
        gz = gout[0]
        gx = type(self)()(gz, s)
        prod = dense_from_sparse(mul_s_d(gz, dense_from_sparse(x)))
        return [gx, prod.sum(axis=1 - self.axis)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


class ColScaleCSC(_ScaleCSC):
    axis = 1


class RowScaleCSC(_ScaleCSC):
    axis = 0


def col_scale(x: Any, s: Any) -> Variable:
    """``x`` (sparse) with column ``j`` multiplied by ``s[j]``."""
    x = as_sparse_variable(x)
    if x.type.format == "csc":
        return ColScaleCSC()(x, s)
    if x.type.format == "csr":
        return transpose(RowScaleCSC()(transpose(x), s))
    raise NotImplementedError(f"col_scale: format {x.type.format} is not supported")


def row_scale(x: Any, s: Any) -> Variable:
    """``x`` (sparse) with row ``i`` multiplied by ``s[i]``."""
    return transpose(col_scale(transpose(x), s))


class Diag(Op):
    """The diagonal of a square sparse matrix, as a dense vector."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [TensorType(x.type.dtype, (None,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        (x,) = inputs
        n, m = x.shape
        if n != m:
            raise ValueError(f"Diag: the matrix must be square, got shape {x.shape}")
        out[0][0] = np.asarray(x.diagonal())

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        return [square_diagonal(gout[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [(shapes[0][0],)]


diag = Diag()
"""``diag``: The diagonal of a square sparse matrix, as a dense vector."""


def square_diagonal(diag: Any) -> Variable:
    """A square CSC matrix with ``diag`` (a dense vector) on its diagonal."""
    d = as_tensor_variable(diag)
    n = cast(d.shape[0], "int32")
    rng = arange(n + 1, dtype="int32")
    return CSC(d, rng[:-1], rng, stack([n, n]))


class Stack(Op):
    """Join sparse blocks side by side (``HStack``) or on top of each other (``VStack``)."""

    __props__ = ("format", "dtype")
    axis = 1

    def __init__(self, format: str | None = None, dtype: Any = None) -> None:
        if dtype is None:
            raise ValueError("Stack: the output dtype must be given")
        self.format = "csc" if format is None else format
        self.dtype = np.dtype(dtype).name

    def make_node(self, *blocks: Any) -> Apply:
        if not blocks:
            raise ValueError(f"{type(self).__name__}: nothing to stack")
        mats = [as_sparse_variable(b) for b in blocks]
        axis = self.axis
        other = {m.type.shape[1 - axis] for m in mats} - {None}
        if len(other) > 1:
            what = "rows" if axis == 1 else "columns"
            raise ValueError(f"{type(self).__name__}: All matrices must have the same number "
                             f"of {what} (got {sorted(other)})")
        lengths = [m.type.shape[axis] for m in mats]
        total = None if None in lengths else sum(lengths)
        keep = next(iter(other)) if other else None
        shape = (keep, total) if axis == 1 else (total, keep)
        return Apply(self, mats, [SparseTensorType(self.format, self.dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        join = sp.hstack if self.axis == 1 else sp.vstack
        res = join(list(inputs), format=self.format, dtype=self.dtype)
        out[0][0] = _build(self.format)(res)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        gz = gout[0]
        res, start = [], 0
        for b in inputs:
            n = dense_from_sparse(b).shape[self.axis]
            index = (slice(start, start + n),) if self.axis == 0 else (
                slice(None), slice(start, start + n))
            res.append(get_item_2d(gz, index))
            start = start + n
        return res

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        total = shapes[0][self.axis]
        for s in shapes[1:]:
            total = total + s[self.axis]
        other = shapes[0][1 - self.axis]
        return [(other, total) if self.axis == 1 else (total, other)]


class HStack(Stack):
    axis = 1


class VStack(Stack):
    axis = 0


def _stack(cls: type, blocks: Sequence, format: str | None, dtype: Any) -> Variable:
    mats = [as_sparse_variable(b) for b in blocks]
    if dtype is None:
        dtype = np.result_type(*[m.type.dtype for m in mats]).name
    return cls(format=format, dtype=dtype)(*mats)


def hstack(blocks: Sequence, format: str | None = None, dtype: Any = None) -> Variable:
    """Sparse blocks joined column-wise (scipy.sparse.hstack)."""
    return _stack(HStack, blocks, format, dtype)


def vstack(blocks: Sequence, format: str | None = None, dtype: Any = None) -> Variable:
    """Sparse blocks joined row-wise (scipy.sparse.vstack)."""
    return _stack(VStack, blocks, format, dtype)


class _RepackInPlace(Op):
    """A sparse matrix through one of scipy's in-place methods (``_method``): on a copy,
    or on ``x`` itself when ``inplace`` (declared as ``_inplace_map``)."""

    __props__ = ("inplace",)
    _method = ""
    _inplace_map = "destroy_map"

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = inplace
        if inplace:
            setattr(self, self._inplace_map, {0: [0]})

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x = inputs[0] if self.inplace else inputs[0].copy()
        getattr(x, self._method)()
        out[0][0] = x

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        return [gout[0]]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]

    def __str__(self) -> str:
        return f"{type(self).__name__}{{inplace}}" if self.inplace else type(self).__name__


class EnsureSortedIndices(_RepackInPlace):
    """A copy of ``x`` (or ``x`` itself, ``inplace``) with sorted indices."""

    _method = "sort_indices"
    _inplace_map = "view_map"  # the same matrix, its indices reordered


ensure_sorted_indices = EnsureSortedIndices(inplace=False)
"""``ensure_sorted_indices``: A copy of ``x`` (or ``x`` itself, ``inplace``) with sorted indices."""


class Remove0(_RepackInPlace):
    """``x`` without its explicitly stored zeros."""

    _method = "eliminate_zeros"


remove0 = Remove0()
"""``remove0``: ``x`` without its explicitly stored zeros."""


def clean(x: Any) -> Variable:
    """``x`` with sorted indices and no explicit zeros."""
    return ensure_sorted_indices(remove0(x))


class ConstructSparseFromList(Op):
    """A CSC matrix shaped like dense ``x`` whose rows ``ilist`` hold ``values``' rows."""

    __props__ = ()

    def make_node(self, x: Any, values: Any, ilist: Any) -> Apply:
        x_, values_ = as_tensor_variable(x), as_tensor_variable(values)
        ilist_ = _index_vector(ilist, "ConstructSparseFromList")
        if x_.type.ndim != 2:
            raise TypeError(f"cannot create a sparse matrix with {x_.type.ndim} dimensions")
        if values_.type.ndim != 2:
            raise TypeError(
                f"cannot create a sparse matrix from values with {values_.type.ndim} ndim")
        out = SparseTensorType("csc", x_.type.dtype)()
        return Apply(self, [x_.shape, values_, ilist_], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        shape, values, ilist = inputs
        rows, cols = values.shape
        if rows != len(ilist):
            raise ValueError(
                f"ConstructSparseFromList: {rows} rows of values for {len(ilist)} indices")
        data = values.T.reshape(-1)
        indices = np.tile(np.asarray(ilist), cols)
        indptr = np.arange(cols + 1) * rows
        res = sp.csc_matrix((data, indices, indptr), shape=tuple(shape), dtype=values.dtype)
        out[0][0] = res.astype(node.outputs[0].type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        x = node.inputs[0]
        return [(x[0], x[1])]

    def connection_pattern(self, node: Apply) -> list:
        return [[True], [True], [False]]

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        g = gout[0]
        gy = advanced_subtensor1(dense_from_sparse(g), inputs[2])
        return [g, gy, disconnected_type()]


construct_sparse_from_list = ConstructSparseFromList()
"""``construct_sparse_from_list``: A CSC matrix shaped like dense ``x`` whose rows ``ilist`` hold
``values``' rows."""
