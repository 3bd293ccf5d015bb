"""Shared random generators: what ``shared(np.random.default_rng())`` returns.

The constructor is registered with ``shared()`` when this package is
imported, so the compile package needs no knowledge of generators.
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from opgraph.link.sharedvalue import SharedVariable, shared_constructor
from opgraph.tensor.random.type import (  # noqa: F401  (RandomGeneratorType, rng: PyTensor's path)
    RandomGeneratorType,
    RandomGeneratorVariable,
    random_generator_type,
    rng,
)
from opgraph.tensor.variable import TensorVariable

_UNSET: Any = object()  # tells "seed=None" (fresh entropy) from "no seed given"
UNSET = _UNSET
"""The "no seed given" default of ``set_value(seed=...)`` (PyTensor's name)."""

RNG_AND_DRAW = tuple[RandomGeneratorVariable, TensorVariable]
"""What a generator method returns: the next generator and the draw (an annotation alias)."""

__all__ = [
    "RandomGeneratorSharedVariable",
    "randomgen_constructor",
    "shared_rng",
]


class RandomGeneratorSharedVariable(SharedVariable, RandomGeneratorVariable):
    """A shared ``numpy.random.Generator``; ``set_value(seed=...)`` reseeds it."""

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        """The generator (a deep copy unless ``borrow``)."""
        value = self.container.storage[0]
        return value if borrow else copy.deepcopy(value)

    def set_value(
        self, new_value: Any = None, borrow: bool = False, seed: Any = _UNSET
    ) -> None:
        """Replace the generator, or build a fresh one from ``seed`` (None: OS entropy)."""
        if new_value is None and seed is _UNSET:
            raise ValueError("Must set one of value or seed")
        if new_value is not None and seed is not _UNSET:
            raise ValueError("Cannot specify both new_value and seed")
        if new_value is None:
            new_value, borrow = np.random.default_rng(seed), True
        SharedVariable.set_value(self, new_value, borrow=borrow)

    def __str__(self) -> str:
        return self.name if self.name is not None else "RNG"


def randomgen_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
) -> RandomGeneratorSharedVariable:
    """``shared()`` constructor for ``numpy.random.Generator`` values."""
    if not isinstance(value, np.random.Generator):
        raise TypeError(
            f"randomgen_constructor: Expected numpy.random.Generator, got {type(value).__name__}"
        )
    if not borrow:
        value = copy.deepcopy(value)
    return RandomGeneratorSharedVariable(
        type=random_generator_type, value=value, strict=strict,
        allow_downcast=allow_downcast, name=name,
    )


def shared_rng(
    value: np.random.Generator | None = None,
    name: str | None = None,
    seed: Any = _UNSET,
    borrow: bool = False,
) -> RandomGeneratorSharedVariable:
    """A shared generator from a Generator ``value`` or from a ``seed`` (one of the two;
    ``seed=None`` asks for fresh OS entropy)."""
    if value is None and seed is _UNSET:
        raise ValueError("Must set one of value or seed")
    if value is not None and seed is not _UNSET:
        raise ValueError("Cannot specify both value and seed")
    if value is None:
        value, borrow = np.random.default_rng(seed), True
    var = randomgen_constructor(value, name=name, borrow=borrow)
    var.tag.is_shared = True
    return var


shared_constructor(randomgen_constructor)


def warn_reuse(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for generator-variable methods: warns (UserWarning) when the generator
    variable was already used, since a draw should use the next generator a method returned
    (reusing one gives correlated draws)."""
    @functools.wraps(func)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(self.tag, "used", False):
            warnings.warn(f"RandomGeneratorVariable {self} has already been used. You probably "
                          "want to use the new RandomGeneratorVariable that was returned when "
                          "you used it.", UserWarning, stacklevel=2)
        self.tag.used = True
        return func(self, *args, **kwargs)
    return wrapper
