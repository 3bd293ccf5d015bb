"""PyTensor's ``pytensor.sparse.rewriting``: sparse rewrites and the specialised Ops
they introduce.

PyTensor gives the specialised Ops (``StructuredDotCSC``, ``UsmmCscDense``,
``MulSDCSR``, ...) C code; here they run NumPy/SciPy ``perform`` code with the
same inputs and results, so graphs rewritten the PyTensor way compute the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.graph.rewriting.walking import in2out
from opgraph.scalar import upcast
from opgraph.tensor.basic import as_tensor_variable
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_sparse.arith import AddSD, SparseDenseVectorMultiply, StructuredAddSV
from opgraph_sparse.convert import (
    CSM,
    CSMGrad,
    CSMProperties,
    DenseFromSparse,
    SparseDenseMultiply,
    SparseFromDense,
    _is_dense_variable,
    _is_sparse_variable,
    csm_properties,
)
from opgraph_sparse.products import StructuredDot, Usmm, usmm
from opgraph_sparse.structure import Remove0

sp = lazy_scipy_module("sparse")  # SciPy loads when a sparse value is first used

__all__ = [
    "AddSD_ccode", "CSMGradC", "MulSDCSC", "MulSDCSR", "MulSVCSR", "SamplingDotCSR",
    "StructuredAddSVCSR", "StructuredDotCSC", "StructuredDotCSR", "UsmmCscDense",
    "csm_grad_c", "mul_s_d_csc", "mul_s_d_csr", "mul_s_v_csr", "register_rewrites",
    "sampling_dot_csr", "sd_csc", "sd_csr", "structured_add_s_v_csr", "usmm",
    "usmm_csc_dense", "usmm_csc_dense_inplace",
]


class AddSD_ccode(Op):
    """Sparse (of ``format``) + dense: dense; ``inplace`` writes into the dense input."""

    __props__ = ("format", "inplace")

    def __init__(self, format: str, inplace: bool = False) -> None:
        self.format = format
        self.inplace = inplace
        if inplace:
            self.destroy_map = {0: [3]}

    def make_node(self, x: Any, y: Any) -> Apply:
        return Apply(self, [x, y], [TensorType(upcast(x.type.dtype, y.type.dtype),
                                               y.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        out[0][0] = np.asarray(x + y, dtype=node.outputs[0].type.dtype)


class CSMGradC(CSMGrad):
    """``CSMGrad`` as PyTensor's specialised (C) Op; the same computation."""


csm_grad_c = CSMGradC()


def _outer_of(indptr: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))


