"""Decompositions: cholesky, eigh/eigvalsh/eig, svd, qr, lu/lu_factor.

Core Ops take one matrix; the functions wrap them in Blockwise so a stack of
matrices works the same.  Every Op that reads one triangle of a symmetric
input (cholesky, eigh, eigvalsh) differentiates with respect to that triangle
only, which is what finite differences on the raw input measure.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.assumptions import LOWER_TRIANGULAR, UPPER_TRIANGULAR, FactState, register_assumption
from opgraph.autodiff.undefined import is_disconnected as _is_disconnected
from opgraph.gradient import grad_not_implemented
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.raise_op import CheckAndRaise
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_linalg._util import (
    as_matrix,
    check_square_static,
    check_square_value,
    float_dtype,
    matrix_transpose,
    triangle,
    triangle_grad,
)
from opgraph_linalg.cholesky_grad import CholeskyPullback, _strict_lower_half_diag
from opgraph_linalg.solvers import SolveTriangular

scipy_linalg = lazy_scipy_module("linalg")  # imported on first use, not at plugin load

__all__ = [
    "Cholesky",
    "Eig",
    "Eigh",
    "Eigvalsh",
    "cholesky",
    "eig",
    "eigh",
    "eigvalsh",
]


def _live(g: Any) -> bool:
    return g is not None and not _is_disconnected(g)


def _square_node(op: Op, x: Any, who: str, outputs: Sequence[TensorType]) -> Apply:
    x = as_matrix(x, who, "a")
    if x.type.ndim != 2:
        raise ValueError(f"{who}: the core op takes one matrix, got {x.type} (use {who}())")
    check_square_static(x, who, "a")
    return Apply(op, [x], [t() for t in outputs])


# --------------------------------------------------------------------------- cholesky


class Cholesky(Op):
    """Cholesky factor of a symmetric positive definite matrix (one triangle is read)."""

    __props__ = ("lower", "check_finite", "on_error", "overwrite_a")
    gufunc_signature = "(m,m)->(m,m)"

    def __init__(self, *, lower: bool = True, check_finite: bool = False,
                 on_error: str = "nan", overwrite_a: bool = False) -> None:
        if on_error not in ("raise", "nan"):
            raise ValueError(f"cholesky: on_error must be 'raise' or 'nan', got {on_error!r}")
        self.lower = bool(lower)
        self.check_finite = bool(check_finite)
        self.on_error = on_error
        self.overwrite_a = bool(overwrite_a)

    def make_node(self, x: Any) -> Apply:
        x = pt.as_tensor_variable(x)
        t = TensorType(float_dtype(x.type.dtype), x.type.shape)
        return _square_node(self, x, "cholesky", [t])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        check_square_value(a, "cholesky", "a")
        dtype = node.outputs[0].type.numpy_dtype
        try:
            out = scipy_linalg.cholesky(a, lower=self.lower, check_finite=self.check_finite)
        except np.linalg.LinAlgError as exc:
            if self.on_error == "nan":
                out = np.full(a.shape, np.nan)
            else:
                raise np.linalg.LinAlgError(
                    f"cholesky: the matrix is not positive definite ({exc}); pass "
                    f"on_error='nan' to get NaNs instead"
                ) from None
        output_storage[0][0] = np.asarray(out, dtype=dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (gz,) = cotangents
        if not _live(gz):
            return [disconnected_type()]
        (chol,) = outputs
        return [CholeskyPullback(self.lower)(chol, gz)]

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> list:
        (t,) = tangents
        if not _live(t):
            return [disconnected_type()]
        (chol,) = outputs
        low = chol if self.lower else chol.T
        off = -1 if self.lower else 1
        ds = triangle(t, 0, self.lower) + matrix_transpose(triangle(t, off, self.lower))
        solve_l = SolveTriangular(lower=True, check_finite=False, b_ndim=2)
        m = solve_l(low, solve_l(low, ds).T)  # L^-1 dS L^-T (dS symmetric)
        dl = pt.dot(low, _strict_lower_half_diag(m))
        return [dl if self.lower else dl.T]


def cholesky(x: Any, lower: bool = True, *, check_finite: bool = False,
             overwrite_a: bool = False, on_error: str = "nan") -> Variable:
    """Cholesky factor of ``x`` (or of each matrix in a batch); see ``scipy_linalg.cholesky``.

    A matrix that is not positive definite gives NaNs (``on_error="nan"``, the
    default, as in PyTensor 3); ``on_error="raise"`` raises ``LinAlgError``
    instead and, as in PyTensor, warns that the option is deprecated.
    """
    x = as_matrix(x, "cholesky", "x")
    check_square_static(x, "cholesky", "x")
    if on_error not in ("raise", "nan"):
        raise ValueError(f"cholesky: on_error must be 'raise' or 'nan', got {on_error!r}")
    if on_error == "raise":
        warnings.warn(
            'cholesky: on_error="raise" is deprecated (as in PyTensor 3): the default '
            '"nan" returns NaNs for a matrix that is not positive definite',
            FutureWarning,
            stacklevel=2,
        )
    # The factor is NaN for a failed matrix; "raise" checks that value after the Op (as
    # PyTensor 3 does), so gradients, which do not go through the check, stay NaN.
    op = Cholesky(lower=lower, check_finite=check_finite, on_error="nan",
                  overwrite_a=overwrite_a)
    res = Blockwise(op)(x)
    if on_error == "raise":
        res = CheckAndRaise(
            np.linalg.LinAlgError,
            "cholesky: the matrix is not positive definite; pass on_error='nan' to get NaNs "
            "instead",
        )(res, ~pt.any(pt.isnan(res)))
    return res


# --------------------------------------------------------------------------- eigen


def _eig_weights(w: Variable) -> Variable:
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    diff = w[None, :] - w[:, None]
    eye = pt.eq(pt.arange(w.shape[0])[:, None], pt.arange(w.shape[0])[None, :])
    one = pt.constant(1.0, dtype=w.type.dtype)
    return pt.switch(eye, pt.zeros_like(diff), one / pt.switch(eye, one, diff))


def _real_dtype(dtype: str) -> str:
    return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)


def _cholesky_facts(key: Any, op: Cholesky, feature: Any, fgraph: Any, node: Apply,
                    input_states: Sequence[FactState]) -> list[FactState]:
    """A Cholesky factor is lower (``lower=True``) or upper triangular."""
    side = LOWER_TRIANGULAR if op.lower else UPPER_TRIANGULAR
    return [FactState.TRUE if key == side else FactState.UNKNOWN]


for _key in (LOWER_TRIANGULAR, UPPER_TRIANGULAR):
    register_assumption(_key, Cholesky)(_cholesky_facts)


EIGH_DRIVERS = ("evr", "evd")


class Eigh(Op):
    """Eigenvalues (ascending) and eigenvectors of a symmetric (Hermitian) matrix, or
    of the pencil ``a v = w b v`` with ``b`` positive definite when ``generalized``.

    ``driver`` picks LAPACK's routine for the standard problem, as PyTensor's:
    ``"evr"`` (relatively robust representations, SciPy's default) or ``"evd"``
    (divide and conquer, what NumPy and JAX use); the pencil always uses
    divide and conquer.
    """

    __props__ = ("lower", "generalized", "driver")

    def __init__(self, lower: bool = True, generalized: bool = False,
                 driver: str = "evr") -> None:
        if driver not in EIGH_DRIVERS:
            raise ValueError(f"Eigh: driver must be one of {EIGH_DRIVERS}, got {driver!r}")
        self.lower = bool(lower)
        self.generalized = bool(generalized)
        self.driver = "evd" if self.generalized else driver

    @property
    def gufunc_signature(self) -> str:
        return "(m,m),(m,m)->(m),(m,m)" if self.generalized else "(m,m)->(m),(m,m)"

    @property
    def UPLO(self) -> str:
        return "L" if self.lower else "U"

    def make_node(self, a: Any, b: Any = None) -> Apply:
        a = as_matrix(a, "eigh", "a")
        check_square_static(a, "eigh", "a")
        inputs = [a]
        if self.generalized:
            if b is None:
                raise TypeError("eigh: the generalized op needs b")
            b = as_matrix(b, "eigh", "b")
            check_square_static(b, "eigh", "b")
            inputs.append(b)
        elif b is not None:
            raise TypeError("eigh: this op takes one matrix; use Eigh(generalized=True)")
        if any(x.type.ndim != 2 for x in inputs):
            raise ValueError("eigh: the core op takes matrices (use eigh(), which batches)")
        dtype = float_dtype(*(x.type.dtype for x in inputs))
        m = a.type.shape[-1]
        outs = [TensorType(_real_dtype(dtype), (m,))(), TensorType(dtype, a.type.shape)()]
        return Apply(self, inputs, outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        check_square_value(inputs[0], "eigh", "a")
        if self.generalized:
            w, v = scipy_linalg.eigh(inputs[0], inputs[1], lower=self.lower)
        elif self.driver == "evd":
            w, v = np.linalg.eigh(inputs[0], UPLO=self.UPLO)
        else:
            w, v = scipy_linalg.eigh(inputs[0], lower=self.lower, driver="evr",
                                     check_finite=False)
        output_storage[0][0] = np.asarray(w, dtype=node.outputs[0].type.numpy_dtype)
        output_storage[1][0] = np.asarray(v, dtype=node.outputs[1].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        shp = input_shapes[0]
        return [(shp[0],), tuple(shp)]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        w, v = outputs
        gw, gv = cotangents
        if not _live(gw) and not _live(gv):
            return [disconnected_type()] * len(inputs)
        n = w.shape[0]
        eye = pt.eq(pt.arange(n)[:, None], pt.arange(n)[None, :])
        zero = pt.zeros_like(_eig_weights(w))
        # K = diag(gw) + F o (V^T gV): gA = V K V^T (and gB = -V (K W + diag(V^T gV)/2) V^T)
        k = zero
        vtgv = None
        if _live(gw):
            k = k + pt.switch(eye, gw[:, None] + zero, zero)
        if _live(gv):
            vtgv = pt.dot(v.T, gv)
            k = k + _eig_weights(w) * vtgv
        grads = [triangle_grad(pt.dot(pt.dot(v, k), v.T), self.lower)]
        if self.generalized:
            inner = k * w[None, :]
            if vtgv is not None:
                inner = inner + 0.5 * pt.switch(eye, vtgv, zero)
            grads.append(triangle_grad(-pt.dot(pt.dot(v, inner), v.T), self.lower))
        return grads


def eigh(a: Any, b: Any = None, lower: bool = True, UPLO: str | None = None,
         driver: str = "evr") -> list[Variable]:
    """``(w, v)`` of symmetric ``a`` (or of ``a v = w b v``), as ``scipy_linalg.eigh``.

    Only the ``lower`` (or upper) triangle is read; ``UPLO="L"/"U"`` is
    accepted too, as in ``numpy.linalg.eigh``. ``driver`` is ``"evr"`` or
    ``"evd"`` (see :class:`Eigh`).
    """
    if UPLO is not None:
        if UPLO not in ("L", "U"):
            raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
        lower = UPLO == "L"
    a = as_matrix(a, "eigh", "a")
    check_square_static(a, "eigh", "a")
    if b is None:
        return Blockwise(Eigh(lower, driver=driver))(a)
    return Blockwise(Eigh(lower, generalized=True, driver=driver))(a, b)


class Eigvalsh(Op):
    """Eigenvalues of a symmetric matrix, or of the pencil ``(a, b)`` when ``generalized``."""

    __props__ = ("lower", "generalized")

    def __init__(self, lower: bool = True, generalized: bool = False) -> None:
        self.lower = bool(lower)
        self.generalized = bool(generalized)

    @property
    def gufunc_signature(self) -> str:
        return "(m,m),(m,m)->(m)" if self.generalized else "(m,m)->(m)"

    def make_node(self, a: Any, b: Any = None) -> Apply:
        a = as_matrix(a, "eigvalsh", "a")
        check_square_static(a, "eigvalsh", "a")
        inputs = [a]
        dtypes = [a.type.dtype]
        if self.generalized:
            if b is None:
                raise TypeError("eigvalsh: the generalized op needs b")
            b = as_matrix(b, "eigvalsh", "b")
            check_square_static(b, "eigvalsh", "b")
            inputs.append(b)
            dtypes.append(b.type.dtype)
        elif b is not None:
            raise TypeError("eigvalsh: this op takes one matrix; use Eigvalsh(generalized=True)")
        out = TensorType(_real_dtype(float_dtype(*dtypes)), (a.type.shape[-1],))()
        return Apply(self, inputs, [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a = inputs[0]
        b = inputs[1] if self.generalized else None
        check_square_value(a, "eigvalsh", "a")
        w = scipy_linalg.eigh(a, b, lower=self.lower, eigvals_only=True)
        output_storage[0][0] = np.asarray(w, dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [(input_shapes[0][0],)]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (gw,) = cotangents
        if not _live(gw):
            return [disconnected_type()] * len(inputs)
        return EigvalshGrad(self.lower, self.generalized)(*inputs, gw, return_list=True)


class EigvalshGrad(Op):
    """Gradients of eigvalsh: ``a``: V diag(gw) V^T, ``b``: -V diag(gw w) V^T, by triangle."""

    __props__ = ("lower", "generalized")
    inputs_note = "a[, b], gw"

    def __init__(self, lower: bool, generalized: bool) -> None:
        self.lower = bool(lower)
        self.generalized = bool(generalized)

    def make_node(self, *inputs: Any) -> Apply:
        ins = [pt.as_tensor_variable(x) for x in inputs]
        mats = ins[:-1]
        return Apply(self, ins, [m.type() for m in mats])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        *mats, gw = inputs
        w, v = scipy_linalg.eigh(*mats, lower=self.lower)
        grads = [(v * gw) @ v.T]
        if self.generalized:
            grads.append(-(v * (gw * w)) @ v.T)
        tri = np.tril if self.lower else np.triu
        for k, g in enumerate(grads):
            masked = tri(g + g.T) - np.diag(np.diag(g))
            output_storage[k][0] = np.asarray(masked, dtype=node.outputs[k].type.numpy_dtype)


def eigvalsh(a: Any, b: Any = None, lower: bool = True) -> Variable:
    """Eigenvalues of symmetric ``a`` (or of ``a v = w b v``); ``scipy_linalg.eigvalsh``."""
    if b is None:
        return Blockwise(Eigvalsh(lower))(a)
    return Blockwise(Eigvalsh(lower, generalized=True))(a, b)


class Eig(Op):
    """Eigenvalues and right eigenvectors of a general matrix (complex results)."""

    __props__ = ()
    gufunc_signature = "(m,m)->(m),(m,m)"

    def make_node(self, x: Any) -> Apply:
        x = pt.as_tensor_variable(x)
        dtype = "complex64" if x.type.dtype in ("float32", "complex64") else "complex128"
        m = x.type.shape[-1] if x.type.ndim else None
        outs = [TensorType(dtype, (m,)), TensorType(dtype, x.type.shape)]
        return _square_node(self, x, "eig", outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        check_square_value(a, "eig", "a")
        w, v = np.linalg.eig(a)
        output_storage[0][0] = np.asarray(w, dtype=node.outputs[0].type.numpy_dtype)
        output_storage[1][0] = np.asarray(v, dtype=node.outputs[1].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        (shp,) = input_shapes
        return [(shp[0],), tuple(shp)]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        return [grad_not_implemented(self, 0, inputs[0], "Use eigh for symmetric matrices.")]


def eig(a: Any) -> list[Variable]:
    """``(w, v)`` of a general square matrix (``numpy.linalg.eig``); complex results."""
    a = as_matrix(a, "eig", "a")
    check_square_static(a, "eig", "a")
    return Blockwise(Eig())(a)
