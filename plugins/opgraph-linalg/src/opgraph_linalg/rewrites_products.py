"""Rewrites of block-diagonal, Kronecker, exponential and orthogonal products.

- ``fuse_blockdiagonal`` (canonicalize; tag ``blockdiag_fusion``):
  block_diag(block_diag(a, b), c) -> block_diag(a, b, c)
- ``diag_of_blockdiag`` (canonicalize, stabilize): diagonal(block_diag(a, b)) ->
  concatenate(diagonal(a), diagonal(b)); only for blocks statically square (a
  rectangular block shifts the diagonal across blocks)
- ``det_of_blockdiag`` (canonicalize, stabilize): det(block_diag(a, b)) -> det(a) * det(b)
  (slogdet: signs multiplied, logs added);
  only for blocks statically square (the determinant of a block-diagonal matrix of
  rectangular blocks is not the product: det would raise on a block)
- ``kron_of_diagonal_to_diagonal`` (canonicalize, stabilize): kron(Da, Db) ->
  alloc_diag(ravel(outer(da, db))) for diagonal Da, Db
- ``expm_of_diag`` (canonicalize, stabilize): expm(D) -> alloc_diag(exp(d));
  a 1x1 matrix -> exp(x)
- ``linalg_extract_diag_of_alloc_diag`` (canonicalize, stabilize, specialize):
  diagonal(alloc_diag(v)) -> v for the same offset and axes (PyTensor's
  ``local_extract_diag_of_alloc_diag``, here for this package's own two Ops)
- ``linalg_extract_diag_of_eye_mul`` (canonicalize, stabilize, specialize):
  diagonal(eye(n) * x) -> the diagonal of x broadcast to n x n (square, static n)
- ``orthogonal_dot_transpose_to_eye`` (canonicalize, stabilize): Q @ Q.T and Q.T @ Q ->
  eye for an orthogonal Q (Q @ Q.T only for Q statically square: a matrix with
  orthonormal columns has Q.T @ Q = I but not Q @ Q.T = I)
"""

from __future__ import annotations

from typing import Any

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.assumptions import ORTHOGONAL
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.products import Dot, MatMul
from opgraph_linalg._util import transposed_operand
from opgraph_linalg.constructors import (
    AllocDiag,
    BlockDiagonal,
    ExtractDiag,
    alloc_diag,
    diagonal,
)
from opgraph_linalg.products import Expm, KroneckerProduct
from opgraph_linalg.rewrite_utils import is_eye_mul
from opgraph_linalg.rewrites_diag import is_diagonal
from opgraph_linalg.rewrites_structure import _feature, _like
from opgraph_linalg.summary import Det, SLogDet

__all__ = [
    "det_of_blockdiag",
    "diag_of_blockdiag",
    "expm_of_diag",
    "extract_diag_of_alloc_diag",
    "fuse_blockdiagonal",
    "kron_of_diagonal_to_diagonal",
    "orthogonal_dot_transpose_to_eye",
    "register_product_rewrites",
]


def _core(node: Apply | None, cls: Any) -> Any:
    if node is None:
        return None
    op = node.op.core_op if isinstance(node.op, Blockwise) else node.op
    return op if isinstance(op, cls) else None


def _square_blocks(var: Variable) -> list[Variable] | None:
    """The blocks of ``var = block_diag(...)`` when each is statically square."""
    node = var.owner
    if _core(node, BlockDiagonal) is None:
        return None
    for m in node.inputs:
        r, c = m.type.shape[-2:]
        if r is None or r != c:
            return None
    return list(node.inputs)


@node_rewriter([BlockDiagonal, Blockwise])
def fuse_blockdiagonal(fgraph: Any, node: Apply) -> Any:
    """block_diag(block_diag(a, b), c) -> block_diag(a, b, c)."""
    if _core(node, BlockDiagonal) is None:
        return None
    flat: list[Variable] = []
    changed = False
    for inp in node.inputs:
        inner = inp.owner
        if _core(inner, BlockDiagonal) is not None and inp.type.ndim == 2:
            flat += inner.inputs
            changed = True
        else:
            flat.append(inp)
    if not changed:
        return None
    op = BlockDiagonal(len(flat))
    new = Blockwise(op)(*flat) if isinstance(node.op, Blockwise) else op(*flat)
    return [_like(new, node.outputs[0])]


