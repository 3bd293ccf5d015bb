"""Closed forms of decompositions of a diagonal matrix (PyTensor's ``*_of_diag``).

A matrix is diagonal when the assumption system says so (``alloc_diag(d)``,
``eye(n) * x``, ``assume(x, diagonal=True)``, ...). Each rewrite replaces the
LAPACK call by what it returns for such a matrix, written with the diagonal
``d``:

- ``cholesky_of_diag``: ``diag(sqrt(d))``; a matrix broadcast over both axes
  (1x1): ``sqrt(x)``
- ``eigh_of_diag``: ``w = sort(d)``, ``v = I[:, argsort(d)]``; generalized
  ``eigh(A, B)``: ``w = sort(a / b)``, columns ``e_i / sqrt(b_i)``
- ``eigvalsh_of_diag``: ``sort(d)`` (``sort(a / b)`` generalized)
- ``svd_of_diag``: ``s = sort(|d|)`` descending, ``u = I[:, idx]``,
  ``vh = sign(d[idx])[:, None] * I[idx]``
- ``lu_of_diag`` / ``lu_factor_of_diag``: ``P = L = I``, ``U = D``; pivots
  ``arange(n)``
- ``qr_of_diag``: ``Q = I``, ``R = D`` (LAPACK's values; ``raw``: ``D``, zeros,
  ``D``); not with column pivoting
- ``schur_of_diag`` / ``qz_of_diag``: the inputs and identities, or with
  ``sort`` the selected eigenvalues moved first by a permutation

Sorting rewrites apply to single matrices (no batch axes); the others to any batch.
"""

from __future__ import annotations

from typing import Any

import opgraph.tensor as pt
from opgraph.assumptions import DIAGONAL
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.blockwise import Blockwise
from opgraph_linalg.constructors import alloc_diag, diagonal
from opgraph_linalg.decomposition import Cholesky, Eigh, Eigvalsh
from opgraph_linalg.factor import LU, QR, SVD, LUFactor
from opgraph_linalg.rewrites_structure import _feature, _like
from opgraph_linalg.schur_decomp import QZ, Schur

__all__ = [
    "cholesky_of_diag",
    "eigh_of_diag",
    "eigvalsh_of_diag",
    "is_diagonal",
    "lu_factor_of_diag",
    "lu_of_diag",
    "qr_of_diag",
    "qz_of_diag",
    "register_diag_rewrites",
    "schur_of_diag",
    "svd_of_diag",
]


def _core_op(node: Apply, cls: Any) -> Any:
    op = node.op.core_op if isinstance(node.op, Blockwise) else node.op
    return op if isinstance(op, cls) else None


def is_diagonal(fgraph: Any, var: Variable) -> bool:
    """``var`` is known (stacked) diagonal matrices."""
    return var.type.ndim >= 2 and _feature(fgraph).check(var, DIAGONAL)


def _d(x: Variable, dtype: str | None = None) -> Variable:
    d = diagonal(x, axis1=-2, axis2=-1)
    return d if dtype is None or d.type.dtype == dtype else pt.cast(d, dtype)


def _diag_matrix(d: Variable) -> Variable:
    return alloc_diag(d, axis1=-2, axis2=-1)


def _eye(x: Variable, dtype: str) -> Variable:
    return pt.eye(x.shape[-1], dtype=dtype)


def _out(new: list[Variable], node: Apply) -> list[Variable]:
    return [_like(n, o) for n, o in zip(new, node.outputs, strict=True)]


@node_rewriter([Blockwise])
def cholesky_of_diag(fgraph: Any, node: Apply) -> Any:
    """cholesky(D) -> diag(sqrt(diagonal(D)))."""
    if _core_op(node, Cholesky) is None:
        return None
    x = node.inputs[0]
    if all(x.type.broadcastable[-2:]):
        return _out([pt.sqrt(x)], node)
    if not is_diagonal(fgraph, x):
        return None
    return _out([_diag_matrix(pt.sqrt(_d(x)))], node)


