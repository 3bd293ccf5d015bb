"""The translation table: Op class -> how to build its outputs as dask arrays.

A translator is ``f(node, values, ctx) -> list of outputs`` where ``values``
are the node's input values (dask arrays for tensors, NumPy values for
small concrete ones such as shapes and indices).  Lookup walks the Op's MRO,
then asks the ``opgraph_op_impl(op, backend="dask")`` hook, whose result must
be such a callable; an Op found in neither is run whole (one chunk) by
:func:`opgraph_dask.translate.whole_array`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from opgraph.graph.basic import Apply
from opgraph.graph.table import TypeTable
from opgraph.plugins import find_op_impl

__all__ = ["BACKEND", "Translator", "chunked_ops", "creates_arrays", "lookup", "register"]

BACKEND = "dask"

Translator = Callable[[Apply, Sequence[Any], Any], list[Any]]

_TABLE: TypeTable[Translator] = TypeTable(
    "dask_translators", "Op class -> chunked dask translation (opgraph-dask)")
_CREATORS: set[type] = set()


def register(*op_types: type, creates: bool = False) -> Callable[[Translator], Translator]:
    """Decorator: ``translator`` handles ``op_types`` (and their subclasses).

    ``creates=True`` marks Ops that make a new, possibly large array from
    small inputs (``alloc``): they are translated even when every input is a
    small concrete value, so the array is built chunk by chunk.
    """

    def deco(fn: Translator) -> Translator:
        for t in op_types:
            if not isinstance(t, type):
                raise TypeError(f"register: expected Op classes, got {t!r}")
            _TABLE.register(t, fn, origin=getattr(fn, "__module__", None))
            if creates:
                _CREATORS.add(t)
        return fn

    return deco


def creates_arrays(op: Any) -> bool:
    """True when ``op`` was registered with ``creates=True`` (by its class or a base)."""
    return any(cls in _CREATORS for cls in type(op).__mro__)


def lookup(op: Any) -> Translator | None:
    """The translator of ``op``: the table (by MRO), then the op_impl hook, else None."""
    fn = _TABLE.lookup(op)
    if fn is not None:
        return fn
    found = find_op_impl(op, BACKEND)
    if found is None:
        return None
    if not callable(found):
        raise TypeError(
            f"opgraph_op_impl(backend='dask') for {op} returned {type(found).__name__}; "
            "expected a callable f(node, values, ctx) -> list of outputs"
        )
    return found


def chunked_ops() -> list[str]:
    """Names of the Op classes the table translates (for docs and ``opgraph demo``)."""
    return sorted(t.__name__ for t in _TABLE)
