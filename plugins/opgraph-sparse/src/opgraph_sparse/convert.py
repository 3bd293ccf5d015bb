"""Sparse variables: constructors, dtype lists and the dense/sparse/CSM conversions.

``CSMProperties`` splits a CSR/CSC matrix into ``(data, indices, indptr,
shape)``; ``CSM`` builds one back; their gradients flow through ``data``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.gradient import DisconnectedType, disconnected_type
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.scalar import upcast
from opgraph.tensor.basic import as_tensor_variable
from opgraph.tensor.type import TensorType, get_floatX, ivector
from opgraph.utils import lazy_scipy_module
from opgraph_sparse.type import SparseTensorType

sp = lazy_scipy_module("sparse")  # SciPy loads when a sparse value is first used

sparse_formats = ["csc", "csr"]
"""The formats most sparse Ops accept."""
all_dtypes = list(SparseTensorType.dtype_specs_map)
"""The dtypes a sparse matrix may have."""
complex_dtypes = [t for t in all_dtypes if t.startswith("complex")]
"""The complex sparse dtypes."""
float_dtypes = [t for t in all_dtypes if t.startswith("float")]
"""The floating-point sparse dtypes."""
int_dtypes = [t for t in all_dtypes if t.startswith("int")]
"""The signed integer sparse dtypes."""
uint_dtypes = [t for t in all_dtypes if t.startswith("uint")]
"""The unsigned integer sparse dtypes."""
integer_dtypes = int_dtypes + uint_dtypes
"""The integer sparse dtypes (signed and unsigned)."""
continuous_dtypes = complex_dtypes + float_dtypes
"""The complex and floating-point sparse dtypes."""
discrete_dtypes = int_dtypes + uint_dtypes
"""The integer sparse dtypes."""


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def _is_sparse_variable(x: Any) -> bool:
    """True for a sparse Variable, False for a dense tensor Variable."""
    if not isinstance(x, Variable):
        raise NotImplementedError(
            f"_is_sparse_variable: expected a Variable, got {type(x).__name__}")
    return isinstance(x.type, SparseTensorType)


def _is_dense_variable(x: Any) -> bool:
    """True for a dense tensor Variable, False for a sparse one."""
    if not isinstance(x, Variable):
        raise NotImplementedError(
            f"_is_dense_variable: expected a Variable, got {type(x).__name__}")
    return isinstance(x.type, TensorType)


def _is_dense(x: Any) -> bool:
    """True for an ndarray, False for a scipy sparse matrix."""
    if not isinstance(x, sp.spmatrix | sp.sparray | np.ndarray):
        raise NotImplementedError(
            f"_is_dense: expected an ndarray or a scipy.sparse matrix, got {type(x).__name__}")
    return isinstance(x, np.ndarray)


def as_sparse_variable(x: Any, name: str | None = None, ndim: int | None = None,
                       **kwargs: Any) -> Variable:
    """``x`` as a sparse Variable: a sparse Variable itself, or a constant of a scipy matrix."""
    if isinstance(x, Apply):
        if len(x.outputs) != 1:
            raise ValueError(f"as_sparse_variable: {x} has several outputs; pick one")
        x = x.outputs[0]
    if isinstance(x, Variable):
        if isinstance(x.type, SparseTensorType):
            return x
        raise TypeError(
            f"as_sparse_variable: {_name(x)} has type {x.type}; expected a sparse variable "
            "(use csr_from_dense/csc_from_dense to convert a dense one)"
        )
    if sp.issparse(x):
        value = x if x.format in ("csr", "csc") else x.tocsr()
        if not isinstance(value, sp.spmatrix):
            value = (sp.csr_matrix if value.format == "csr" else sp.csc_matrix)(value)
        stype = SparseTensorType(value.format, value.dtype, shape=value.shape)
        return stype.make_constant(value.copy(), name=name)
    raise TypeError(
        f"as_sparse_variable: expected a sparse Variable or a scipy.sparse matrix, got "
        f"{type(x).__name__}"
    )


as_sparse = as_sparse_variable


def as_symbolic_sparse(x: Any, **kwargs: Any) -> Variable:
    """PyTensor's spelling of :func:`as_sparse_variable`."""
    return as_sparse_variable(x, **kwargs)


