"""Determinants from factorizations, and ``slogdet`` for what reads only its parts.

- ``det_of_matrix_factorized_elsewhere`` (stabilize, specialize): ``det(X)`` when the
  graph already factors ``X``: ``prod(diag(L))**2`` from ``cholesky(X)``,
  ``prod(diag(U))`` from ``lu(X)`` / ``lu_factor(X)``; when only ``|det|`` or
  ``det**2`` is read, also ``prod(s)`` from ``svd(X)`` and ``prod(diag(R))`` from ``qr(X)``
- ``det_of_factorized_matrix`` (stabilize, specialize): ``det`` of a factor:
  triangular factors give the product of their diagonal, ``det(L)`` of ``lu`` is 1,
  an orthogonal factor (``U``, ``Vh``, ``Q``) gives 1 when only ``|det|`` or ``det**2``
  is read
- ``slogdet_specialization`` (specialize): ``sign(det(X))``, ``log(|det(X)|)`` and
  ``log(det(X))`` read from one ``slogdet(X)`` when nothing else reads ``det(X)``

Unlike PyTensor 3.0.7 (whose versions are tagged ``shape_unsafe``) a matrix whose
static shape does not show it square keeps the error ``det`` raises for a
non-square matrix (an ``Assert``): a rectangular ``lu``/``qr`` factor has a diagonal
product but no determinant.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.elemwise import Elemwise
from opgraph_linalg.constructors import diagonal
from opgraph_linalg.decomposition import Cholesky
from opgraph_linalg.factor import LU, QR, SVD, LUFactor
from opgraph_linalg.rewrites_structure import _like, _square
from opgraph_linalg.summary import Det, SLogDet

__all__ = [
    "det_of_factorized_matrix",
    "det_of_matrix_factorized_elsewhere",
    "matrix_diagonal_product",
    "register_summary_rewrites",
    "slogdet_specialization",
]


def matrix_diagonal_product(x: Variable) -> Variable:
    """The product of the diagonal of (each of) the matrices ``x``."""
    return pt.prod(diagonal(x, axis1=-2, axis2=-1), axis=-1)


def _core(op: Any) -> Any:
    return op.core_op if isinstance(op, Blockwise) else op


def _is_det(node: Apply) -> bool:
    return isinstance(_core(node.op), Det)


def _scalar_client(client: Any, classes: Any) -> bool:
    return isinstance(client.op, Elemwise) and isinstance(client.op.scalar_op, classes)


def _sign_not_needed(fgraph: Any, out: Variable) -> bool:
    """Every reader of ``out`` is ``abs`` or ``sqr`` (the sign of ``det`` is not read)."""
    clients = fgraph.clients.get(out, []) if fgraph is not None else []
    return bool(clients) and all(
        not isinstance(c, str) and _scalar_client(c, (ps.Abs, ps.Sqr)) for c, _ in clients)


def _keep_square_error(new: Variable, x: Variable) -> Variable:
    m, n = x.type.shape[-2:]
    if m is None or n is None or m != n:
        new = _square(new, pt.eq(x.shape[-1], x.shape[-2]))
    return new


def _det_from_factor(node: Apply, x: Variable, sign_free: bool) -> Variable | None:
    """``det(x)`` from the factorization ``node`` (an Apply whose input is ``x``)."""
    core = _core(node.op)
    if isinstance(core, Cholesky):
        return pt.sqr(matrix_diagonal_product(node.outputs[0]))
    if isinstance(core, LU):
        return matrix_diagonal_product(node.outputs[-1])
    if isinstance(core, LUFactor):
        return matrix_diagonal_product(node.outputs[0])
    if not sign_free:
        return None
    if isinstance(core, SVD):
        return pt.prod(node.outputs[1] if core.compute_uv else node.outputs[0], axis=-1)
    if isinstance(core, QR) and core.mode != "raw":
        return matrix_diagonal_product(node.outputs[-1 if not core.pivoting else -2])
    return None


@node_rewriter([Blockwise, Det])
def det_of_matrix_factorized_elsewhere(fgraph: Any, node: Apply) -> Any:
    """det(X) from a factorization of X the graph computes anyway."""
    if not _is_det(node) or fgraph is None:
        return None
    (x,) = node.inputs
    sign_free = _sign_not_needed(fgraph, node.outputs[0])
    for client, _ in fgraph.clients.get(x, []):
        if isinstance(client, str) or client is node or len(client.inputs) != 1:
            continue
        new = _det_from_factor(client, x, sign_free)
        if new is not None:
            return [_like(_keep_square_error(new, x), node.outputs[0])]
    return None


def _det_of_output(fgraph: Any, det_node: Apply, x: Variable) -> Variable | None:
    """det(x) for ``x`` an output of a factorization, or None."""
    owner = x.owner
    core = _core(owner.op)
    outs = owner.outputs
    dtype = det_node.outputs[0].type.dtype
    one = (pt.constant(np.asarray(1, dtype=dtype)) if x.type.ndim == 2
           else pt.ones(pt.shape_tuple(x)[:-2], dtype=dtype))
    if isinstance(core, Cholesky):
        return matrix_diagonal_product(x)
    if isinstance(core, LU):
        if len(outs) == 3 and x is outs[1]:
            return one  # unit lower triangular
        return matrix_diagonal_product(x) if x is outs[-1] else None
    sign_free = _sign_not_needed(fgraph, det_node.outputs[0])
    if isinstance(core, SVD):
        if not core.compute_uv:
            return None  # the singular values are a vector
        return one if sign_free and x is not outs[1] else None
    if isinstance(core, QR) and core.mode in ("full", "economic"):
        r = outs[1]
        if x is r:
            return matrix_diagonal_product(x)
        if x is outs[0] and sign_free:
            return one
    return None


@node_rewriter([Blockwise, Det])
def det_of_factorized_matrix(fgraph: Any, node: Apply) -> Any:
    """det of a factor of a decomposition (see the module doc)."""
    if not _is_det(node):
        return None
    (x,) = node.inputs
    if x.owner is None:
        return None
    new = _det_of_output(fgraph, node, x)
    if new is None:
        return None
    return [_like(_keep_square_error(new, x), node.outputs[0])]


def _slogdet_reader(fgraph: Any, client: Any) -> list[tuple[Variable, str]] | None:
    """``[(output, part)]`` for a reader of det that slogdet answers, None for another."""
    if isinstance(client, str) or not isinstance(client.op, Elemwise):
        return None
    scalar = client.op.scalar_op
    out = client.outputs[0]
    if isinstance(scalar, ps.Sign):
        return [(out, "sign")]
    if isinstance(scalar, ps.Log):
        return [(out, "log")]
    if isinstance(scalar, ps.Abs):
        found = []
        for c2, _ in fgraph.clients.get(out, []):
            if isinstance(c2, str) or not _scalar_client(c2, ps.Log):
                return None
            found.append((c2.outputs[0], "logabs"))
        return found
    return None


@node_rewriter([Blockwise, Det])
def slogdet_specialization(fgraph: Any, node: Apply) -> Any:
    """sign(det), log(|det|), log(det) -> the parts of one slogdet."""
    if not _is_det(node) or fgraph is None:
        return None
    found: list[tuple[Variable, str]] = []
    for client, _ in fgraph.clients.get(node.outputs[0], []):
        parts = _slogdet_reader(fgraph, client)
        if parts is None:
            return None
        found += parts
    if not found:
        return None
    sign, logabs = Blockwise(SLogDet())(node.inputs[0])
    log = pt.switch(pt.eq(sign, -1), np.nan, logabs)
    new = {"sign": sign, "logabs": logabs, "log": log}
    return {out: _like(new[part], out) for out, part in found}


def register_summary_rewrites(db: Any) -> None:
    """Under PyTensor's names and phases (tags ``fast_run``, ``linalg``)."""
    for phase in ("stabilize", "specialize"):
        db[phase].register("det_of_matrix_factorized_elsewhere",
                           det_of_matrix_factorized_elsewhere, "fast_run", "linalg")
        db[phase].register("det_of_factorized_matrix", det_of_factorized_matrix,
                           "fast_run", "linalg")
    db["specialize"].register("slogdet_specialization", slogdet_specialization,
                              "fast_run", "linalg")