@node_rewriter([ExtractDiag])
def diag_of_blockdiag(fgraph: Any, node: Apply) -> Any:
    """diagonal(block_diag(a, b)) -> concatenate(diagonal(a), diagonal(b))."""
    op = node.op
    x = node.inputs[0]
    nd = x.type.ndim
    if op.offset != 0 or {op.axis1 % nd, op.axis2 % nd} != {nd - 2, nd - 1}:
        return None
    blocks = _square_blocks(x)
    if blocks is None:
        return None
    parts = [diagonal(m, axis1=-2, axis2=-1) for m in blocks]
    return [_like(pt.concatenate(parts, axis=-1), node.outputs[0])]


@node_rewriter([Blockwise, Det, SLogDet])
def det_of_blockdiag(fgraph: Any, node: Apply) -> Any:
    """det(block_diag(a, b)) -> det(a) * det(b); slogdet: signs multiplied, logs added."""
    core = _core(node, (Det, SLogDet))
    if core is None:
        return None
    blocks = _square_blocks(node.inputs[0])
    if blocks is None:
        return None
    if isinstance(core, Det):
        dets = [node.op(m) for m in blocks]
        new = dets[0]
        for d in dets[1:]:
            new = new * d
        return [_like(new, node.outputs[0])]
    parts = [node.op(m) for m in blocks]
    sign, logabs = parts[0]
    for s_, l_ in parts[1:]:
        sign, logabs = sign * s_, logabs + l_
    return [_like(sign, node.outputs[0]), _like(logabs, node.outputs[1])]


@node_rewriter([KroneckerProduct])
def kron_of_diagonal_to_diagonal(fgraph: Any, node: Apply) -> Any:
    """kron(Da, Db) -> alloc_diag(ravel(outer(da, db))) for diagonal Da, Db."""
    a, b = node.inputs
    if a.type.ndim != b.type.ndim or a.type.ndim < 2:
        return None
    if not (is_diagonal(fgraph, a) and is_diagonal(fgraph, b)):
        return None
    da, db = diagonal(a, axis1=-2, axis2=-1), diagonal(b, axis1=-2, axis2=-1)
    prod = pt.expand_dims(da, -1) * pt.expand_dims(db, -2)
    flat = pt.reshape(prod, (*pt.shape_tuple(prod)[:-2], prod.shape[-2] * prod.shape[-1]),
                      ndim=prod.type.ndim - 1)
    return [_like(alloc_diag(flat, axis1=-2, axis2=-1), node.outputs[0])]


@node_rewriter([Blockwise])
def expm_of_diag(fgraph: Any, node: Apply) -> Any:
    """expm(D) -> alloc_diag(exp(diagonal(D)))."""
    if _core(node, Expm) is None:
        return None
    (x,) = node.inputs
    if all(x.type.broadcastable[-2:]):
        return [_like(pt.exp(x), node.outputs[0])]
    if not is_diagonal(fgraph, x):
        return None
    new = alloc_diag(pt.exp(diagonal(x, axis1=-2, axis2=-1)), axis1=-2, axis2=-1)
    return [_like(new, node.outputs[0])]


