"""XRandomGeneratorVariable: ``rng.normal(0, 1, extra_dims=...)`` returns ``(next_rng, draw)``."""

from __future__ import annotations

import copy
from typing import Any

import attrs
import numpy as np

from opgraph.compile.sharedvalue import SharedVariable
from opgraph.graph.basic import Variable
from opgraph.tensor.random.type import AbstractRandomGeneratorType

__all__ = ["XRNG_METHODS", "XRandomGeneratorSharedVariable", "XRandomGeneratorType",
           "XRandomGeneratorVariable", "rng", "shared_rng", "xrandom_generator_type"]

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


@attrs.frozen(repr=False)
class XRandomGeneratorType(AbstractRandomGeneratorType):
    """``numpy.random.Generator`` values whose variables draw xtensors (``rng.normal``)."""

    variable_type = XRandomGeneratorVariable

    def make_variable(self, name: str | None = None) -> Variable:
        return XRandomGeneratorVariable(self, None, None, name)

    def __str__(self) -> str:
        return "XRandomGeneratorType"

    def __repr__(self) -> str:
        return "XRandomGeneratorType"


xrandom_generator_type = XRandomGeneratorType()


def rng(name: str | None = None) -> XRandomGeneratorVariable:
    """A symbolic generator input that draws xtensors."""
    return xrandom_generator_type(name)


def shared_rng(value: np.random.Generator | None = None, name: str | None = None,
               seed: Any = _UNSET, borrow: bool = False) -> XRandomGeneratorSharedVariable:
    """A shared generator from a Generator ``value`` or a ``seed`` (exactly one)."""
    if value is None and seed is _UNSET:
        raise ValueError("Must set one of value or seed")
    if value is not None and seed is not _UNSET:
        raise ValueError("Cannot specify both value and seed")
    if value is None:
        value, borrow = np.random.default_rng(seed), True
    if not isinstance(value, np.random.Generator):
        raise TypeError(f"Expected numpy.random.Generator, got {value.__class__.__name__}")
    if not borrow:
        value = copy.deepcopy(value)
    return XRandomGeneratorSharedVariable(xrandom_generator_type, value, False, None, name=name)
