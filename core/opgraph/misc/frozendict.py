"""``frozendict``: an immutable, hashable, ordered mapping (PyTensor's misc path)."""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["frozendict"]


class frozendict(Mapping):
    """A read-only dict; hashable (from its items), so it can key a cache or sit in a set."""

    dict_cls = dict

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._dict = self.dict_cls(*args, **kwargs)
        self._hash: int | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._dict[key]

    def __contains__(self, key: object) -> bool:
        return key in self._dict

    def copy(self, **add_or_replace: Any) -> frozendict:
        """A new frozendict with these keys added or replaced."""
        return self.__class__(self, **add_or_replace)

    def __iter__(self) -> Iterator:
        return iter(self._dict)

    def __len__(self) -> int:
        return len(self._dict)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._dict!r}>"

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = functools.reduce(operator.xor, map(hash, self.items()), 0)
        return self._hash