def as_sparse_or_tensor_variable(x: Any, name: str | None = None, **kwargs: Any) -> Variable:
    """A sparse variable for sparse input, a tensor variable otherwise."""
    if sp.issparse(x) or (isinstance(x, Variable) and isinstance(x.type, SparseTensorType)):
        return as_sparse_variable(x, name)
    return as_tensor_variable(x, name=name)


def matrix(format: str, name: str | None = None, dtype: Any = None,
           shape: Any = None) -> Variable:
    """A symbolic sparse matrix of ``format`` ("csr", "csc" or "bsr")."""
    return SparseTensorType(format, dtype or get_floatX(), shape=shape)(name)


def csr_matrix(name: str | None = None, dtype: Any = None, shape: Any = None) -> Variable:
    """A symbolic CSR matrix."""
    return matrix("csr", name, dtype, shape)


def csc_matrix(name: str | None = None, dtype: Any = None, shape: Any = None) -> Variable:
    """A symbolic CSC matrix."""
    return matrix("csc", name, dtype, shape)


def bsr_matrix(name: str | None = None, dtype: Any = None) -> Variable:
    """A symbolic BSR matrix (few Ops accept this format)."""
    return matrix("bsr", name, dtype)


csc_dmatrix = SparseTensorType("csc", "float64")
csr_dmatrix = SparseTensorType("csr", "float64")
bsr_dmatrix = SparseTensorType("bsr", "float64")
csc_fmatrix = SparseTensorType("csc", "float32")
csr_fmatrix = SparseTensorType("csr", "float32")
bsr_fmatrix = SparseTensorType("bsr", "float32")


def _int_input(value: Any, what: str) -> Variable:
    if not isinstance(value, Variable):
        arr = np.asarray(value)
        as32 = arr.astype("int32")
        if arr.size and not (arr == as32).all():
            raise ValueError(f"CSM: {what} does not fit in int32")
        value = as32
    var = as_tensor_variable(value)
    if var.type.ndim != 1 or var.type.dtype not in discrete_dtypes:
        raise TypeError(f"CSM: {what} must be a vector of integers, got {var.type}")
    return var


