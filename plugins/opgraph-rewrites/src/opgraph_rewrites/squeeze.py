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

from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.shape import Reshape, static_int
from opgraph_rewrites.useless import _entries as vector_entries
from opgraph_rewrites.utils import keep_type, order_with_new_axes

__all__ = ["local_reshape_of_ones_to_dimshuffle", "squeeze_rewriters"]


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


@node_rewriter([Reshape], name="local_reshape_of_ones_to_dimshuffle")
def local_reshape_of_ones_to_dimshuffle(fgraph: Any, node: Apply) -> Any:
    """reshape(x, shp) -> x.dimshuffle(...) when ``x``'s static shape is ``shp`` up to
    length-1 axes (``reshape(v[k:k+1], ())`` -> ``v[k:k+1].dimshuffle()``)."""
    x = node.inputs[0]
    entries = vector_entries(node.inputs[1])
    if entries is None or len(entries) != node.op.ndim:
        return False
    target = [static_int(e) for e in entries]
    if any(n is None or n < 0 for n in target):
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
             ("shape",))]
