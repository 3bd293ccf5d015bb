"""Reshapes that only drop or add length-1 axes become DimShuffles.

PyMC's raveled parameter vector gives every scalar parameter as
``reshape(v[k:k + 1], ())`` and often broadcasts it back with
``dimshuffle('x')``: two C nodes (a reshape and a view) per parameter per
call.  As a DimShuffle the pair composes to nothing, and a squeeze of a
one-element slice becomes the integer index ``v[k]``
(``local_dimshuffle_subtensor``).  Only reshapes whose input has the
requested lengths statically are rewritten, so no reshape that could fail
at run time loses its check.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.shape import Reshape, Shape, static_int
from opgraph.tensor.variable import constant
from opgraph_rewrites.useless import _entries as vector_entries
from opgraph_rewrites.utils import keep_type, order_with_new_axes

__all__ = [
    "late_squeeze_rewriters",
    "local_reshape_of_ones_to_dimshuffle",
    "local_shape_of_static_shape",
    "squeeze_rewriters",
]


def _squeeze_order(shape: tuple[Any, ...], target: list[int]) -> tuple[Any, ...] | None:
    """The DimShuffle order taking a value of static ``shape`` to ``target`` when the two
    differ only by length-1 axes (None otherwise)."""
    kept = [k for k, n in enumerate(shape) if n != 1]
    if any(shape[k] is None for k in kept):
        return None
    wanted = [n for n in target if n != 1]
    if [shape[k] for k in kept] != wanted:
        return None
    new_axes = [k for k, n in enumerate(target) if n == 1]
    order = order_with_new_axes(len(target), new_axes)
    return tuple(o if o == "x" else kept[o] for o in order)


def _resolved_target(target: list[int | None], shape: tuple[Any, ...]) -> list[int] | None:
    """``target`` with one ``-1`` replaced by the length it stands for (x's static size
    over the other entries), or None when an entry is unknown or invalid."""
    if any(n is None or n < -1 for n in target) or target.count(-1) > 1:
        return None
    if -1 not in target:
        return target  # type: ignore[return-value]
    if None in shape:
        return None
    size = int(np.prod(shape, dtype=np.int64))
    rest = int(np.prod([n for n in target if n != -1], dtype=np.int64))
    if rest == 0 or size % rest:
        return None
    return [size // rest if n == -1 else n for n in target]  # type: ignore[misc]


@node_rewriter([Shape], name="local_shape_of_static_shape")
def local_shape_of_static_shape(fgraph: Any, node: Apply) -> Any:
    """shape(x) -> its constant when x's type fixes every length and x is computed for
    another use anyway (no computation, nor its errors, is dropped)."""
    x = node.inputs[0]
    shape = getattr(x.type, "shape", None)
    if shape is None or None in shape or fgraph is None:
        return False
    if x.owner is not None and not any(c is not node for c, _k in fgraph.clients.get(x, ())):
        return False
    fixed = keep_type(node.outputs[0], constant(np.asarray(shape, dtype=np.int64)))
    return [fixed] if fixed is not None else False


@node_rewriter([Reshape], name="local_reshape_of_ones_to_dimshuffle")
def local_reshape_of_ones_to_dimshuffle(fgraph: Any, node: Apply) -> Any:
    """reshape(x, shp) -> x.dimshuffle(...) when ``x``'s static shape is ``shp`` up to
    length-1 axes (``reshape(v[k:k+1], ())`` -> ``v[k:k+1].dimshuffle()``)."""
    x = node.inputs[0]
    entries = vector_entries(node.inputs[1])
    if entries is None or len(entries) != node.op.ndim:
        return False
    target = _resolved_target([static_int(e) for e in entries], x.type.shape)
    if target is None:
        return False
    order = _squeeze_order(tuple(x.type.shape), target)  # type: ignore[arg-type]
    if order is None:
        return False
    new = DimShuffle(input_ndim=x.type.ndim, new_order=order)(x)
    fixed = keep_type(node.outputs[0], new)
    return [fixed] if fixed is not None else False


def squeeze_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase."""
    return [("local_reshape_of_ones_to_dimshuffle", local_reshape_of_ones_to_dimshuffle,
             ("shape",)),
            ("local_shape_of_static_shape", local_shape_of_static_shape, ("shape",))]


def late_squeeze_rewriters() -> list[Any]:
    """The same rules for the pass before fusion: the BLAS and Blockwise phases build
    reshapes and shapes of static-shape values after canonicalize has run."""
    return [local_shape_of_static_shape, local_reshape_of_ones_to_dimshuffle]
