"""The BLAS rewrites (``opgraph.tensor.rewriting.blas``): products as BLAS calls.

``BlasOpt`` (first in phase post_specialize: specialize's rewrites still see ``dot``):

1. ``local_dot_to_dot22``: a float matrix-matrix ``dot``/``matmul`` -> ``Dot22``.
2. ``gemm_optimizer``: sums of scaled products -> ``Gemm``/``Gemv`` (blas_gemm.py).
3. ``local_gemm_to_gemv`` (equilibrium): Gemm/Dot22 on a row or column ->
   ``Gemv``; Gemm of an outer product -> ``Ger``; the remaining matrix-vector ``dot``
   -> ``Gemv`` into uninitialised memory (``beta = 0``).  A vector-vector
   ``dot`` stays one ``ddot`` (as a Gemv it took 3x as long per call).
4. ``local_dot22_to_dot22scalar``: ``a * Dot22`` -> ``Dot22Scalar``.

``specialize_matmul_to_batched_dot`` (specialize): a batched ``matmul``
without broadcast batch axes -> ``BatchedDot``.  In the inplace phase,
``InplaceBlasOpt`` makes Gemm/Gemv/Ger write into their first input where
the DestroyHandler allows it.  ``c_blas`` (post_specialize) names the
Gemv/Ger nodes the C backend runs ``CGemv``/``CGer``, as PyTensor does.
Tags: ``fast_run`` and ``blas``; ``mode.excluding("BlasOpt")`` keeps the dots.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.graph.rewriting.walking import EquilibriumGraphRewriter, in2out
from opgraph.graph.utils import InconsistencyError
from opgraph.scalar.type import upcast
from opgraph.tensor.basic import AllocEmpty
from opgraph.tensor.blas import (
    Dot22,
    Gemm,
    Gemv,
    Ger,
    gemm_inplace,
    gemm_no_inplace,
    gemv_inplace,
    gemv_no_inplace,
    ger,
    ger_destructive,
)
from opgraph.tensor.blas import batched_dot_op as _batched_dot
from opgraph.tensor.blas import dot22 as _dot22
from opgraph.tensor.blas import dot22scalar as _dot22scalar
from opgraph.tensor.blas_c import CGemv, CGer
from opgraph.tensor.constant_value import get_underlying_scalar_constant_value
from opgraph.tensor.contractions import prod_of
from opgraph.tensor.creation import zeros
from opgraph.tensor.exceptions import NotScalarConstantError
from opgraph.tensor.math import mul
from opgraph.tensor.products import Dot, MatMul
from opgraph.tensor.shape import shape_i
from opgraph.tensor.ufuncs import cast
from opgraph_rewrites.blas_gemm import (
    GemmOptimizer,
    _as_scalar,
    _factor_canonicalized,
    _gemm_canonicalize,
    _is_real_matrix,
    _is_real_vector,
    res_is_a,
)
from opgraph_rewrites.db import SequenceDB
from opgraph_rewrites.elemwise import local_dimshuffle_lift
from opgraph_rewrites.swap import NodeSwapRewriter
from opgraph_rewrites.utils import keep_type, tensor_constant

__all__ = [
    "GemmOptimizer",
    "_as_scalar",
    "_factor_canonicalized",
    "_gemm_canonicalize",
    "_is_real_matrix",
    "_is_real_vector",
    "blas_opt_inplace",
    "local_dot22_to_dot22scalar",
    "local_dot22_to_ger_or_gemv",
    "local_dot_to_dot22",
    "local_dot_to_gemv",
    "local_gemm_to_gemv",
    "local_gemm_to_ger",
    "register_blas_opt",
    "res_is_a",
    "specialize_matmul_to_batched_dot",
    "use_c_gemv",
    "use_c_ger",
]

_BLAS_DTYPES = ("float16", "float32", "float64", "complex64", "complex128")


def _same_blas_dtype(x: Variable, y: Variable) -> bool:
    return x.type.dtype == y.type.dtype and x.type.dtype in _BLAS_DTYPES


def _fixed(node: Apply, new: Variable) -> list | None:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else None


@node_rewriter([Dot, MatMul], name="local_dot_to_dot22")
def local_dot_to_dot22(fgraph: Any, node: Apply) -> list | None:
    """``dot(x, y)`` of two float matrices of one dtype -> ``Dot22(x, y)``."""
    x, y = node.inputs
    if x.type.ndim != 2 or y.type.ndim != 2 or not _same_blas_dtype(x, y):
        return None
    if node.outputs[0].type.dtype != x.type.dtype:
        return None
    return _fixed(node, _dot22(x, y))


def _one(dtype: str) -> Variable:
    return tensor_constant(1, dtype)


def _zero(dtype: str) -> Variable:
    return tensor_constant(0, dtype)


def _gemv_product(A: Variable, x: Variable, rows: Any) -> Variable:
    """``A @ x`` as ``Gemv`` into uninitialised memory (``beta = 0`` never reads it)."""
    dt = A.type.dtype
    return gemv_no_inplace(AllocEmpty(dt)(rows), _one(dt), A, x, _zero(dt))


@node_rewriter([Dot, MatMul], name="local_dot_to_gemv")
def local_dot_to_gemv(fgraph: Any, node: Apply) -> list | None:
    """Matrix-vector and vector-matrix ``dot`` -> ``Gemv`` (``beta = 0``, ``y`` never read)."""
    x, y = node.inputs
    if not _same_blas_dtype(x, y) or node.outputs[0].type.dtype != x.type.dtype:
        return None
    nds = (x.type.ndim, y.type.ndim)
    if nds == (2, 1):
        new = _gemv_product(x, y, shape_i(x, 0))
    elif nds == (1, 2):
        new = _gemv_product(y.T, x, shape_i(y, 1))
    else:  # vector . vector stays a dot: one BLAS ddot, no output buffer to allocate
        return None
    return _fixed(node, new)


@node_rewriter([Gemm], name="local_gemm_to_gemv")
def local_gemm_to_gemv(fgraph: Any, node: Apply) -> list | None:
    """Gemm on a row (``z``, ``x`` of one row) or a column -> Gemv."""
    if node.op.inplace:
        return None
    z, a, x, y, b = node.inputs
    if z.type.broadcastable == x.type.broadcastable == (True, False):
        new = gemv_no_inplace(z.dimshuffle(1), a, y.T, x.dimshuffle(1), b).dimshuffle("x", 0)
    elif z.type.broadcastable == y.type.broadcastable == (False, True):
        new = gemv_no_inplace(z.dimshuffle(0), a, x, y.dimshuffle(0), b).dimshuffle(0, "x")
    else:
        return None
    return _fixed(node, new)


@node_rewriter([Gemm], name="local_gemm_to_ger")
def local_gemm_to_ger(fgraph: Any, node: Apply) -> list | None:
    """Gemm of a column by a row (an outer product) with ``b`` 0 or 1 -> Ger."""
    if node.op.inplace:
        return None
    z, a, x, y, b = node.inputs
    if not (x.type.broadcastable[1] and y.type.broadcastable[0]):
        return None
    try:
        bval = get_underlying_scalar_constant_value(b)
    except NotScalarConstantError:
        return None
    xv, yv = x.dimshuffle(0), y.dimshuffle(1)
    if bval == 1:
        new = ger(z, a, xv, yv)
    elif bval == 0:
        new = ger(zeros((shape_i(x, 0), shape_i(y, 1)), dtype=x.type.dtype), a, xv, yv)
    else:
        return None
    return _fixed(node, new)


@node_rewriter([Dot22], name="local_dot22_to_ger_or_gemv")
def local_dot22_to_ger_or_gemv(fgraph: Any, node: Apply) -> list | None:
    """Dot22 with a row (column) operand -> Gemv.

    A column times a row (an outer product) stays a Dot22: in C it is one
    gemm writing each output once, where Ger would first zero the output.
    An outer product added to a matrix becomes Ger through Gemm.
    """
    x, y = node.inputs
    xb, yb = x.type.broadcastable, y.type.broadcastable
    if xb[1] and yb[0]:
        return None
    if xb[0] and not yb[0]:
        new = _gemv_product(y.T, x.dimshuffle(1), shape_i(y, 1)).dimshuffle("x", 0)
    elif not xb[1] and yb[1] and not xb[0]:
        new = _gemv_product(x, y.dimshuffle(0), shape_i(x, 0)).dimshuffle(0, "x")
    else:
        return None
    return _fixed(node, new)


def _scalar_factor(var: Variable, dtype: str) -> Variable | None:
    """``var`` as a 0-d factor of ``dtype`` for Dot22Scalar, or None."""
    s = _as_scalar(var, dtype=dtype)
    if s is None or upcast(s.type.dtype, dtype) != dtype:
        return None
    return s if s.type.dtype == dtype else cast(s, dtype)


@node_rewriter([mul], name="local_dot22_to_dot22scalar")
def local_dot22_to_dot22scalar(fgraph: Any, node: Apply) -> list | None:
    """``mul(s, ..., Dot22(x, y))`` -> ``mul(..., Dot22Scalar(x, y, s))``.

    The scalar may also sit one level down, in a ``mul`` factor of the product.
    """
    inputs = list(node.inputs)
    k = next((i for i, v in enumerate(inputs)
              if v.owner is not None and v.owner.op == _dot22), None)
    if k is None:
        return None
    d = inputs[k]
    dt = d.type.dtype
    others = [v for i, v in enumerate(inputs) if i != k]
    for i, v in enumerate(others):
        s = _scalar_factor(v, dt)
        if s is not None:
            rest = others[:i] + others[i + 1:]
            new = _dot22scalar(*d.owner.inputs, s)
            return _fixed(node, mul(new, *rest) if rest else new)
    for i, v in enumerate(others):
        if v.owner is None or v.owner.op != mul:
            continue
        inner = v.owner.inputs
        for j, w in enumerate(inner):
            s = _scalar_factor(w, dt)
            if s is None:
                continue
            new = _dot22scalar(*d.owner.inputs, s)
            rest = others[:i] + others[i + 1:] + list(inner[:j]) + list(inner[j + 1:])
            return _fixed(node, mul(new, *rest) if rest else new)
    return None


@node_rewriter([MatMul], name="specialize_matmul_to_batched_dot")
def specialize_matmul_to_batched_dot(fgraph: Any, node: Apply) -> list | None:
    """A >= 3-d ``matmul`` -> ``BatchedDot`` on raveled batch axes, without copying y.

    Batch axes both operands have (same broadcast pattern) are raveled into
    BatchedDot's one batch axis.  Leading batch axes only ``x`` has (``y``
    broadcasts over them) are moved into x's rows: ``x[a, b] @ y[b]`` is
    row block ``a`` of ``x[:, b]`` stacked, times ``y[b]``.
    """
    x, y = node.inputs
    bx, by = x.type.ndim - 2, y.type.ndim - 2
    if bx < 1 or by < 1 or by > bx:
        return None
    na = bx - by
    if x.type.broadcastable[na:bx] != y.type.broadcastable[:by]:
        return None
    xs = [shape_i(x, i) for i in range(x.type.ndim)]
    ys = [shape_i(y, i) for i in range(y.type.ndim)]
    m, k, n = xs[-2], xs[-1], ys[-1]
    if na:
        x = x.dimshuffle(*range(na, bx), *range(na), bx, bx + 1)
    x3 = x if (by == 1 and not na) else x.reshape((prod_of(xs[na:bx]), -1, k))
    y3 = y if by == 1 else y.reshape((prod_of(ys[:by]), k, n))
    new = _batched_dot(x3, y3)
    if na or by > 1:
        new = new.reshape((*xs[na:bx], *xs[:na], m, n))
    if na:
        new = new.dimshuffle(*range(by, bx), *range(by), bx, bx + 1)
    return _fixed(node, new)


class _Swap(NodeSwapRewriter):
    """Swaps nodes whose Op is a key of ``table`` for the twin Op, where safe."""

    def __init__(self, name: str, table: dict) -> None:
        self.name = name
        self.table = table

    def twin_outputs(self, fgraph: Any, node: Apply) -> list | None:
        twin = self.table.get(node.op)
        if twin is None:
            return None
        try:
            return twin.make_node(*node.inputs).outputs
        except InconsistencyError:  # Gemm: z shares memory with x or y
            return None


blas_opt_inplace = _Swap("blas_opt_inplace", {
    gemm_no_inplace: gemm_inplace, gemv_no_inplace: gemv_inplace, ger: ger_destructive})
c_blas_destructive = _Swap("c_blas_destructive", {
    CGemv(inplace=False): CGemv(inplace=True), CGer(destructive=False): CGer(destructive=True)})


@node_rewriter([Gemv], name="use_c_gemv")
def use_c_gemv(fgraph: Any, node: Apply) -> list | None:
    """Gemv -> CGemv (the same computation, the name PyTensor's C backend uses)."""
    if type(node.op) is not Gemv or node.outputs[0].type.dtype not in ("float32", "float64"):
        return None
    return CGemv(inplace=node.op.inplace).make_node(*node.inputs).outputs


@node_rewriter([Ger], name="use_c_ger")
def use_c_ger(fgraph: Any, node: Apply) -> list | None:
    """Ger -> CGer (the same computation, the name PyTensor's C backend uses)."""
    if type(node.op) is not Ger or node.outputs[0].type.dtype not in ("float32", "float64"):
        return None
    return CGer(destructive=node.op.destructive).make_node(*node.inputs).outputs


def register_blas_opt(db: Any) -> None:
    """Add ``BlasOpt``, ``use_c_blas`` and ``InplaceBlasOpt`` to ``db``."""
    seq = SequenceDB(name="BlasOpt")
    seq.register("local_dot_to_dot22", in2out(local_dot_to_dot22, name="local_dot_to_dot22"),
                 "fast_run", position=0)
    seq.register("gemm_optimizer", GemmOptimizer(), "fast_run", position=10)
    seq.register("local_gemm_to_gemv", EquilibriumGraphRewriter(
        [local_gemm_to_gemv, local_gemm_to_ger, local_dot22_to_ger_or_gemv, local_dot_to_gemv,
         local_dimshuffle_lift], max_use_ratio=5, name="local_gemm_to_gemv"),
        "fast_run", position=11)
    seq.register("local_dot22_to_dot22scalar",
                 in2out(local_dot22_to_dot22scalar, name="local_dot22_to_dot22scalar"),
                 "fast_run", position=12)
    db.register("BlasOpt", seq, "fast_run", "blas", phase="post_specialize")
    db["specialize"].register("specialize_matmul_to_batched_dot",
                              specialize_matmul_to_batched_dot, "fast_run", "blas")
    db.register("use_c_blas", in2out(use_c_gemv, use_c_ger, name="use_c_blas"), "fast_run",
                "c_blas", phase="post_specialize")
    db.register("InplaceBlasOpt", blas_opt_inplace, "fast_run", "inplace", "blas_opt_inplace",
                phase="inplace")
    db.register("c_blas_destructive", c_blas_destructive, "fast_run", "inplace", "c_blas",
                phase="inplace")