class CSMProperties(Op):
    """``(data, indices, indptr, shape)`` of a CSR or CSC matrix."""

    __props__ = ()
    view_map = {0: [0], 1: [0], 2: [0]}

    def __init__(self, kmap: Any = None) -> None:
        if kmap is not None:
            raise ValueError("CSMProperties: kmap is not supported")

    def make_node(self, csm: Any) -> Apply:
        csm = as_sparse_variable(csm)
        if csm.type.format not in ("csr", "csc"):
            raise TypeError(f"CSMProperties: {_name(csm)} must be csr or csc, got {csm.type}")
        data = TensorType(csm.type.dtype, (None,))()
        return Apply(self, [csm], [data, ivector(), ivector(), ivector()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        (csm,) = inputs
        out[0][0] = np.asarray(csm.data)
        out[1][0] = np.asarray(csm.indices, dtype="int32")
        out[2][0] = np.asarray(csm.indptr, dtype="int32")
        out[3][0] = np.asarray(csm.shape, dtype="int32")

    def pullback(self, inputs: Sequence, outputs: Sequence, g: Sequence) -> list:
        (csm,) = inputs
        if isinstance(g[0].type, DisconnectedType):
            return [sp_zeros_like(csm)]
        _data, indices, indptr, shape = csm_properties(csm)
        return [CSM(csm.type.format)(g[0], indices, indptr, shape)]


csm_properties = CSMProperties()
"""``csm_properties``: ``(data, indices, indptr, shape)`` of a CSR or CSC matrix."""


def csm_data(csm: Any) -> Variable:
    """The stored values of a CSR/CSC matrix."""
    return csm_properties(csm)[0]


def csm_indices(csm: Any) -> Variable:
    """The row (CSC) or column (CSR) indices of a CSR/CSC matrix."""
    return csm_properties(csm)[1]


def csm_indptr(csm: Any) -> Variable:
    """The index pointer of a CSR/CSC matrix."""
    return csm_properties(csm)[2]


def csm_shape(csm: Any) -> Variable:
    """The shape of a CSR/CSC matrix as an int32 vector."""
    return csm_properties(csm)[3]


class CSM(Op):
    """A CSR or CSC matrix from ``(data, indices, indptr, shape)``."""

    __props__ = ("format",)

    def __init__(self, format: str, kmap: Any = None) -> None:
        if format not in ("csr", "csc"):
            raise ValueError(f"CSM: format must be 'csr' or 'csc', got {format!r}")
        if kmap is not None:
            raise ValueError("CSM: kmap is not supported")
        self.format = format
        self.view_map = {0: [0]}

    def make_node(self, data: Any, indices: Any, indptr: Any, shape: Any) -> Apply:
        data = as_tensor_variable(data)
        if data.type.ndim != 1:
            raise TypeError(f"CSM: data argument must be a vector, got {data.type}")
        indices = _int_input(indices, "indices")
        indptr = _int_input(indptr, "indptr")
        shape = _int_input(shape, "shape")
        static = (None, None)
        if shape.owner is not None and isinstance(shape.owner.op, CSMProperties):
            static = shape.owner.inputs[0].type.shape
        out = SparseTensorType(self.format, data.type.dtype, shape=static)()
        return Apply(self, [data, indices, indptr, shape], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        data, indices, indptr, shape = inputs
        if len(shape) != 2:
            raise ValueError(f"CSM: shape must have 2 entries, got {len(shape)}")
        if data.shape != indices.shape:
            raise ValueError(
                f"CSM: data (shape {data.shape}) must have as many elements as indices "
                f"(shape {indices.shape})")
        build = sp.csc_matrix if self.format == "csc" else sp.csr_matrix
        out[0][0] = build((data, indices.copy(), indptr.copy()), tuple(int(s) for s in shape),
                          copy=False)

    def connection_pattern(self, node: Apply) -> list:
        return [[True], [False], [False], [False]]

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        x_data, x_indices, x_indptr, x_shape = inputs
        g_data, g_indices, g_indptr, g_shape = csm_properties(gout[0])
        gx = CSMGrad()(x_data, x_indices, x_indptr, x_shape, g_data, g_indices, g_indptr,
                       g_shape)
        return [gx, disconnected_type(), disconnected_type(), disconnected_type()]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [(node.inputs[3][0], node.inputs[3][1])]


CSC = CSM("csc")
"""``CSC(data, indices, indptr, shape)``: a CSC matrix from its parts."""
CSR = CSM("csr")
"""``CSR(data, indices, indptr, shape)``: a CSR matrix from its parts."""


class CSMGrad(Op):
    """The gradient of ``CSM`` w.r.t. ``data``: ``g``'s values at ``x``'s stored entries."""

    __props__ = ()

    def __init__(self, kmap: Any = None) -> None:
        if kmap is not None:
            raise ValueError("CSMGrad: kmap is not supported")
        self.view_map = {}

    def make_node(self, x_data: Any, x_indices: Any, x_indptr: Any, x_shape: Any,
                  g_data: Any, g_indices: Any, g_indptr: Any, g_shape: Any) -> Apply:
        ins = [as_tensor_variable(v) for v in
               (x_data, x_indices, x_indptr, x_shape, g_data, g_indices, g_indptr, g_shape)]
        return Apply(self, ins, [ins[4].type()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x_data, x_indices, x_indptr, _x_shape, g_data, g_indices, g_indptr, _g_shape = inputs
        # Both matrices are read row-major (their compressed axis): match entries by
        # (outer, inner) position; duplicates in g are summed.
        g_outer = np.repeat(np.arange(len(g_indptr) - 1), np.diff(g_indptr))
        lookup: dict = {}
        for o, i, v in zip(g_outer.tolist(), g_indices.tolist(), g_data.tolist()):
            lookup[(o, i)] = lookup.get((o, i), 0) + v
        x_outer = np.repeat(np.arange(len(x_indptr) - 1), np.diff(x_indptr))
        res = np.zeros_like(x_data, dtype=node.outputs[0].type.dtype)
        for k, (o, i) in enumerate(zip(x_outer.tolist(), x_indices.tolist())):
            if (o, i) in lookup:
                res[k] = lookup.pop((o, i))
        out[0][0] = res

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[1]]


csm_grad = CSMGrad


class Cast(Op):
    """A sparse matrix with its values cast to ``out_type``."""

    __props__ = ("out_type",)

    def __init__(self, out_type: str) -> None:
        self.out_type = np.dtype(out_type).name

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        out = SparseTensorType(x.type.format, self.out_type, shape=x.type.shape)()
        return Apply(self, [x], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        out[0][0] = inputs[0].astype(self.out_type)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        if inputs[0].type.dtype in continuous_dtypes and self.out_type in continuous_dtypes:
            return [Cast(inputs[0].type.dtype)(gout[0])]
        return [sp_zeros_like(inputs[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return shapes

    def __str__(self) -> str:
        return f"{type(self).__name__}({self.out_type})"


bcast = Cast("int8")
"""``bcast(x)``: sparse ``x`` cast to int8."""
wcast = Cast("int16")
"""``wcast(x)``: sparse ``x`` cast to int16."""
icast = Cast("int32")
"""``icast(x)``: sparse ``x`` cast to int32."""
lcast = Cast("int64")
"""``lcast(x)``: sparse ``x`` cast to int64."""
fcast = Cast("float32")
"""``fcast(x)``: sparse ``x`` cast to float32."""
dcast = Cast("float64")
"""``dcast(x)``: sparse ``x`` cast to float64."""
ccast = Cast("complex64")
"""``ccast(x)``: sparse ``x`` cast to complex64."""
zcast = Cast("complex128")
"""``zcast(x)``: sparse ``x`` cast to complex128."""


def cast(variable: Any, dtype: Any) -> Variable:
    """``variable`` (sparse) with its values cast to ``dtype``."""
    return Cast(dtype)(variable)


class DenseFromSparse(Op):
    """The dense ndarray of a sparse matrix; ``structured`` makes its gradient sparse."""

    __props__ = ()

    def __init__(self, structured: bool = True) -> None:
        self.sparse_grad = structured

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [x.type.dense_type()()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        out[0][0] = np.asarray(inputs[0].toarray())

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        (x,) = inputs
        gz = as_tensor_variable(gout[0])
        if self.sparse_grad:
            return [mul_s_d(sp_ones_like(x), gz)]
        return [SparseFromDense(x.type.format)(gz)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]

    def __str__(self) -> str:
        return f"{type(self).__name__}{{structured_grad={self.sparse_grad}}}"


dense_from_sparse = DenseFromSparse()
"""``dense_from_sparse(x)``: the dense tensor of sparse ``x``."""


class SparseFromDense(Op):
    """A sparse matrix of ``format`` holding a dense matrix's nonzero entries."""

    __props__ = ("format",)

    def __init__(self, format: str) -> None:
        if format not in ("csr", "csc"):
            raise ValueError(f"SparseFromDense: format must be 'csr' or 'csc', got {format!r}")
        self.format = format

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim > 2:
            raise TypeError(f"{self.format}_from_dense: {_name(x)} must be a matrix, got "
                            f"{x.type}")
        if x.type.ndim < 2:
            x = x.dimshuffle(*(["x"] * (2 - x.type.ndim)), *range(x.type.ndim))
        out = SparseTensorType(self.format, x.type.dtype, shape=x.type.shape)
        return Apply(self, [x], [out()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        build = sp.csr_matrix if self.format == "csr" else sp.csc_matrix
        out[0][0] = build(inputs[0])

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        return [dense_from_sparse(gout[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]

    def __str__(self) -> str:
        return f"{type(self).__name__}{{format={self.format}}}"


CSMFromDense = SparseFromDense
csr_from_dense = SparseFromDense("csr")
"""``csr_from_dense(x)``: the CSR matrix of dense matrix ``x``."""
csc_from_dense = SparseFromDense("csc")
"""``csc_from_dense(x)``: the CSC matrix of dense matrix ``x``."""
SparseTensorType.format_from_dense = lambda self, var: SparseFromDense(self.format)(var)


def sp_ones_like(x: Any) -> Variable:
    """A sparse matrix with ``x``'s pattern and ones at every stored entry."""
    x = as_sparse_variable(x)
    data, indices, indptr, shape = csm_properties(x)
    return CSM(x.type.format)(data.ones_like(), indices, indptr, shape)


def sp_zeros_like(x: Any) -> Variable:
    """An all-zero sparse matrix of ``x``'s shape and format (nothing stored)."""
    x = as_sparse_variable(x)
    _data, _indices, indptr, shape = csm_properties(x)
    return CSM(x.type.format)(
        np.array([], dtype=x.type.dtype), np.array([], dtype="int32"),
        indptr.zeros_like(), shape)


class SparseDenseMultiply(Op):
    """``x * y`` at the stored entries of sparse ``x`` (dense ``y`` broadcasts): sparse."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_tensor_variable(y)
        if y.type.ndim not in (0, 2):
            raise ValueError(
                f"mul_s_d: {_name(y)} must have 0 or 2 dimensions, got {y.type.ndim}")
        shape = x.type.shape
        if y.type.ndim == 2:
            for a, b in zip(x.type.shape, y.type.shape):
                if a is not None and b is not None and a != b:
                    raise ValueError(f"mul_s_d: incompatible static shapes {x.type.shape} "
                                     f"and {y.type.shape}")
            shape = tuple(b if a is None else a for a, b in zip(x.type.shape, y.type.shape))
        dtype = upcast(x.type.dtype, y.type.dtype)
        return Apply(self, [x, y], [SparseTensorType(x.type.format, dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        coo = x.tocoo(copy=True)
        vals = np.broadcast_to(y, x.shape)[coo.row, coo.col]
        coo.data = (coo.data * vals).astype(node.outputs[0].type.dtype)
        out[0][0] = coo.asformat(x.format)

    def pullback(self, inputs: Sequence, outputs: Sequence, gout: Sequence) -> list:
        x, y = inputs
        gz = gout[0]
        return [mul_s_d(gz, y), dense_from_sparse(mul_s_d(gz, dense_from_sparse(x)))]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


mul_s_d = SparseDenseMultiply()
"""``mul_s_d``: ``x * y`` at the stored entries of sparse ``x`` (dense ``y`` broadcasts): sparse."""


def __getattr__(name: str) -> Any:
    """PyTensor's ``_mtypes`` (the scipy matrix classes sparse variables hold, CSC and
    CSR) and ``_mtype_to_str`` (class -> format name), made when first read: building
    the rewrite database imports this module, and SciPy should load only for sparse use."""
    if name == "_mtypes":
        return [sp.csc_matrix, sp.csr_matrix]
    if name == "_mtype_to_str":
        return {sp.csc_matrix: "csc", sp.csr_matrix: "csr"}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
