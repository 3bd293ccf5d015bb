"""Linear algebra (opgraph-linalg's Ops, PyTensor's ``tensor.linalg``) via ``jnp.linalg`` and
``jax.scipy.linalg``.  The core Ops act on one matrix; batches come through Blockwise."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
from opgraph.tensor.linalg import (
    LU,
    QR,
    SVD,
    AllocDiag,
    BlockDiagonal,
    Cholesky,
    CholeskySolve,
    Det,
    Eig,
    Eigh,
    Eigvalsh,
    Expm,
    ExtractDiag,
    KroneckerProduct,
    Lstsq,
    LUFactor,
    LUSolve,
    MatrixInverse,
    MatrixPinv,
    PivotToPermutations,
    Schur,
    SLogDet,
    Solve,
    SolveSylvester,
    SolveTriangular,
    TensorInv,
)

from opgraph.graph.basic import Apply
from opgraph_jax.link.dispatch.basic import JAXUnsupportedOpError, jax_funcify

__all__ = ["LINALG_TABLE"]


def _cholesky(op: Cholesky) -> Callable:
    def cholesky(a: Any) -> Any:
        out = jsl.cholesky(a, lower=op.lower)
        if getattr(op, "on_error", "raise") == "nan":
            out = jnp.where(jnp.all(jnp.isfinite(out)), out, jnp.nan)
        return out

    return cholesky


def _solve(op: Solve) -> Callable:
    assume = "pos" if op.assume_a == "pos" else "gen"

    def solve(a: Any, b: Any) -> Any:
        if op.transposed:
            a = jnp.swapaxes(a, -1, -2)
        if op.assume_a in ("sym", "her", "pos"):
            a = jnp.tril(a) + jnp.swapaxes(jnp.tril(a, -1), -1, -2) if op.lower else \
                jnp.triu(a) + jnp.swapaxes(jnp.triu(a, 1), -1, -2)
        return jsl.solve(a, b, assume_a=assume)

    return solve


def _qr(op: QR) -> Callable:
    if op.pivoting:
        raise JAXUnsupportedOpError(f"{op}: jax.scipy.linalg.qr has no pivoting")

    def qr(a: Any) -> Any:
        out = jsl.qr(a, mode=op.mode)
        return list(out) if isinstance(out, tuple | list) else out

    return qr


def _lu(op: LU) -> Callable:
    def lu(a: Any) -> Any:
        p, low, up = jsl.lu(a, permute_l=False)
        if op.permute_l:
            return [p @ low, up]
        if op.p_indices:
            return [jnp.argmax(p, axis=-1), low, up]
        return [p, low, up]

    return lu


def _pivot_to_permutations(op: PivotToPermutations) -> Callable:
    def pivots(piv: Any) -> Any:
        perm = jax.lax.linalg.lu_pivots_to_permutation(piv, piv.shape[-1])
        return jnp.argsort(perm) if op.inverse else perm

    return pivots


LINALG_TABLE: dict[type, Callable[[Any], Callable]] = {
    Cholesky: _cholesky,
    Solve: _solve,
    SolveTriangular: lambda op: lambda a, b: jsl.solve_triangular(
        a, b, trans=op.trans, lower=op.lower, unit_diagonal=op.unit_diagonal),
    CholeskySolve: lambda op: lambda c, b: jsl.cho_solve((c, op.lower), b),
    LUSolve: lambda op: lambda lu, piv, b: jsl.lu_solve((lu, piv), b, trans=op.trans),
    LUFactor: lambda op: lambda a: list(jsl.lu_factor(a)),
    LU: _lu,
    QR: _qr,
    SVD: lambda op: lambda a: (list(jnp.linalg.svd(a, full_matrices=op.full_matrices))
                               if op.compute_uv else
                               jnp.linalg.svd(a, full_matrices=op.full_matrices, compute_uv=False)),
    Eig: lambda op: lambda a: list(jnp.linalg.eig(a)),
    Eigh: lambda op: (lambda a, *b: list(jsl.eigh(a, *b, lower=op.lower))),
    Eigvalsh: lambda op: (lambda a, *b: jsl.eigh(a, *b, lower=op.lower, eigvals_only=True)),
    MatrixInverse: lambda op: jnp.linalg.inv,
    MatrixPinv: lambda op: lambda a: jnp.linalg.pinv(a, hermitian=op.hermitian),
    TensorInv: lambda op: lambda a: jnp.linalg.tensorinv(a, ind=op.ind),
    Det: lambda op: jnp.linalg.det,
    SLogDet: lambda op: lambda a: list(jnp.linalg.slogdet(a)),
    Expm: lambda op: jsl.expm,
    Lstsq: lambda op: lambda a, b, rcond=None: list(jnp.linalg.lstsq(a, b, rcond=rcond)),
    Schur: lambda op: lambda a: list(jsl.schur(a, output=op.output)),
    ExtractDiag: lambda op: lambda x: jnp.diagonal(x, op.offset, op.axis1, op.axis2),
    BlockDiagonal: lambda op: lambda *ms: jsl.block_diag(*ms),
    KroneckerProduct: lambda op: jnp.kron,
    PivotToPermutations: _pivot_to_permutations,
}
"""Linear-algebra Op class -> ``f(op) -> JAX function`` (one table for the module)."""


def _alloc_diag(op: AllocDiag) -> Callable:
    def alloc_diag(values: Any, like: Any) -> Any:
        out = jnp.zeros(jnp.shape(like), dtype=values.dtype)
        view = jnp.moveaxis(out, (op.axis1, op.axis2), (-2, -1))
        n = jnp.shape(values)[-1]
        rows = jnp.arange(n) + max(-op.offset, 0)
        cols = jnp.arange(n) + max(op.offset, 0)
        view = view.at[..., rows, cols].set(values)
        return jnp.moveaxis(view, (-2, -1), (op.axis1, op.axis2))

    return alloc_diag


LINALG_TABLE[AllocDiag] = _alloc_diag


def _sylvester(op: SolveSylvester) -> Callable:
    """``A X + X B = C`` as one linear system in ``vec(X)`` (columns stacked):
    ``(I ⊗ A + B^T ⊗ I) vec(X) = vec(C)``. JAX has no Bartels-Stewart solver; the system
    is differentiated by JAX itself (the matrices of these models are small)."""

    def solve_sylvester(a: Any, b: Any, c: Any) -> Any:
        n, m = a.shape[-1], b.shape[-1]
        dtype = jnp.result_type(a, b, c)
        system = jnp.kron(jnp.eye(m, dtype=dtype), a) + jnp.kron(b.T, jnp.eye(n, dtype=dtype))
        x = jnp.linalg.solve(system, c.T.reshape(-1))
        return x.reshape(m, n).T

    return solve_sylvester


LINALG_TABLE[SolveSylvester] = _sylvester


def _funcify_linalg(op: Any, node: Apply | None = None, **kwargs: Any) -> Callable:
    for cls in type(op).__mro__:
        if cls in LINALG_TABLE:
            return LINALG_TABLE[cls](op)
    raise JAXUnsupportedOpError(f"No JAX conversion for the linear-algebra Op {op}")


for _cls in LINALG_TABLE:
    jax_funcify.register(_cls)(_funcify_linalg)
