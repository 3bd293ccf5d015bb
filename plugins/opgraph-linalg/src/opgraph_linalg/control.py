"""Linear-control equations: solve_sylvester, solve_continuous_lyapunov,
solve_discrete_lyapunov, solve_discrete_are (Blockwise over batches, differentiable)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.autodiff.undefined import is_disconnected as _is_disconnected
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_linalg._util import as_matrix, check_square_static, float_dtype, matrix_transpose
from opgraph_linalg.inverse import matrix_inverse
from opgraph_linalg.products import kron
from opgraph_linalg.solvers import Solve, solve

scipy_linalg = lazy_scipy_module("linalg")  # imported on first use, not at plugin load

__all__ = [
    "SolveDiscreteARE",
    "SolveSylvester",
    "solve_continuous_lyapunov",
    "solve_discrete_are",
    "solve_discrete_lyapunov",
    "solve_sylvester",
]


def _h(x: Variable) -> Variable:
    """Conjugate transpose of the last two axes (transpose for real tensors)."""
    t = matrix_transpose(x)
    return pt.conj(t) if x.type.dtype.startswith("complex") else t


class SolveSylvester(Op):
    """``X`` with ``A X + X B = Q`` (``scipy_linalg.solve_sylvester``)."""

    __props__ = ()
    gufunc_signature = "(m,m),(n,n),(m,n)->(m,n)"

    def make_node(self, a: Any, b: Any, q: Any) -> Apply:
        a, b, q = (pt.as_tensor_variable(v) for v in (a, b, q))
        for name, v in (("A", a), ("B", b), ("Q", q)):
            if v.type.ndim != 2:
                raise ValueError(f"solve_sylvester: the core op takes matrices, {name} is {v.type}")
        dtype = float_dtype(a.type.dtype, b.type.dtype, q.type.dtype)
        return Apply(self, [a, b, q], [TensorType(dtype, q.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b, q = inputs
        x = scipy_linalg.solve_sylvester(a, b, q)
        output_storage[0][0] = np.asarray(x, dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[2])]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (gx,) = cotangents
        if _is_disconnected(gx):
            return [disconnected_type()] * 3
        a, b, _ = inputs
        (x,) = outputs
        # dX solves A dX + dX B = dQ - dA X - X dB; its adjoint is the Sylvester
        # equation with A^H, B^H.
        gq = self(_h(a), _h(b), gx)
        return [-pt.dot(gq, _h(x)), -pt.dot(_h(x), gq), gq]

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> list:
        a, b, _ = inputs
        (x,) = outputs
        ta, tb, tq = tangents
        rhs = None
        for t, term in ((tq, lambda t: t), (ta, lambda t: -pt.dot(t, x)),
                        (tb, lambda t: -pt.dot(x, t))):
            if t is not None and not _is_disconnected(t):
                rhs = term(t) if rhs is None else rhs + term(t)
        return [disconnected_type() if rhs is None else self(a, b, rhs)]


def solve_sylvester(A: Any, B: Any, Q: Any) -> Variable:
    """``X`` with ``A @ X + X @ B = Q`` (batched)."""
    A = as_matrix(A, "solve_sylvester", "A")
    B = as_matrix(B, "solve_sylvester", "B")
    Q = as_matrix(Q, "solve_sylvester", "Q")
    check_square_static(A, "solve_sylvester", "A")
    check_square_static(B, "solve_sylvester", "B")
    return Blockwise(SolveSylvester())(A, B, Q)


def solve_continuous_lyapunov(A: Any, Q: Any) -> Variable:
    """``X`` with ``A @ X + X @ A^H = Q`` (``scipy_linalg.solve_continuous_lyapunov``)."""
    A = as_matrix(A, "solve_continuous_lyapunov", "A")
    return solve_sylvester(A, _h(A), Q)


def solve_discrete_lyapunov(A: Any, Q: Any, method: str = "bilinear") -> Variable:
    """``X`` with ``A @ X @ A^H - X + Q = 0`` (``scipy_linalg.solve_discrete_lyapunov``).

    ``method="direct"`` solves the ``n^2`` linear system (small matrices);
    ``"bilinear"`` maps the problem to a continuous Lyapunov equation.
    """
    if method not in ("direct", "bilinear"):
        raise ValueError(
            f"solve_discrete_lyapunov: method must be 'direct' or 'bilinear', got {method!r}"
        )
    A = as_matrix(A, "solve_discrete_lyapunov", "A")
    Q = as_matrix(Q, "solve_discrete_lyapunov", "Q")
    check_square_static(A, "solve_discrete_lyapunov", "A")
    if method == "direct":
        return _discrete_direct(A, Q)
    n = A.shape[-1]
    eye = pt.eye(n, dtype=A.type.dtype)
    ah = _h(A)
    ahi_inv = matrix_inverse(ah + eye)
    b = pt.matmul(ah - eye, ahi_inv)
    c = 2 * pt.matmul(pt.matmul(matrix_inverse(A + eye), Q), ahi_inv)
    return solve_continuous_lyapunov(_h(b), -c)


def _discrete_direct(A: Variable, Q: Variable) -> Variable:
    """vec(X) = (I - kron(A, conj(A)))^-1 vec(Q), one matrix at a time."""

    def core(a: Variable, q: Variable) -> Variable:
        n = a.shape[0]
        conj_a = pt.conj(a) if a.type.dtype.startswith("complex") else a
        lhs = pt.eye(n * n, dtype=a.type.dtype) - kron(a, conj_a)
        vec = solve(lhs, pt.reshape(q, (-1,), ndim=1), b_ndim=1)
        return pt.reshape(vec, pt.stack([n, n]), ndim=2)

    return pt.vectorize(core, signature="(m,m),(m,m)->(m,m)")(A, Q)


class SolveDiscreteARE(Op):
    """The stabilising solution ``X`` of the discrete algebraic Riccati equation
    ``A^T X A - X - A^T X B (R + B^T X B)^-1 B^T X A + Q = 0``."""

    __props__ = ()
    gufunc_signature = "(m,m),(m,n),(m,m),(n,n)->(m,m)"

    def make_node(self, a: Any, b: Any, q: Any, r: Any) -> Apply:
        ins = [pt.as_tensor_variable(v) for v in (a, b, q, r)]
        for name, v in zip("ABQR", ins):
            if v.type.ndim != 2:
                raise ValueError(
                    f"solve_discrete_are: the core op takes matrices, {name} is {v.type}"
                )
        dtype = float_dtype(*(v.type.dtype for v in ins))
        return Apply(self, ins, [TensorType(dtype, ins[0].type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b, q, r = inputs
        # Q and R are read through their symmetric parts (the gradient is symmetric too),
        # so a finite-difference step off the symmetric matrices is defined, as in PyTensor
        x = scipy_linalg.solve_discrete_are(a, b, 0.5 * (q + q.T), 0.5 * (r + r.T))
        output_storage[0][0] = np.asarray(x, dtype=node.outputs[0].type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        (gx,) = cotangents
        if _is_disconnected(gx):
            return [disconnected_type()] * 4
        a, b, _, r = inputs
        (x,) = outputs
        # K = (R + B^T X B)^-1 B^T X A and the closed loop Acl = A - B K; dX solves
        # dX = Acl^T dX Acl + dQ + K^T dR K + (dA - dB K)^T X Acl + Acl^T X (dA - dB K),
        # so the adjoint S solves S = Acl S Acl^T + sym(gX).
        btx = pt.dot(b.T, x)
        k = Solve(b_ndim=2)(r + pt.dot(btx, b), pt.dot(btx, a))
        acl = a - pt.dot(b, k)
        s = solve_discrete_lyapunov(acl, 0.5 * (gx + gx.T), method="direct")
        xas = pt.dot(pt.dot(x, acl), s)
        return [2 * xas, -2 * pt.dot(xas, k.T), s, pt.dot(pt.dot(k, s), k.T)]


def solve_discrete_are(A: Any, B: Any, Q: Any, R: Any) -> Variable:
    """``X`` solving the discrete algebraic Riccati equation (``scipy.linalg``), batched."""
    A = as_matrix(A, "solve_discrete_are", "A")
    check_square_static(A, "solve_discrete_are", "A")
    return Blockwise(SolveDiscreteARE())(A, B, Q, R)
