"""``Generic``: the Type of arbitrary Python objects (PyTensor's ``link.c.type``)."""

from __future__ import annotations

from abc import ABC
from typing import Any, TypeVar

import attrs

from opgraph.graph.basic import Variable
from opgraph.graph.type import Type

__all__ = ["CType", "Generic", "generic"]


class CType(ABC):  # noqa: B024 (a marker: the Types declare it, nothing to implement)
    """Marks the Types whose values the C linker handles (tensors, scalars, generic objects).

    In PyTensor this is the base class of every C-capable Type; opgraph's Types
    register with it, so ``isinstance(t, CType)`` holds for the same Types.
    """

    __slots__ = ()


@attrs.frozen
class Generic(Type):
    """Any Python object; values compare with ``==`` (identity when that fails)."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if isinstance(data, Variable):
            raise TypeError(f"Generic expects a value, got the symbolic Variable {data}")
        return data

    def is_valid_value(self, data: Any, strict: bool = True) -> bool:
        return not isinstance(data, Variable)

    def values_eq(self, a: Any, b: Any) -> bool:
        try:
            return bool(a == b)
        except Exception:  # e.g. arrays of different shapes
            return a is b

    def __str__(self) -> str:
        return "GenericType"


generic = Generic()
"""The one Generic instance; ``generic()`` makes a Variable of it."""


CType.register(Generic)


# PyTensor's annotation aliases
D = TypeVar("D")
T = TypeVar("T")