class StructuredDotCSC(Op):
    """``A @ b`` for ``A`` given as CSC parts ``(a_val, a_ind, a_ptr, a_nrows)``."""

    __props__ = ()

    def make_node(self, a_val: Any, a_ind: Any, a_ptr: Any, a_nrows: Any, b: Any) -> Apply:
        ins = [as_tensor_variable(v) for v in (a_val, a_ind, a_ptr, a_nrows, b)]
        dtype = upcast(ins[0].type.dtype, ins[4].type.dtype)
        return Apply(self, ins, [TensorType(dtype, (None, ins[4].type.shape[1]))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        a_val, a_ind, a_ptr, a_nrows, b = inputs
        a = sp.csc_matrix((a_val, a_ind, a_ptr), (int(a_nrows), b.shape[0]))
        out[0][0] = np.asarray(a @ b, dtype=node.outputs[0].type.dtype)


class StructuredDotCSR(Op):
    """``A @ b`` for ``A`` given as CSR parts ``(a_val, a_ind, a_ptr)``."""

    __props__ = ()

    def make_node(self, a_val: Any, a_ind: Any, a_ptr: Any, b: Any) -> Apply:
        ins = [as_tensor_variable(v) for v in (a_val, a_ind, a_ptr, b)]
        dtype = upcast(ins[0].type.dtype, ins[3].type.dtype)
        return Apply(self, ins, [TensorType(dtype, (None, ins[3].type.shape[1]))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        a_val, a_ind, a_ptr, b = inputs
        a = sp.csr_matrix((a_val, a_ind, a_ptr), (len(a_ptr) - 1, b.shape[0]))
        out[0][0] = np.asarray(a @ b, dtype=node.outputs[0].type.dtype)


sd_csc = StructuredDotCSC()
sd_csr = StructuredDotCSR()


class UsmmCscDense(Op):
    """``z + alpha * (X @ y)`` with ``X`` as CSC parts; ``inplace`` overwrites ``z``."""

    __props__ = ("inplace",)

    def __init__(self, inplace: bool) -> None:
        self.inplace = inplace
        if inplace:
            self.destroy_map = {0: [6]}

    def make_node(self, alpha: Any, x_val: Any, x_ind: Any, x_ptr: Any, x_nrows: Any,
                  y: Any, z: Any) -> Apply:
        ins = [as_tensor_variable(v) for v in (alpha, x_val, x_ind, x_ptr, x_nrows, y, z)]
        dtype = upcast(*(ins[i].type.dtype for i in (0, 1, 5, 6)))
        return Apply(self, ins, [TensorType(dtype, (None, None))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        alpha, x_val, x_ind, x_ptr, x_nrows, y, z = inputs
        x = sp.csc_matrix((x_val, x_ind, x_ptr), (int(x_nrows), y.shape[0]))
        res = np.asarray(x @ y) * alpha
        dtype = node.outputs[0].type.dtype
        if self.inplace and z.dtype == dtype:
            z += res.astype(dtype)
            out[0][0] = z
        else:
            out[0][0] = np.asarray(z + res, dtype=dtype)

    def __str__(self) -> str:
        return f"UsmmCscDense{{{'inplace' if self.inplace else 'no_inplace'}}}"


usmm_csc_dense = UsmmCscDense(inplace=False)
usmm_csc_dense_inplace = UsmmCscDense(inplace=True)


class _MulSD(Op):
    """The stored values of sparse ``a`` (parts) times dense ``b`` at their positions."""

    __props__ = ()
    csr = True

    def make_node(self, a_data: Any, a_indices: Any, a_indptr: Any, b: Any) -> Apply:
        ins = [as_tensor_variable(v) for v in (a_data, a_indices, a_indptr, b)]
        dtype = upcast(ins[0].type.dtype, ins[3].type.dtype)
        return Apply(self, ins, [TensorType(dtype, (None,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        data, indices, indptr, b = inputs
        outer = _outer_of(indptr)
        rows, cols = (outer, indices) if self.csr else (indices, outer)
        out[0][0] = (data * b[rows, cols]).astype(node.outputs[0].type.dtype)


class MulSDCSC(_MulSD):
    csr = False


class MulSDCSR(_MulSD):
    csr = True


mul_s_d_csc = MulSDCSC()
mul_s_d_csr = MulSDCSR()


class _CSRValuesWithVector(Op):
    """The stored values of a CSR matrix (parts) combined (``_combine``) with vector ``b``
    at their columns."""

    __props__ = ()

    @staticmethod
    def _combine(data: np.ndarray, at_columns: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def make_node(self, a_data: Any, a_indices: Any, a_indptr: Any, b: Any) -> Apply:
        ins = [as_tensor_variable(v) for v in (a_data, a_indices, a_indptr, b)]
        return Apply(self, ins, [TensorType(upcast(ins[0].type.dtype, ins[3].type.dtype),
                                            (None,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        data, indices, _indptr, b = inputs
        out[0][0] = self._combine(data, b[indices]).astype(node.outputs[0].type.dtype)


class MulSVCSR(_CSRValuesWithVector):
    """The stored values of a CSR matrix (parts) times vector ``b`` at their columns."""

    _combine = staticmethod(np.multiply)


mul_s_v_csr = MulSVCSR()


class StructuredAddSVCSR(_CSRValuesWithVector):
    """The stored values of a CSR matrix (parts) plus vector ``b`` at their columns."""

    _combine = staticmethod(np.add)


structured_add_s_v_csr = StructuredAddSVCSR()


class SamplingDotCSR(Op):
    """``sampling_dot`` for a CSR pattern given as parts: ``(data, indices, indptr)``."""

    __props__ = ()

    def make_node(self, x: Any, y: Any, p_data: Any, p_ind: Any, p_ptr: Any,
                  p_ncols: Any) -> Apply:
        ins = [as_tensor_variable(v) for v in (x, y, p_data, p_ind, p_ptr, p_ncols)]
        dtype = upcast(ins[0].type.dtype, ins[1].type.dtype, ins[2].type.dtype)
        return Apply(self, ins, [TensorType(dtype, (None,))(), ins[3].type(), ins[4].type()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y, p_data, p_ind, p_ptr, _p_ncols = inputs
        rows = _outer_of(p_ptr)
        vals = np.einsum("ij,ij->i", x[rows], y[p_ind]) if len(rows) else np.zeros(0)
        out[0][0] = (p_data * vals).astype(node.outputs[0].type.dtype)
        out[1][0] = p_ind.copy()
        out[2][0] = p_ptr.copy()


sampling_dot_csr = SamplingDotCSR()


@node_rewriter([CSMProperties])
def local_csm_properties_csm(fgraph: Any, node: Apply) -> Any:
    """``csm_properties(CSM(data, indices, indptr, shape))`` is those four inputs."""
    x = node.inputs[0]
    if x.owner is not None and x not in fgraph.inputs and isinstance(x.owner.op, CSM):
        return list(x.owner.inputs)
    return None


@node_rewriter([Remove0])
def local_inplace_remove0(fgraph: Any, node: Apply) -> Any:
    """``Remove0`` that may overwrite its input (an intermediate nothing else reads)."""
    x = node.inputs[0]
    dh = getattr(fgraph, "destroy_handler", None)
    if dh is None or len(fgraph.clients.get(x, ())) != 1 or x in fgraph.outputs:
        return None
    for root in dh.get_roots(x):
        if dh.is_protected(root) or root in fgraph.outputs or (
                root is not x and len(fgraph.clients.get(root, ())) != 1):
            return None
    if not node.op.inplace:
        return [Remove0(inplace=True)(node.inputs[0])]
    return None


@node_rewriter([DenseFromSparse])
def local_dense_from_sparse_sparse_from_dense(fgraph: Any, node: Apply) -> Any:
    """``dense_from_sparse(csr_from_dense(x))`` is ``x``."""
    x = node.inputs[0]
    if (x.owner is not None and x not in fgraph.inputs
            and isinstance(x.owner.op, SparseFromDense)):
        return [x.owner.inputs[0]]
    return None


@node_rewriter([StructuredDot])
def local_structured_dot(fgraph: Any, node: Apply) -> Any:
    """``structured_dot(sparse, dense)`` on the CSC/CSR parts (``sd_csc``/``sd_csr``)."""
    a, b = node.inputs
    if not (_is_sparse_variable(a) and _is_dense_variable(b)):
        return None
    data, ind, ptr, shape = csm_properties(a)
    if a.type.format == "csc":
        out = sd_csc(data, ind, ptr, shape[0], b)
    elif a.type.format == "csr":
        out = sd_csr(data, ind, ptr, b)
    else:
        return None
    return [out.astype(node.outputs[0].type.dtype)]


@node_rewriter([Usmm])
def local_usmm_csx(fgraph: Any, node: Apply) -> Any:
    """``usmm(alpha, csc, dense, z)`` on the CSC parts (``UsmmCscDense``)."""
    alpha, x, y, z = node.inputs
    if not (_is_sparse_variable(x) and x.type.format == "csc" and _is_dense_variable(y)):
        return None
    dtype = node.outputs[0].type.dtype
    if y.type.dtype != dtype or dtype not in ("float32", "float64"):
        return None
    data, ind, ptr, shape = csm_properties(x)
    return [usmm_csc_dense(alpha, data, ind, ptr, shape[0], y, z)]


@node_rewriter([SparseDenseMultiply])
def local_mul_s_d(fgraph: Any, node: Apply) -> Any:
    """``mul_s_d`` on the stored values (``mul_s_d_csc``/``mul_s_d_csr``)."""
    x, y = node.inputs
    if y.type.ndim != 2 or x.type.format not in ("csr", "csc"):
        return None
    data, ind, ptr, shape = csm_properties(x)
    mul = mul_s_d_csr if x.type.format == "csr" else mul_s_d_csc
    build = CSM(x.type.format)
    return [build(mul(data, ind, ptr, y).astype(node.outputs[0].type.dtype), ind, ptr, shape)]


@node_rewriter([SparseDenseVectorMultiply])
def local_mul_s_v(fgraph: Any, node: Apply) -> Any:
    """``mul_s_v`` of a CSR matrix on the stored values (``mul_s_v_csr``)."""
    x, y = node.inputs
    if x.type.format != "csr":
        return None
    data, ind, ptr, shape = csm_properties(x)
    return [CSM("csr")(mul_s_v_csr(data, ind, ptr, y).astype(x.type.dtype), ind, ptr, shape)]


@node_rewriter([StructuredAddSV])
def local_structured_add_s_v(fgraph: Any, node: Apply) -> Any:
    """``structured_add_s_v`` of a CSR matrix on the stored values."""
    x, y = node.inputs
    if x.type.format != "csr":
        return None
    data, ind, ptr, shape = csm_properties(x)
    vals = structured_add_s_v_csr(data, ind, ptr, y).astype(x.type.dtype)
    return [CSM("csr")(vals, ind, ptr, shape)]


@node_rewriter([AddSD])
def local_addsd_ccode(fgraph: Any, node: Apply) -> Any:
    """``AddSD`` as PyTensor's specialised ``AddSD_ccode``."""
    x, y = node.inputs
    if x.type.format not in ("csr", "csc"):
        return None
    return [AddSD_ccode(x.type.format)(x, y)]




def register_rewrites(db: Any) -> None:
    """Register the sparse rewrites under PyTensor's names (specialize phase)."""
    db.register("local_csm_properties_csm", in2out(local_csm_properties_csm),
                "fast_compile", "fast_run", phase="canonicalize")
    db.register("local_dense_from_sparse_sparse_from_dense",
                in2out(local_dense_from_sparse_sparse_from_dense), "fast_run",
                phase="specialize")
    db.register("local_inplace_remove0", in2out(local_inplace_remove0), "fast_run",
                "inplace", phase="inplace", before=("inplace_elemwise",))
    # They make the Ops whose point is their C code (CSC/CSR-specific products): tagged
    # cxx_only, as PyTensor tags most of them, so backends without C (JAX) keep the
    # general Ops they translate.
    for name, rw in (("local_structured_dot", local_structured_dot),
                     ("local_usmm_csx", local_usmm_csx), ("local_mul_s_d", local_mul_s_d),
                     ("local_mul_s_v", local_mul_s_v),
                     ("local_structured_add_s_v", local_structured_add_s_v),
                     ("local_addsd_ccode", local_addsd_ccode)):
        db.register(name, in2out(rw), "fast_run", "cxx_only", phase="specialize")