@node_rewriter([Blockwise])
def eigh_of_diag(fgraph: Any, node: Apply) -> Any:
    """eigh(D) -> (sort(d), I[:, argsort(d)]); eigh(A, B) for diagonal A, B likewise."""
    if _core_op(node, Eigh) is None or node.inputs[0].type.ndim != 2:
        return None
    if not all(is_diagonal(fgraph, i) for i in node.inputs):
        return None
    dtype = node.outputs[0].type.dtype
    vals = _d(node.inputs[0], dtype)
    scale = None
    if len(node.inputs) == 2:
        db = _d(node.inputs[1], dtype)
        vals = vals / db
    idx = pt.argsort(vals)
    v = _eye(node.inputs[0], dtype)[:, idx]
    if len(node.inputs) == 2:
        scale = pt.sqrt(db[idx])
        v = v / scale
    return _out([vals[idx], v], node)


@node_rewriter([Blockwise])
def eigvalsh_of_diag(fgraph: Any, node: Apply) -> Any:
    """eigvalsh(D) -> sort(d); eigvalsh(A, B) for diagonal A, B -> sort(a / b)."""
    if _core_op(node, Eigvalsh) is None:
        return None
    if not all(is_diagonal(fgraph, i) for i in node.inputs):
        return None
    vals = _d(node.inputs[0])
    if len(node.inputs) == 2:
        vals = vals / _d(node.inputs[1])
    return _out([pt.sort(vals, axis=-1)], node)


@node_rewriter([Blockwise])
def svd_of_diag(fgraph: Any, node: Apply) -> Any:
    """svd(D): singular values |d| sorted descending, u and vh permutations (signed)."""
    op = _core_op(node, SVD)
    x = node.inputs[0]
    if op is None or x.type.ndim != 2 or not is_diagonal(fgraph, x):
        return None
    dtype = node.outputs[-1].type.dtype if not op.compute_uv else node.outputs[1].type.dtype
    d = _d(x)
    absd = pt.abs(d)
    idx = pt.argsort(-absd)
    s = pt.cast(absd[idx], dtype)
    if not op.compute_uv:
        return _out([s], node)
    mat_dtype = node.outputs[0].type.dtype
    u = _eye(x, mat_dtype)[:, idx]
    # row j of vh is sign(d[idx[j]]) e_idx[j]: D = u diag(s) vh (PyTensor 3.0.7 permutes
    # the columns instead, which does not reconstruct D; see docs/migrating.md)
    vh = pt.shape_padright(pt.cast(pt.sign(d[idx]), mat_dtype)) * _eye(x, mat_dtype)[idx]
    return _out([u, s, vh], node)


@node_rewriter([Blockwise])
def lu_of_diag(fgraph: Any, node: Apply) -> Any:
    """lu(D) -> (I, I, D) (``permute_l``: (I, D); ``p_indices``: (arange(n), I, D))."""
    op = _core_op(node, LU)
    x = node.inputs[0]
    if op is None or not is_diagonal(fgraph, x):
        return None
    dtype = node.outputs[-1].type.dtype
    u = pt.cast(x, dtype) if x.type.dtype != dtype else x
    eye = _eye(x, dtype)
    if op.permute_l:
        return _out([eye, u], node)
    if op.p_indices:
        p = pt.arange(x.shape[-1], dtype=node.outputs[0].type.dtype)
        return _out([p, eye, u], node)
    return _out([_eye(x, node.outputs[0].type.dtype), eye, u], node)


@node_rewriter([Blockwise])
def lu_factor_of_diag(fgraph: Any, node: Apply) -> Any:
    """lu_factor(D) -> (D, arange(n))."""
    x = node.inputs[0]
    if _core_op(node, LUFactor) is None or not is_diagonal(fgraph, x):
        return None
    piv = pt.arange(x.shape[-1], dtype=node.outputs[1].type.dtype)
    return _out([x, piv], node)


@node_rewriter([Blockwise])
def qr_of_diag(fgraph: Any, node: Apply) -> Any:
    """qr(D) -> (I, D); ``raw``: (D, zeros, D)."""
    op = _core_op(node, QR)
    x = node.inputs[0]
    # column pivoting reorders by column norm: no closed form kept here
    if op is None or op.pivoting or not is_diagonal(fgraph, x):
        return None
    dtype = node.outputs[0].type.dtype
    # LAPACK's Householder step leaves a column with nothing below the diagonal as it
    # is (tau = 0): Q = I and R = D, signs included, as the unrewritten graph returns
    r = pt.cast(x, dtype) if x.type.dtype != dtype else x
    if op.mode == "raw":
        new = [r, pt.zeros(pt.shape_tuple(_d(x)), dtype=dtype), r]
    elif op.mode == "r":
        new = [r]
    else:
        new = [_eye(x, dtype), r]
    return _out(new, node)


