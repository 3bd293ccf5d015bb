"""Inverses of structured matrices, ``eig`` of symmetric ones, and SVDs that share work.

- ``inv_of_diag_to_diag_reciprocal`` (canonicalize, stabilize): ``inv(D)`` ->
  ``alloc_diag(1 / d)``; ``pinv(D)`` -> ``alloc_diag(where(d == 0, 0, 1 / d))`` (the
  pseudo-inverse leaves a zero pivot zero; PyTensor 3.0.7 gives inf there)
- ``inv_of_orthogonal_to_transpose`` (canonicalize, stabilize): ``inv(Q)`` -> ``Q.T``
- ``eig_to_eigh`` (canonicalize, stabilize): ``eig(X)`` for symmetric ``X`` -> ``eigh(X)``
  cast to eig's complex outputs
- ``svd_uv_merge`` (canonicalize, stabilize, specialize): an SVD whose ``u``/``v`` are
  unused becomes ``compute_uv=False`` (or reuses one that is); an SVD with
  ``compute_uv=False`` reuses the singular values of one computing ``u``/``v`` anyway
- ``useless_symmetric_transpose`` (canonicalize, stabilize, specialize; opt-in, unlike
  PyTensor: the transpose is a free view, and dropping it changes the values when
  the symmetry assumed is false): ``X.T`` -> ``X`` for symmetric ``X``
"""

from __future__ import annotations

from typing import Any

import opgraph.tensor as pt
from opgraph.assumptions import ORTHOGONAL, SYMMETRIC
from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.elemwise import DimShuffle
from opgraph_linalg.constructors import alloc_diag, diagonal
from opgraph_linalg.decomposition import Eig, Eigh, eigh
from opgraph_linalg.factor import SVD, svd
from opgraph_linalg.inverse import MatrixInverse, MatrixPinv
from opgraph_linalg.rewrites_diag import is_diagonal
from opgraph_linalg.rewrites_structure import _feature, _like

__all__ = [
    "MATRIX_INVERSE_OPS",
    "eig_to_eigh",
    "inv_of_diag_to_diag_reciprocal",
    "inv_of_orthogonal_to_transpose",
    "is_matrix_transpose",
    "register_inverse_rewrites",
    "svd_uv_merge",
    "useless_symmetric_transpose",
]

MATRIX_INVERSE_OPS = (MatrixInverse, MatrixPinv)


def _core(node: Apply, cls: Any) -> Any:
    op = node.op.core_op if isinstance(node.op, Blockwise) else node.op
    return op if isinstance(op, cls) else None


def is_matrix_transpose(x: Any) -> bool:
    """``x`` is a transpose of the last two axes (batch axes possibly added on the left)."""
    node = x.owner
    if node is None or not isinstance(node.op, DimShuffle):
        return False
    nd = node.op.input_ndim
    order = tuple(node.op.new_order)
    kept = tuple(o for o in order if o != "x")
    if nd < 2 or kept != (*range(nd - 2), nd - 1, nd - 2):
        return False
    return all(o == "x" for o in order[: len(order) - nd])


@node_rewriter([Blockwise])
def inv_of_diag_to_diag_reciprocal(fgraph: Any, node: Apply) -> Any:
    """inv(D) -> diag(1 / d); pinv(D) -> diag(1 / d) with zeros kept zero."""
    op = _core(node, MATRIX_INVERSE_OPS)
    x = node.inputs[0]
    if op is None or not is_diagonal(fgraph, x):
        return None
    d = diagonal(x, axis1=-2, axis2=-1)
    recip = pt.reciprocal(d)
    if isinstance(op, MatrixPinv):
        recip = pt.switch(pt.eq(d, 0), pt.zeros_like(recip), recip)
    return [_like(alloc_diag(recip, axis1=-2, axis2=-1), node.outputs[0])]


@node_rewriter([Blockwise])
def inv_of_orthogonal_to_transpose(fgraph: Any, node: Apply) -> Any:
    """inv(Q) -> Q.T for an orthogonal Q."""
    x = node.inputs[0]
    if _core(node, MATRIX_INVERSE_OPS) is None or x.type.ndim < 2:
        return None
    if not _feature(fgraph).check(x, ORTHOGONAL):
        return None
    return [_like(pt.swapaxes(x, -1, -2), node.outputs[0])]


@node_rewriter([Blockwise])
def eig_to_eigh(fgraph: Any, node: Apply) -> Any:
    """eig(X) -> eigh(X) (cast to complex) for a symmetric X."""
    op = _core(node, Eig)
    if op is None or isinstance(op, Eigh):
        return None
    x = node.inputs[0]
    if x.type.ndim < 2 or not _feature(fgraph).check(x, SYMMETRIC):
        return None
    w, v = eigh(x)
    return [_like(pt.cast(w, node.outputs[0].type.dtype), node.outputs[0]),
            _like(pt.cast(v, node.outputs[1].type.dtype), node.outputs[1])]


def _used(fgraph: Any, var: Any) -> bool:
    return bool(fgraph.clients.get(var))


@node_rewriter([Blockwise])
def svd_uv_merge(fgraph: Any, node: Apply) -> Any:
    """Share one SVD's singular values; drop u/v nobody reads."""
    op = _core(node, SVD)
    if op is None or fgraph is None:
        return None
    x = node.inputs[0]
    others = [c for c, _ in fgraph.clients.get(x, [])
              if not isinstance(c, str) and c is not node and _core(c, SVD) is not None]
    if op.compute_uv:
        u, s, v = node.outputs
        if _used(fgraph, u) or _used(fgraph, v):
            return None
        for c in others:
            if not _core(c, SVD).compute_uv:
                return {s: _like(c.outputs[0], s)}
        return {s: _like(svd(x, full_matrices=op.full_matrices, compute_uv=False), s)}
    for c in others:
        if _core(c, SVD).compute_uv and (_used(fgraph, c.outputs[0])
                                        or _used(fgraph, c.outputs[2])):
            return [_like(c.outputs[1], node.outputs[0])]
    return None


@node_rewriter([DimShuffle])
def useless_symmetric_transpose(fgraph: Any, node: Apply) -> Any:
    """X.T -> X for a symmetric X."""
    out = node.outputs[0]
    if not is_matrix_transpose(out):
        return None
    x = node.inputs[0]
    if not _feature(fgraph).check(x, SYMMETRIC):
        return None
    new = x
    if out.type.ndim > x.type.ndim:
        new = pt.expand_dims(x, tuple(range(out.type.ndim - x.type.ndim)))
    return [_like(new, out)]


def register_inverse_rewrites(db: Any) -> None:
    """Under PyTensor's names and phases (tags ``fast_run``, ``linalg``)."""
    both = ("canonicalize", "stabilize")
    for name, rewriter, phases in (
        ("inv_of_diag_to_diag_reciprocal", inv_of_diag_to_diag_reciprocal, both),
        ("inv_of_orthogonal_to_transpose", inv_of_orthogonal_to_transpose, both),
        ("eig_to_eigh", eig_to_eigh, both),
        ("svd_uv_merge", svd_uv_merge, (*both, "specialize")),
    ):
        for phase in phases:
            tags = ("fast_run", "fast_compile") if phase == "canonicalize" else ("fast_run",)
            db[phase].register(name, rewriter, *tags, "linalg")
    # opt-in (``including("useless_symmetric_transpose")``): a transpose is a free view,
    # and dropping it gives other values when the symmetry assumed is not true
    for phase in (*both, "specialize"):
        db[phase].register("useless_symmetric_transpose", useless_symmetric_transpose)
