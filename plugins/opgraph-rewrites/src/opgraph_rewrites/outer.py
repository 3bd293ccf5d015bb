"""Matrix products over a length-1 axis are elementwise products.

``x @ y`` with ``x`` of shape ``(..., m, 1)`` and ``y`` of ``(..., 1, n)`` is the
outer product ``x * y``: one multiplication per element, no sum, so the
values are the same bit for bit.  As an Elemwise it fuses with the
arithmetic around it (a GP's squared distances ``-2 * X @ X.T`` of a
one-column ``X``, and the outer product in the gradient of a triangular
solve with one right-hand side) instead of a BLAS call and a temporary.
Both lengths must be a static 1: a ``y`` whose length is known only at run
time would broadcast in the product where the matrix product raises.  Only
products of at most ``SMALL_ELEMENTS`` statically known elements are
rewritten: a large rank-1 update ``A + a * outer(x, y)`` stays a BLAS ``Ger``
(PyTensor's form), which writes into ``A`` in place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.math import mul
from opgraph.tensor.products import Dot, MatMul
from opgraph_rewrites.utils import keep_type

__all__ = ["SMALL_ELEMENTS", "local_outer_product_to_mul", "outer_rewriters"]

#: The largest product (in elements, statically known) rewritten.
SMALL_ELEMENTS = 4096


@node_rewriter([Dot, MatMul], name="local_outer_product_to_mul")
def local_outer_product_to_mul(fgraph: Any, node: Apply) -> Any:
    """dot(x, y) / matmul(x, y) -> x * y when x's last and y's second-to-last axes have
    static length 1 (both at least 2-d: the batch axes broadcast as Elemwise's do) and
    the result is small."""
    x, y = node.inputs
    if x.type.ndim < 2 or y.type.ndim < 2:
        return False
    if isinstance(node.op, Dot) and (x.type.ndim != 2 or y.type.ndim != 2):
        return False
    if x.type.shape[-1] != 1 or y.type.shape[-2] != 1:
        return False
    out_shape = node.outputs[0].type.shape
    if None in out_shape or int(np.prod(out_shape, dtype=np.int64)) > SMALL_ELEMENTS:
        return False
    fixed = keep_type(node.outputs[0], mul(x, y))
    return [fixed] if fixed is not None else False


def outer_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase."""
    return [("local_outer_product_to_mul", local_outer_product_to_mul, ())]