def _selected(sort: str, a: Variable, b: Variable | None) -> Variable:
    """Which generalized eigenvalues ``a / b`` (``b`` None: 1) ``sort`` moves first."""
    if b is None:
        return {"lhp": lambda: pt.lt(a, 0), "rhp": lambda: pt.ge(a, 0),
                "iuc": lambda: pt.le(pt.abs(a), 1), "ouc": lambda: pt.gt(pt.abs(a), 1)}[sort]()
    finite = pt.neq(b, 0)
    if sort == "lhp":
        return finite & pt.lt(a * b, 0)
    if sort == "rhp":
        return finite & pt.ge(a * b, 0)
    if sort == "iuc":
        return finite & pt.le(pt.abs(a), pt.abs(b))
    return (pt.eq(b, 0) & pt.neq(a, 0)) | pt.gt(pt.abs(a), pt.abs(b))


@node_rewriter([Blockwise])
def schur_of_diag(fgraph: Any, node: Apply) -> Any:
    """schur(D) -> (D, I); with ``sort`` the selected eigenvalues first."""
    op = _core_op(node, Schur)
    x = node.inputs[0]
    if op is None or not is_diagonal(fgraph, x):
        return None
    dtype = node.outputs[0].type.dtype
    if op.sort is None:
        t = pt.cast(x, dtype) if x.type.dtype != dtype else x
        return _out([t, _eye(x, dtype)], node)
    if x.type.ndim != 2:
        return None
    d = _d(x, dtype)
    idx = pt.argsort(-pt.cast(_selected(op.sort, d, None), "int64"), kind="stable")
    return _out([_diag_matrix(d[idx]), _eye(x, dtype)[:, idx]], node)


@node_rewriter([Blockwise])
def qz_of_diag(fgraph: Any, node: Apply) -> Any:
    """qz(A, B) for diagonal A, B -> (A, B, I, I); with ``sort`` a permutation."""
    op = _core_op(node, QZ)
    if op is None:
        return None
    a, b = node.inputs
    if not (is_diagonal(fgraph, a) and is_diagonal(fgraph, b)):
        return None
    dtype = node.outputs[0].type.dtype
    da, db = _d(a, dtype), _d(b, dtype)
    if op.sort is None:
        aa = pt.cast(a, dtype) if a.type.dtype != dtype else a
        bb = pt.cast(b, dtype) if b.type.dtype != dtype else b
        q = z = _eye(a, dtype)
    else:
        if a.type.ndim != 2:
            return None
        idx = pt.argsort(-pt.cast(_selected(op.sort, da, db), "int64"), kind="stable")
        da, db = da[idx], db[idx]
        aa, bb = _diag_matrix(da), _diag_matrix(db)
        q = z = _eye(a, dtype)[:, idx]
    if op.return_eigenvalues:
        new = [aa, bb, pt.cast(da, node.outputs[2].type.dtype), db, q, z]
    else:
        new = [aa, bb, q, z]
    return _out(new, node)


def register_diag_rewrites(db: Any) -> None:
    """In canonicalize and stabilize, tags ``fast_run`` (+``fast_compile`` in canonicalize)."""
    for name, rewriter in (
        ("cholesky_of_diag", cholesky_of_diag), ("eigh_of_diag", eigh_of_diag),
        ("eigvalsh_of_diag", eigvalsh_of_diag), ("svd_of_diag", svd_of_diag),
        ("lu_of_diag", lu_of_diag), ("lu_factor_of_diag", lu_factor_of_diag),
        ("qr_of_diag", qr_of_diag), ("schur_of_diag", schur_of_diag),
        ("qz_of_diag", qz_of_diag),
    ):
        for phase in ("canonicalize", "stabilize"):
            tags = ("fast_run", "fast_compile") if phase == "canonicalize" else ("fast_run",)
            db[phase].register(name, rewriter, *tags, "linalg")
