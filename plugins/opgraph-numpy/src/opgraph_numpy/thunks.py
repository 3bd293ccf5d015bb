"""Per-node thunks for the Python linkers.

An Op that keeps the base ``make_thunk`` is run by calling its ``perform``
directly from generated code (no thunk frame, no list comprehension): that is
where most of the per-call time of small graphs goes.  Ops with their own
``make_thunk`` (lazy ones such as IfElse, or backend-specific ones) get their
thunk called as is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op


def uses_default_thunk(op: Any) -> bool:
    """True when ``op`` computes through ``perform`` with the base thunk."""
    cls = type(op)
    return (
        getattr(cls, "make_thunk", None) is Op.make_thunk
        and getattr(cls, "make_py_thunk", None) is Op.make_py_thunk
    )


def make_node_thunk(
    node: Apply,
    storage_map: dict[Variable, list],
    compute_map: dict[Variable, list],
    no_recycling: Sequence[Variable],
    impl: str | None,
) -> Callable[[], Any]:
    """The thunk of ``node`` from its Op, with ``lazy`` always set."""
    thunk = node.op.make_thunk(node, storage_map, compute_map, no_recycling, impl)
    if not hasattr(thunk, "lazy"):
        try:
            thunk.lazy = False  # type: ignore[attr-defined]
        except AttributeError:  # a bound method or builtin: wrap it
            inner = thunk

            def thunk() -> Any:
                return inner()

            thunk.lazy = False  # type: ignore[attr-defined]
    return thunk
