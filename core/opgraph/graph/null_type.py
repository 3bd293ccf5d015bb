"""Types that mark a gradient as undefined (NullType) or absent (DisconnectedType)."""

from __future__ import annotations

from typing import Any

import attrs

from opgraph.graph.type import Type

__all__ = ["DisconnectedType", "NullType", "disconnected_type", "null_type"]


@attrs.frozen
class NullType(Type):
    """A value that cannot be computed; ``why_null`` says why (e.g. an undefined gradient)."""

    why_null: str = "(no explanation given)"

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        raise ValueError(f"No values may be assigned to a NullType ({self.why_null})")

    def filter_variable(self, other: Any, allow_convert: bool = True) -> Any:
        raise ValueError(f"No values may be assigned to a NullType ({self.why_null})")

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        return False

    def values_eq(self, a: Any, b: Any, force_same_dtype: bool = True) -> bool:
        raise ValueError("NullType has no values to compare")

    def __str__(self) -> str:
        return "NullType"


@attrs.frozen
class DisconnectedType(Type):
    """The gradient of something that does not depend on the input: numerically zero."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        raise AttributeError(
            "A DisconnectedType variable has no value: it marks a gradient that does "
            "not exist (the output does not depend on that input)"
        )

    def filter_variable(self, other: Any, allow_convert: bool = True) -> Any:
        raise AttributeError("A DisconnectedType variable has no value")

    def __str__(self) -> str:
        return "DisconnectedType"


def null_type(why_null: str = "(no explanation given)") -> Any:
    """A fresh NullType variable."""
    return NullType(why_null)()


def disconnected_type() -> Any:
    """A fresh DisconnectedType variable."""
    return DisconnectedType()()
