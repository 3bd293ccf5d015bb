"""Shape inference through an OpFromGraph's inner graph.

Each inner node's ``infer_shape`` is asked in turn, starting from the node's
input shapes, so ``x.shape`` of an OpFromGraph output costs shape arithmetic,
not running the Op.  Where an inner Op cannot say, the dimension is read
from the inner variable, and a final substitution rebuilds that on the
node's inputs (correct, merely slower).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from opgraph.graph.basic import Apply, Variable, clone_replace, io_toposort
from opgraph.tensor.shape import shape_i

if TYPE_CHECKING:
    from opgraph_ofg.op import OpFromGraph

__all__ = ["infer_inner_shapes"]


def _ndim(var: Variable) -> int | None:
    return getattr(var.type, "ndim", None)


def _read_shape(var: Variable) -> tuple[Any, ...]:
    return tuple(shape_i(var, i) for i in range(_ndim(var) or 0))


def _usable(shape: Any, ndim: int) -> bool:
    return shape is not None and len(shape) == ndim


def infer_inner_shapes(op: OpFromGraph, node: Apply, input_shapes: Sequence[Any]) -> list:
    """One shape tuple per output of ``node`` (None for non-tensor outputs)."""
    shapes: dict[Variable, tuple[Any, ...]] = {}
    for v, s in zip(op.inner_inputs, input_shapes):
        if _ndim(v) is not None and _usable(s, _ndim(v)):
            shapes[v] = tuple(s)
    for inner in io_toposort(op.inner_inputs, op.inner_outputs):
        in_shapes = []
        for x in inner.inputs:
            nd = _ndim(x)
            if nd is None:
                in_shapes.append(None)
            else:
                if x not in shapes:
                    shapes[x] = _read_shape(x)
                in_shapes.append(shapes[x])
        out_shapes = None
        if hasattr(inner.op, "infer_shape"):
            try:
                out_shapes = inner.op.infer_shape(None, inner, in_shapes)
            except Exception:  # this Op cannot infer here: read the shape instead
                out_shapes = None
        for k, o in enumerate(inner.outputs):
            nd = _ndim(o)
            if nd is None:
                continue
            s = out_shapes[k] if out_shapes is not None and k < len(out_shapes) else None
            shapes[o] = tuple(s) if _usable(s, nd) else _read_shape(o)
    result: list[Any] = []
    flat: list[Variable] = []
    for o in op.inner_outputs:
        nd = _ndim(o)
        if nd is None:
            result.append(None)
            continue
        dims: list[Any] = []
        for i, d in enumerate(shapes.get(o) or _read_shape(o)):
            static = o.type.shape[i]
            if static is not None:
                dims.append(int(static))
            elif isinstance(d, int | np.integer):
                dims.append(int(d))
            else:
                dims.append(_Slot(len(flat)))
                flat.append(d)
        result.append(dims)
    rebuilt = clone_replace(flat, dict(zip(op.inner_inputs, node.inputs))) if flat else []
    return [
        None if dims is None else tuple(rebuilt[d.k] if isinstance(d, _Slot) else d
                                        for d in dims)
        for dims in result
    ]


class _Slot:
    """Position of a symbolic dimension in the list rebuilt on the node's inputs."""

    __slots__ = ("k",)

    def __init__(self, k: int) -> None:
        self.k = k