@node_rewriter([ExtractDiag])
def extract_diag_of_alloc_diag(fgraph: Any, node: Apply) -> Any:
    """diagonal(alloc_diag(v)) -> v (same offset, same axes in the same order)."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, AllocDiag):
        return None
    nd = node.inputs[0].type.ndim
    op, alloc = node.op, inner.op
    if op.offset != alloc.offset or (op.axis1 % nd, op.axis2 % nd) != (
            alloc.axis1 % nd, alloc.axis2 % nd):
        return None
    return [_like(inner.inputs[0], node.outputs[0])]


def _diag_part(f: Variable, n: Variable) -> Variable:
    """The main diagonal (length ``n``) of ``f`` broadcast to a square matrix."""
    rows, cols = f.type.broadcastable[-2:]
    if rows and cols:
        return pt.expand_dims(f[..., 0, 0], -1)
    if rows:
        return f[..., 0, :]
    if cols:
        return f[..., :, 0]
    return diagonal(f, axis1=-2, axis2=-1)


@node_rewriter([ExtractDiag])
def extract_diag_of_eye_mul(fgraph: Any, node: Apply) -> Any:
    """diagonal(eye(n) * x) -> the diagonal of x (broadcast): the eye's is all ones."""
    op = node.op
    x = node.inputs[0]
    nd = x.type.ndim
    if op.offset != 0 or nd < 2 or (op.axis1 % nd, op.axis2 % nd) != (nd - 2, nd - 1):
        return None
    found = is_eye_mul(x)
    if found is None:
        return None
    _eye, rest = found
    rows, cols = x.type.shape[-2:]
    if rows is None or rows != cols:
        return None  # a rectangular eye's diagonal is shorter than x's factors
    parts = [_diag_part(f, rows) for f in (rest.owner.inputs if _is_mul(rest) else [rest])]
    new = parts[0]
    for p in parts[1:]:
        new = new * p
    new = pt.broadcast_to(new, pt.shape_tuple(node.outputs[0])) if new.type.shape != \
        node.outputs[0].type.shape else new
    return [_like(new, node.outputs[0])]


def _is_mul(v: Variable) -> bool:
    node = v.owner
    return node is not None and isinstance(node.op, Elemwise) and isinstance(
        node.op.scalar_op, ps.Mul) and v.type.ndim >= 2


def _eye_like(q: Variable, n: Variable, out: Variable) -> Variable:
    eye = pt.eye(n, dtype=out.type.dtype)
    if out.type.ndim > 2:
        eye = pt.broadcast_to(eye, pt.shape_tuple(out))
    return eye


@node_rewriter([Dot, MatMul, Blockwise])
def orthogonal_dot_transpose_to_eye(fgraph: Any, node: Apply) -> Any:
    """Q @ Q.T -> I and Q.T @ Q -> I for an orthogonal Q."""
    if _core(node, (Dot, MatMul)) is None or len(node.inputs) != 2:
        return None
    a, b = node.inputs
    if a.type.ndim < 2 or b.type.ndim < 2:
        return None
    out = node.outputs[0]
    feature = _feature(fgraph)
    rows, cols = a.type.shape[-2:]
    square = rows is not None and rows == cols  # Q @ Q.T = I needs a square Q
    if square and transposed_operand(b) is a and feature.check(a, ORTHOGONAL):
        return [_like(_eye_like(a, a.shape[-2], out), out)]
    if transposed_operand(a) is b and feature.check(b, ORTHOGONAL):
        return [_like(_eye_like(b, b.shape[-1], out), out)]
    return None


def register_product_rewrites(db: Any) -> None:
    """Under PyTensor's names and phases (tags ``fast_run``, ``linalg``)."""
    db["canonicalize"].register("fuse_blockdiagonal", fuse_blockdiagonal, "fast_run",
                                "fast_compile", "linalg", "blockdiag_fusion")
    both = ("canonicalize", "stabilize")
    for name, rewriter in (
        ("diag_of_blockdiag", diag_of_blockdiag), ("det_of_blockdiag", det_of_blockdiag),
        ("kron_of_diagonal_to_diagonal", kron_of_diagonal_to_diagonal),
        ("expm_of_diag", expm_of_diag),
        ("orthogonal_dot_transpose_to_eye", orthogonal_dot_transpose_to_eye),
    ):
        for phase in both:
            tags = ("fast_run", "fast_compile") if phase == "canonicalize" else ("fast_run",)
            db[phase].register(name, rewriter, *tags, "linalg")
    for phase in ("canonicalize", "stabilize", "specialize"):
        tags = ("fast_run", "fast_compile") if phase == "canonicalize" else ("fast_run",)
        db[phase].register("linalg_extract_diag_of_alloc_diag", extract_diag_of_alloc_diag,
                           *tags, "linalg")
        db[phase].register("linalg_extract_diag_of_eye_mul", extract_diag_of_eye_mul,
                           *tags, "linalg")
