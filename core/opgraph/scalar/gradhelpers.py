"""Small builders shared by the scalar pullbacks (all in scalar terms).

Conventions (PyTensor's): the gradient of a discrete (bool/int) input is a
zero of floatX; a continuous input receives a gradient of its own dtype; a
zero is built as ``second(x, 0)`` so an Elemwise lifting it keeps x's shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.autodiff.undefined import disconnected_type, is_disconnected, is_null
from opgraph.graph.basic import Variable, io_toposort
from opgraph.scalar.function_table import SCALAR_FUNCTIONS
from opgraph.scalar.type import _floatx, constant, continuous_dtypes, discrete_dtypes

__all__ = [
    "cast_like",
    "const_like",
    "grad_zeros",
    "is_discrete",
    "pushforward_from_pullback",
]


def is_discrete(var: Variable) -> bool:
    return var.type.dtype in discrete_dtypes


def const_like(value: Any, like: Variable) -> Variable:
    """A constant with ``like``'s dtype, so formulas do not change dtypes.

    For a discrete ``like`` it is floatX: gradient formulas are over floats.
    """
    dtype = _floatx() if is_discrete(like) else like.type.dtype
    return constant(value, dtype=dtype)


def grad_zeros(x: Variable) -> Variable:
    """The zero gradient of input ``x`` (floatX when x is discrete)."""
    dtype = _floatx() if is_discrete(x) else x.type.dtype
    return SCALAR_FUNCTIONS.second(x, constant(0, dtype=dtype))


def cast_like(g: Variable, x: Variable) -> Variable:
    """``g`` in ``x``'s dtype (for a continuous x); used on every returned gradient."""
    if g.type.dtype == x.type.dtype or x.type.dtype not in continuous_dtypes:
        return g
    return SCALAR_FUNCTIONS.cast(g, x.type.dtype)


def pushforward_from_pullback(
    op: Any, inputs: Sequence[Variable], outputs: Sequence[Variable],
    tangents: Sequence[Variable | None],
) -> list[Variable]:
    """Forward mode for a one-output scalar op: sum_i (d out / d x_i) * t_i.

    The partial derivatives come from the op's pullback with a cotangent of 1.
    Disconnected tangents are skipped; an undefined (null) partial that meets a
    connected tangent makes the result null.
    """
    if len(outputs) != 1:
        raise NotImplementedError(f"{op}: generic pushforward needs a single output")
    (out,) = outputs
    connected = [
        t is not None and not is_disconnected(t) and not is_discrete(x)
        for t, x in zip(tangents, inputs)
    ]
    if not any(connected):
        return [disconnected_type()]
    if is_discrete(out):
        return [grad_zeros(out)]
    partials = op.pullback(list(inputs), list(outputs), [const_like(1, out)])
    total = None
    for p, t, ok in zip(partials, tangents, connected):
        if not ok or is_disconnected(p):
            continue
        if is_null(p):
            return [p]
        term = SCALAR_FUNCTIONS.mul(p, t)
        total = term if total is None else SCALAR_FUNCTIONS.add(total, term)
    if total is None:
        # every tangent met a disconnected partial (second(x, y) with only x moving):
        # disconnected, not zeros -- a zero tangent times a nan elsewhere would be nan
        return [disconnected_type()]
    return [cast_like(total, out)]


def _accumulate(current: Variable | None, term: Variable) -> Variable:
    """Sum of gradient contributions; a null (undefined) contribution wins."""
    if current is None or is_null(term):
        return term
    if is_null(current):
        return current
    return SCALAR_FUNCTIONS.add(current, term)


def scalar_pullback(
    outputs: Sequence[Variable], wrt: Sequence[Variable],
    cotangents: Sequence[Variable | None],
) -> list[Variable]:
    """Reverse mode over a scalar graph: one gradient per ``wrt`` variable.

    Composes each node's ``op.pullback``; variables the outputs do not depend on
    get a DisconnectedType marker.
    """
    grads: dict[Variable, Variable] = {}
    for o, g in zip(outputs, cotangents):
        if g is not None and not is_disconnected(g):
            grads[o] = _accumulate(grads.get(o), g)
    for node in reversed(io_toposort(list(wrt), list(outputs))):
        gzs = [grads.get(o) for o in node.outputs]
        if all(g is None for g in gzs):
            continue
        if any(is_null(g) for g in gzs if g is not None):
            null = next(g for g in gzs if g is not None and is_null(g))
            for x in node.inputs:
                grads[x] = null
            continue
        gzs = [disconnected_type() if g is None else g for g in gzs]
        in_grads = node.op.pullback(list(node.inputs), list(node.outputs), gzs)
        for x, gx in zip(node.inputs, in_grads):
            if gx is None or is_disconnected(gx):
                continue
            grads[x] = _accumulate(grads.get(x), gx)
    return [grads.get(x) or disconnected_type() for x in wrt]


def scalar_pushforward(
    inputs: Sequence[Variable], outputs: Sequence[Variable],
    tangents: Sequence[Variable | None],
) -> list[Variable]:
    """Forward mode over a scalar graph: one tangent per output (disconnected if none)."""
    tan: dict[Variable, Variable] = {
        x: t for x, t in zip(inputs, tangents) if t is not None and not is_disconnected(t)
    }
    for node in io_toposort(list(inputs), list(outputs)):
        ts = [tan.get(x) for x in node.inputs]
        if all(t is None for t in ts):
            continue
        ts = [disconnected_type() if t is None else t for t in ts]
        outs = node.op.pushforward(list(node.inputs), list(node.outputs), ts)
        for o, t in zip(node.outputs, outs):
            if t is not None and not is_disconnected(t):
                tan[o] = t
    return [tan.get(o) or disconnected_type() for o in outputs]
