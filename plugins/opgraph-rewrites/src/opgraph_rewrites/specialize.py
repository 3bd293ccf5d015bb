"""Faster forms: powers with small constant exponents become cheaper elementwise ops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import NodeRewriter, node_rewriter
from opgraph_rewrites.utils import const_value, ew, keep_type, tensor_constant

__all__ = ["POW_TABLE", "specialize_rewriters"]


def _pow_table() -> dict[float, Callable[[Variable], Variable]]:
    import opgraph.scalar as ps

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
    import opgraph.scalar as ps

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


def specialize_rewriters() -> list[tuple[str, NodeRewriter, tuple[str, ...]]]:
    return [("local_pow_specialize", local_pow_specialize(), ())]
