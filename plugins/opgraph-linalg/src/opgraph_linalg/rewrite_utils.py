"""Helpers the linear-algebra rewrites share (PyTensor's ``tensor.rewriting.linalg.utils``)."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.assumptions import (
    LOWER_TRIANGULAR,
    POSITIVE_DEFINITE,
    SYMMETRIC,
    UPPER_TRIANGULAR,
)
from opgraph.graph.basic import Constant, Variable
from opgraph.tensor.creation import Eye
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph_linalg.rewrites_inverse import (
    MATRIX_INVERSE_OPS,
    is_matrix_transpose,
    useless_symmetric_transpose,
)
from opgraph_linalg.rewrites_structure import _feature
from opgraph_linalg.rewrites_summary import matrix_diagonal_product

__all__ = [
    "ASSUME_A_OF_TRANSPOSE",
    "MATRIX_INVERSE_OPS",
    "get_assume_a",
    "is_eye_mul",
    "is_matrix_transpose",
    "logger",
    "matrix_diagonal_product",
    "useless_symmetric_transpose",
]

logger = logging.getLogger("opgraph.tensor.rewriting.linalg")

#: ``solve``'s ``assume_a`` for ``A`` -> the one valid for ``A.T``
ASSUME_A_OF_TRANSPOSE = {
    "lower triangular": "upper triangular",
    "upper triangular": "lower triangular",
    "pos": "pos",
    "sym": "sym",
    "gen": "gen",
}


def get_assume_a(fgraph: Any, a: Variable) -> str:
    """The most specific ``assume_a`` for ``solve(a, .)`` from tags and assumptions."""
    feature = _feature(fgraph)
    for tag, key, name in (("lower_triangular", LOWER_TRIANGULAR, "lower triangular"),
                           ("upper_triangular", UPPER_TRIANGULAR, "upper triangular"),
                           ("psd", POSITIVE_DEFINITE, "pos"),
                           ("symmetric", SYMMETRIC, "sym")):
        if getattr(a.tag, tag, False) is True or feature.check(a, key):
            return name
    return "gen"


def _is_identity(var: Variable) -> bool:
    """``eye(n, m, 0)`` (or the constant it folds to), possibly with batch axes added
    on the left."""
    node = var.owner
    if node is not None and isinstance(node.op, DimShuffle) and node.op.is_left_expand_dims:
        var = node.inputs[0]
        node = var.owner
    if isinstance(var, Constant):
        data = np.asarray(var.data)
        return data.ndim == 2 and bool(np.array_equal(data, np.eye(*data.shape)))
    if node is None or not isinstance(node.op, Eye):
        return False
    k = node.inputs[-1]
    return isinstance(k, Constant) and int(k.data) == 0


def is_eye_mul(x: Variable) -> tuple[Variable, Variable] | None:
    """``(eye, rest)`` when ``x`` is ``eye(n) * rest`` (the eye not broadcast), else None."""
    node = x.owner
    if node is None or not isinstance(node.op, Elemwise) or not isinstance(
            node.op.scalar_op, ps.Mul):
        return None
    bcast = x.type.broadcastable[-2:]
    eye = None
    rest = []
    for inp in node.inputs:
        if eye is None and inp.type.broadcastable[-2:] == bcast and _is_identity(inp):
            eye = inp
        else:
            rest.append(inp)
    if eye is None:
        return None
    prod = rest[0]
    for r in rest[1:]:
        prod = prod * r
    return eye, prod
