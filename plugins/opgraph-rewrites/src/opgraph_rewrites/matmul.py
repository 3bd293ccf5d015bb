"""A batched matrix-vector product whose matrix is shared along some batch axes is one
matrix product: those batch axes of the vector side become columns (or rows).

``matvec(A, v)`` with ``A`` of shape ``(1, m, k)`` and ``v`` of shape ``(b, k)`` is
``b`` products with the same ``A``: ``A[0] @ v.T`` computes them in one GEMM
instead of ``b`` GEMVs. The rule applies to ``matmul(x, y)`` when ``y`` has one
column (``x`` one row) and ``x`` (``y``) broadcasts along batch axes where the other
operand does not; those axes are moved into the column (row) dimension with a
transpose and a reshape and moved back afterwards. PyTensor registers it under the
same name in specialize, where graphs with reshapes are no longer canonicalized.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.products import MatMul
from opgraph.tensor.shape import reshape, shape
from opgraph_rewrites.utils import keep_type

__all__ = ["local_batched_matmul_to_core_matmul_with_reshape", "matmul_rewriters"]


def _pad(v: Variable, nb: int) -> Variable:
    """``v`` with length-1 batch axes in front, up to ``nb`` batch axes."""
    extra = nb - (v.type.ndim - 2)
    if extra == 0:
        return v
    return DimShuffle(input_ndim=v.type.ndim,
                      new_order=(*("x",) * extra, *range(v.type.ndim)))(v)


def _drop(v: Variable, axes: list[int]) -> Variable:
    """``v`` without its (statically length-1) axes ``axes``."""
    kept = [k for k in range(v.type.ndim) if k not in axes]
    return DimShuffle(input_ndim=v.type.ndim, new_order=tuple(kept))(v)


def _back(stacked: Variable, order: list[Any], nb: int) -> Variable:
    """``stacked``, whose axes are ``order`` (batch axis numbers, then "m" and "n" in
    some places), transposed to the batch axes in order followed by m and n."""
    target = [*range(nb), "m", "n"]
    return DimShuffle(input_ndim=stacked.type.ndim,
                      new_order=tuple(order.index(a) for a in target))(stacked)


def _stack_columns(x: Variable, y: Variable, nb: int, moved: list[int]) -> Variable:
    """matmul(x, y) with y's batch axes ``moved`` (x broadcasts there) as columns."""
    rest = [i for i in range(nb) if i not in moved]
    y_t = DimShuffle(input_ndim=nb + 2, new_order=(*rest, nb, *moved, nb + 1))(y)
    ys = shape(y)
    y_2d = reshape(y_t, [*(ys[r] for r in rest), ys[nb], -1], ndim=len(rest) + 2)
    prod = MatMul()(_drop(x, moved), y_2d)
    ps = shape(prod)
    full = [*(ps[j] for j in range(len(rest))), ps[len(rest)], *(ys[s] for s in moved),
            ys[nb + 1]]
    unstacked = reshape(prod, full, ndim=len(full))
    return _back(unstacked, [*rest, "m", *moved, "n"], nb)


def _stack_rows(x: Variable, y: Variable, nb: int, moved: list[int]) -> Variable:
    """matmul(x, y) with x's batch axes ``moved`` (y broadcasts there) as rows."""
    rest = [i for i in range(nb) if i not in moved]
    x_t = DimShuffle(input_ndim=nb + 2, new_order=(*rest, *moved, nb, nb + 1))(x)
    xs = shape(x)
    x_2d = reshape(x_t, [*(xs[r] for r in rest), -1, xs[nb + 1]], ndim=len(rest) + 2)
    prod = MatMul()(x_2d, _drop(y, moved))
    ps = shape(prod)
    full = [*(ps[j] for j in range(len(rest))), *(xs[s] for s in moved), xs[nb],
            ps[len(rest) + 1]]
    unstacked = reshape(prod, full, ndim=len(full))
    return _back(unstacked, [*rest, *moved, "m", "n"], nb)


@node_rewriter([MatMul], name="local_batched_matmul_to_core_matmul_with_reshape")
def local_batched_matmul_to_core_matmul_with_reshape(fgraph: Any, node: Apply) -> Any:
    """matmul(A, v) with one column in ``v`` (one row in ``A``): batch axes along which
    the matrix is shared join the vector's core axis."""
    x, y = node.inputs
    if x.type.ndim < 2 or y.type.ndim < 2:
        return None
    nb = node.outputs[0].type.ndim - 2
    if nb == 0:
        return None
    x, y = _pad(x, nb), _pad(y, nb)
    xb, yb = x.type.shape[:nb], y.type.shape[:nb]
    new = None
    if y.type.shape[-1] == 1:
        moved = [i for i in range(nb) if xb[i] == 1 and yb[i] != 1]
        if moved:
            new = _stack_columns(x, y, nb, moved)
    if new is None and x.type.shape[-2] == 1:
        moved = [i for i in range(nb) if yb[i] == 1 and xb[i] != 1]
        if moved:
            new = _stack_rows(x, y, nb, moved)
    if new is None:
        return None
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else None


def matmul_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the specialize phase."""
    return [("local_batched_matmul_to_core_matmul_with_reshape",
             local_batched_matmul_to_core_matmul_with_reshape, ())]
