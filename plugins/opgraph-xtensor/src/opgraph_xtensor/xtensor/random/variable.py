"""XRandomGeneratorVariable: ``rng.normal(0, 1, extra_dims=...)`` returns ``(next_rng, draw)``."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from opgraph.graph.basic import Variable
from opgraph.link.sharedvalue import SharedVariable

__all__ = ["XRNG_METHODS", "XRandomGeneratorSharedVariable", "XRandomGeneratorVariable"]

#: distribution name -> function(rng, *args, **kwargs) -> (next_rng, draw); random/__init__ fills it
XRNG_METHODS: dict[str, Any] = {}
_UNSET = object()


class XRandomGeneratorVariable(Variable):
    """A symbolic generator whose draws are xtensors."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        method = XRNG_METHODS.get(name)
        if method is None or name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

        def draw(*args: Any, **kwargs: Any) -> tuple[Variable, Variable]:
            return method(self, *args, **kwargs)

        return draw


class XRandomGeneratorSharedVariable(SharedVariable, XRandomGeneratorVariable):
    """A shared generator drawing xtensors; ``set_value(seed=...)`` reseeds it."""

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        value = self.container.storage[0]
        return value if borrow else copy.deepcopy(value)

    def set_value(self, new_value: Any = None, borrow: bool = False, seed: Any = _UNSET) -> None:
        """Replace the generator, or build one from ``seed`` (None: fresh OS entropy)."""
        if new_value is None and seed is _UNSET:
            raise ValueError("Must set one of value or seed")
        if new_value is not None and seed is not _UNSET:
            raise ValueError("Cannot specify both new_value and seed")
        if new_value is None:
            new_value, borrow = np.random.default_rng(seed), True
        SharedVariable.set_value(self, new_value, borrow=borrow)
