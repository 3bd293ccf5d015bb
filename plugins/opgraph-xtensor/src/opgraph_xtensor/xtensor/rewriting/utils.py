"""The ``lower_xtensor`` database and the helpers of the lowering rewrites.

Every lowering rewrite registers here (``register_lower_xtensor``); the
``lower_xtensor`` graph rewriter the plugin puts in the standard database is
this database's query: all of them together until nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from opgraph_rewrites import EquilibriumDB

from opgraph_xtensor.xtensor.type import XTensorVariable

__all__ = ["LOWER_TAGS", "lower_aligned", "lower_xtensor_db", "register_lower_xtensor"]

LOWER_TAGS = ("fast_run", "fast_compile", "minimum_compile", "infer_shape")
"""The tags every lowering rewrite carries (the modes that must lower)."""

lower_xtensor_db = EquilibriumDB(ignore_newtrees=False, name="lower_xtensor", max_use_ratio=100)
"""The lowering rewrites, run together to a fixed point."""


def register_lower_xtensor(node_rewriter: Any, *tags: str, **kwargs: Any) -> Any:
    """Add a rewrite to ``lower_xtensor_db`` (as a decorator too, with or without a name).

    ``register_lower_xtensor(rw)``, ``@register_lower_xtensor`` and
    ``@register_lower_xtensor("name", "tag")`` all register; the rewrite is returned.
    """
    if isinstance(node_rewriter, str):
        name = node_rewriter

        def register(inner: Any) -> Any:
            return register_lower_xtensor(inner, *tags, name=name, **kwargs)
        return register
    name = kwargs.pop("name", None) or getattr(node_rewriter, "__name__", None) or str(
        node_rewriter)
    lower_xtensor_db.register(name, node_rewriter, *LOWER_TAGS, *tags, **kwargs)
    return node_rewriter


def lower_aligned(x: XTensorVariable, out_dims: Sequence[str]) -> Any:
    """``x``'s values as a tensor whose axes follow ``out_dims`` (missing dims broadcast)."""
    missing = [d for d in x.type.dims if d not in out_dims]
    if missing:
        raise ValueError(f"lower_aligned: dims {missing} of {x} are not in {tuple(out_dims)}")
    position = {d: i for i, d in enumerate(x.type.dims)}
    return x.values.dimshuffle(tuple(position.get(d, "x") for d in out_dims))


def query_lowering() -> Callable[..., Any]:
    """The graph rewriter of every registered lowering rewrite."""
    return lower_xtensor_db.query("+lower_xtensor")
