"""Faster forms: cheaper elementwise ops for small powers, and reductions or
products that move a broadcast factor out so it multiplies fewer elements.

Vector and matrix-vector ``Dot`` stay ``Dot``: measured in our VM and C
linker, ``np.dot`` (BLAS ddot/gemv/ger) beats ``sum(x * y)`` by 1.2x-10x at
every size tried (10 to 10**6 elements), so a rewrite to Elemwise+Sum would
be a slowdown. What pays is not multiplying the big operand at all:
``dot(c * x, y) -> c * dot(x, y)`` and ``sum(x * c) -> c * sum(x)``.

IEEE: moving a factor out of a sum changes NumPy's result when the factor is
inf or 0 (``dot([1, 1] / 0, [[0, 1], [1, -1]])`` is ``[nan, nan]``, but
``dot([1, 1], ...) / 0`` is ``[inf, nan]``), so only a negation (exact) moves out
unless ``config.fast_math`` is set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.config import config
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.products import Dot
from opgraph.tensor.reduction import Sum
from opgraph_rewrites.utils import (
    const_value,
    ew,
    keep_type,
    scalar_op_of,
    single_client,
    tensor_constant,
)

__all__ = ["POW_TABLE", "specialize_rewriters"]


def _pow_table() -> dict[float, Callable[[Variable], Variable]]:
    E = ew
    return {
        0.0: lambda x: tensor_constant(1, x.type.dtype, 0),  # x**0 = 1
        1.0: lambda x: x,  # x**1 = x
        2.0: lambda x: E(ps.sqr)(x),  # x**2 = sqr(x)
        3.0: lambda x: E(ps.mul)(x, E(ps.sqr)(x)),  # x**3 = x*sqr(x)
        4.0: lambda x: E(ps.sqr)(E(ps.sqr)(x)),  # x**4 = sqr(sqr(x))
        0.5: lambda x: E(ps.sqrt)(x),  # x**0.5 = sqrt(x)
        -0.5: lambda x: E(ps.reciprocal)(E(ps.sqrt)(x)),  # x**-0.5 = 1/sqrt(x)
        -1.0: lambda x: E(ps.reciprocal)(x),  # x**-1 = 1/x
        -2.0: lambda x: E(ps.reciprocal)(E(ps.sqr)(x)),  # x**-2 = 1/sqr(x)
    }


POW_TABLE: dict[float, Callable[[Variable], Variable]] = {}


def local_pow_specialize() -> NodeRewriter:
    POW_TABLE.update(_pow_table())

    @node_rewriter([ew(ps.pow)], name="local_pow_specialize")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """x ** c for c in POW_TABLE -> the cheaper equivalent."""
        x, e = node.inputs
        c = const_value(e)
        if c is None or np.ndim(c) != 0:
            return False
        try:
            key = float(c)
        except (TypeError, ValueError):
            return False
        build = POW_TABLE.get(key)
        if build is None:
            return False
        out = node.outputs[0]
        if key < 0 or key == 0.5 or key == -0.5:
            if not out.type.dtype.startswith(("float", "complex")):
                return False
        new = build(x)
        fixed = keep_type(out, new, refs=node.inputs)
        return [fixed] if fixed is not None else False

    return rewrite


def _is_float(var: Variable) -> bool:
    return var.type.dtype.startswith(("float", "complex"))


def _drop_axes(var: Variable, axes: tuple[int, ...]) -> Variable:
    """``var`` without its ``axes`` (all of static length 1)."""

    if not axes:
        return var
    order = tuple(i for i in range(var.type.ndim) if i not in axes)
    return DimShuffle(input_ndim=var.type.ndim, new_order=order)(var)


def _constant_over(var: Variable, axes: tuple[int, ...]) -> bool:
    """``var`` is broadcast (static length 1) along every axis in ``axes``."""
    return all(var.type.shape[a] == 1 for a in axes)


def _split_factors(fgraph: Any, var: Variable, axes: tuple[int, ...]) -> tuple | None:
    """``var = (-1)**neg * prod(inner) / prod(inner_den) * prod(outer) / prod(outer_den)``
    where the outer factors are constant along ``axes``; None when ``var`` is no
    single-use product."""

    node = var.owner
    sop = scalar_op_of(node)
    if sop is None or not single_client(fgraph, var) or node.op.inplace_pattern:
        return None
    if isinstance(sop, ps.Neg):
        return [node.inputs[0]], [], [], [], True
    if isinstance(sop, ps.Mul):
        inner = [f for f in node.inputs if not _constant_over(f, axes)]
        outer = [f for f in node.inputs if _constant_over(f, axes)]
        return inner, [], outer, [], False
    if isinstance(sop, ps.TrueDiv):
        num, den = node.inputs
        if _constant_over(den, axes):
            return [num], [], [], [den], False
    return None


def _may_move(outer: list[Variable], outer_den: list[Variable]) -> bool:
    """Factors may leave a sum: only under fast math (an inf or 0 factor gives another
    NaN pattern once it multiplies the sum instead of each term)."""
    return config.fast_math or not (outer or outer_den)


def _product(factors: list[Variable]) -> Variable | None:
    if not factors:
        return None
    return factors[0] if len(factors) == 1 else ew(ps.mul)(*factors)


def _apply_outer(core: Variable, outer: list[Variable], outer_den: list[Variable],
                 negate: bool) -> Variable:

    top = _product([core, *outer])
    bottom = _product(outer_den)
    new = ew(ps.true_div)(top, bottom) if bottom is not None else top
    return ew(ps.neg)(new) if negate else new


def local_sum_of_mul() -> NodeRewriter:
    @node_rewriter([Sum], name="local_sum_of_mul")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """sum(x * c, axes) = sum(x, axes) * c, sum(x / c) = sum(x) / c, sum(-x) = -sum(x)
        for factors c constant along the summed axes: c multiplies the smaller result."""
        (m,) = node.inputs
        out = node.outputs[0]
        if not _is_float(out) or out.type.dtype != m.type.dtype:
            return False
        ndim = m.type.ndim
        axes = node.op.axis if node.op.axis is not None else tuple(range(ndim))
        split = _split_factors(fgraph, m, axes)
        if split is None:
            return False
        inner, _unused, outer, outer_den, negate = split
        if not inner or not (outer or outer_den or negate) or not _may_move(outer, outer_den):
            return False
        core = node.op(_product(inner))
        new = _apply_outer(core, [_drop_axes(f, axes) for f in outer],
                           [_drop_axes(f, axes) for f in outer_den], negate)
        fixed = keep_type(out, new, refs=())
        return [fixed] if fixed is not None else False

    return rewrite


def local_dot_scalar_factor() -> NodeRewriter:
    @node_rewriter([Dot], name="local_dot_scalar_factor")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """dot(c * x, y) = c * dot(x, y), dot(x / c, y) = dot(x, y) / c, dot(-x, y) =
        -dot(x, y) for scalar-like c: c multiplies the (smaller) product, not x."""
        out = node.outputs[0]
        if not _is_float(out):
            return False
        for k, operand in enumerate(node.inputs):
            if operand.type.dtype != out.type.dtype:
                continue
            all_axes = tuple(range(operand.type.ndim))
            split = _split_factors(fgraph, operand, all_axes)
            if split is None:
                continue
            inner, _unused, outer, outer_den, negate = split
            if not inner or not (outer or outer_den or negate) or not _may_move(outer, outer_den):
                continue
            rest = _product(inner)
            if rest.type.ndim != operand.type.ndim:
                continue
            args = list(node.inputs)
            args[k] = rest
            core = node.op(*args)
            new = _apply_outer(core, [_drop_axes(f, all_axes) for f in outer],
                               [_drop_axes(f, all_axes) for f in outer_den], negate)
            fixed = keep_type(out, new, refs=())
            if fixed is not None:
                return [fixed]
        return False

    return rewrite


def specialize_rewriters() -> list[tuple[str, NodeRewriter, tuple[str, ...]]]:
    return [
        ("local_pow_specialize", local_pow_specialize(), ()),
        ("local_sum_of_mul", local_sum_of_mul(), ()),
        ("local_dot_scalar_factor", local_dot_scalar_factor(), ()),
    ]
