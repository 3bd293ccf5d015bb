"""How matrix facts flow through elementwise Ops and DimShuffle (loaded by the package).

The linear-algebra rewrites ask whether a matrix is diagonal or triangular
(``eye(n) * x``, ``alloc_diag(v).T``, ``-D``); these rules answer from the
zero pattern of the operands:

- ``Mul``: the product keeps a zero pattern that any full matrix factor has
  (a factor broadcast over both matrix axes, a scalar, multiplies every entry);
- ``Add``/``Sub``: every full matrix operand has the pattern and every
  broadcast operand is the constant 0;
- ``TrueDiv``: the numerator is a full matrix with the pattern;
- unary Ops with ``f(0) == 0`` (neg, abs, sqr, sqrt, sin, ...) keep it;
- ``DimShuffle``: batch axes may move; a transpose of the matrix axes keeps
  diagonal, symmetric, orthogonal and positive definite and swaps lower and
  upper triangular.

Symmetry flows through ``Mul``/``Add``/``Sub`` when every full matrix operand
is symmetric and the others are broadcast over both matrix axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import opgraph.scalar as ps
from opgraph.assumptions.core import (
    DIAGONAL,
    LOWER_TRIANGULAR,
    ORTHOGONAL,
    POSITIVE_DEFINITE,
    SYMMETRIC,
    UPPER_TRIANGULAR,
    FactState,
    register_assumption,
)
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.tensor.elemwise import DimShuffle, Elemwise

__all__ = ["dimshuffle_facts", "elemwise_facts"]

_ZERO_PATTERN = (DIAGONAL, LOWER_TRIANGULAR, UPPER_TRIANGULAR)
#: scalar Ops with f(0) == 0 (an output entry is zero where the input's is)
_ZERO_PRESERVING = (ps.Neg, ps.Abs, ps.Sqr, ps.Sqrt, ps.Sin, ps.Tan, ps.Tanh, ps.Sinh,
                    ps.ArcSin, ps.ArcTan, ps.ArcSinh, ps.Sign, ps.Expm1, ps.Log1p, ps.Conj,
                    ps.Identity, ps.Cast)


def _full_matrix(var: Variable) -> bool:
    """``var`` varies over at least one of its last two axes (it is not broadcast over both)."""
    return var.type.ndim >= 2 and not all(var.type.broadcastable[-2:])


def _is_zero(var: Variable) -> bool:
    data = var.data if isinstance(var, Constant) else None
    if data is None:
        node = var.owner
        if node is not None and isinstance(node.op, DimShuffle):
            return _is_zero(node.inputs[0])
        return False
    try:
        return bool((data == 0).all())
    except (TypeError, ValueError):
        return False


def _true_if(cond: bool, n: int = 1) -> list[FactState]:
    return [FactState.TRUE if cond else FactState.UNKNOWN] * n


def elemwise_facts(key: Any, op: Elemwise, feature: Any, fgraph: Any, node: Apply,
                   input_states: Sequence[FactState]) -> list[FactState]:
    """Zero-pattern facts (diagonal, triangular) and symmetry through an Elemwise."""
    n_out = len(node.outputs)
    if node.outputs[0].type.ndim < 2:
        return _true_if(False, n_out)
    scalar = op.scalar_op
    states = list(zip(node.inputs, input_states, strict=True))
    full = [(v, s) for v, s in states if _full_matrix(v)]
    rest = [v for v, _ in states if not _full_matrix(v)]
    if key is SYMMETRIC:
        if isinstance(scalar, ps.Mul | ps.Add | ps.Sub | ps.TrueDiv):
            ok = bool(full) and all(s is FactState.TRUE for _, s in full) and all(
                v.type.ndim < 2 or all(v.type.broadcastable[-2:]) for v in rest)
            return _true_if(ok, n_out)
    elif isinstance(scalar, ps.Mul):
        return _true_if(any(s is FactState.TRUE for _, s in full), n_out)
    elif isinstance(scalar, ps.Add | ps.Sub):
        ok = bool(full) and all(s is FactState.TRUE for _, s in full) and all(
            _is_zero(v) for v in rest)
        return _true_if(ok, n_out)
    elif isinstance(scalar, ps.TrueDiv):
        num, state = states[0]
        return _true_if(_full_matrix(num) and state is FactState.TRUE, n_out)
    if len(node.inputs) == 1 and isinstance(scalar, _ZERO_PRESERVING):
        return [input_states[0]] * n_out
    return _true_if(False, n_out)


_TRANSPOSE_KEEPS = (DIAGONAL, SYMMETRIC, ORTHOGONAL, POSITIVE_DEFINITE)
_SWAPPED = {LOWER_TRIANGULAR: UPPER_TRIANGULAR, UPPER_TRIANGULAR: LOWER_TRIANGULAR}


def dimshuffle_facts(key: Any, op: DimShuffle, feature: Any, fgraph: Any, node: Apply,
                     input_states: Sequence[FactState]) -> list[FactState]:
    """Batch axes added, dropped or moved keep every fact; a matrix transpose keeps
    diagonal and symmetric and swaps the triangles."""
    nd = op.input_ndim
    if nd < 2:
        return [FactState.UNKNOWN]
    order = tuple(op.new_order)
    if order[-2:] == (nd - 2, nd - 1):
        return [input_states[0]]
    if order[-2:] == (nd - 1, nd - 2):
        other = _SWAPPED.get(key)
        if other is None:
            return [input_states[0]] if key in _TRANSPOSE_KEEPS else [FactState.UNKNOWN]
        return [feature.get(node.inputs[0], other)]
    return [FactState.UNKNOWN]


for _key in (*_ZERO_PATTERN, SYMMETRIC):
    register_assumption(_key, Elemwise)(elemwise_facts)
    register_assumption(_key, DimShuffle)(dimshuffle_facts)
for _key in (ORTHOGONAL, POSITIVE_DEFINITE):
    register_assumption(_key, DimShuffle)(dimshuffle_facts)
