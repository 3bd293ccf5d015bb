"""``OrderedSet``: a mutable set that iterates in insertion order (PyTensor's misc path)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableSet
from typing import Any

__all__ = ["OrderedSet"]


class OrderedSet(MutableSet):
    """A set remembering insertion order (a dict's keys underneath)."""

    def __init__(self, iterable: Iterable | None = None) -> None:
        self.values: dict[Any, None] = dict.fromkeys(iterable or ())

    def __contains__(self, value: object) -> bool:
        return value in self.values

    def __iter__(self) -> Iterator:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        return f"OrderedSet({list(self.values)!r})"

    def add(self, value: Any) -> None:
        self.values[value] = None

    def discard(self, value: Any) -> None:
        self.values.pop(value, None)

    def copy(self) -> OrderedSet:
        return OrderedSet(self)

    def update(self, other: Iterable) -> None:
        self.values.update(dict.fromkeys(other))

    def union(self, other: Iterable) -> OrderedSet:
        new = self.copy()
        new.update(other)
        return new

    def difference_update(self, other: Iterable) -> None:
        for value in other:
            self.discard(value)
