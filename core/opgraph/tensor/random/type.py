"""Types of random generator values: ``numpy.random.Generator`` in a graph.

A RandomVariable takes a generator as input and returns the advanced
generator as its first output, so the state is threaded through the graph
explicitly instead of being hidden inside an Op.
"""

from __future__ import annotations

from typing import Any, TypeVar

import attrs
import numpy as np

from opgraph.graph.basic import Variable
from opgraph.graph.table import NameTable
from opgraph.graph.type import Type

# Distribution name -> ``f(rng, *args, **kwargs)`` returning ``(next_rng, draw)``;
# filled by ``opgraph.tensor.random.basic`` so generator variables offer
# ``rng.normal(...)`` without this module importing the distributions.
RNG_METHODS: NameTable[Any] = NameTable(
    "rng_methods", "generator variable methods by distribution name (rng.normal(...))")


class RandomGeneratorVariable(Variable):
    """A symbolic generator; ``rng.normal(0, 1)`` returns ``(next_rng, draw)``."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        method = RNG_METHODS.get(name)
        if method is None or name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

        def draw(*args: Any, **kwargs: Any) -> tuple[Variable, Variable]:
            return method(self, *args, **kwargs)

        return draw

__all__ = [
    "AbstractRandomGeneratorType",
    "RandomGeneratorType",
    "RandomGeneratorVariable",
    "RandomType",
    "random_generator_type",
    "rng",
]


@attrs.frozen(repr=False)
class RandomType(Type):
    """Base of the types whose values are random generators."""

    variable_type = RandomGeneratorVariable

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        """Two generators share state when they use the same bit generator."""
        return getattr(a, "bit_generator", a) is getattr(b, "bit_generator", b)


@attrs.frozen(repr=False)
class AbstractRandomGeneratorType(RandomType):
    """Values are ``numpy.random.Generator`` instances."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """The Generator itself; a bit-generator state dict is accepted unless ``strict``."""
        if isinstance(data, Variable):
            raise TypeError(f"{self} expects a value, got the symbolic Variable {data}")
        if isinstance(data, np.random.Generator):
            return data
        if not strict and isinstance(data, dict) and _valid_state(data):
            bit_gen_cls = getattr(np.random, data["bit_generator"])
            bit_gen = bit_gen_cls()
            bit_gen.state = data
            return np.random.Generator(bit_gen)
        raise TypeError(
            f"{self} expects a numpy.random.Generator"
            f"{'' if strict else ' (or a bit generator state dict)'}, got "
            f"{type(data).__name__} {data!r:.60}"
        )

    def is_valid_value(self, data: Any, strict: bool = True) -> bool:
        try:
            self.filter(data, strict=strict)
        except TypeError:
            return False
        return True

    def values_eq(self, a: Any, b: Any) -> bool:
        """Equal when the bit generators have the same class and state."""
        sa = a.bit_generator.state if isinstance(a, np.random.Generator) else a
        sb = b.bit_generator.state if isinstance(b, np.random.Generator) else b
        return _states_eq(sa, sb)

    def __str__(self) -> str:
        return "RandomGeneratorType"

    def __repr__(self) -> str:
        return "RandomGeneratorType"


@attrs.frozen(repr=False)
class RandomGeneratorType(AbstractRandomGeneratorType):
    """The type of shared and symbolic ``numpy.random.Generator`` values."""


def _valid_state(state: dict) -> bool:
    name = state.get("bit_generator")
    if not isinstance(name, str) or not isinstance(getattr(np.random, name, None), type):
        return False
    try:
        getattr(np.random, name)().state = state
    except (TypeError, ValueError, KeyError):
        return False
    return True


def _states_eq(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_states_eq(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)


random_generator_type = RandomGeneratorType()


def rng(name: str | None = None) -> Variable:
    """A symbolic random generator input (``pt.random.rng("rng")``), e.g. for a scan state."""
    return random_generator_type(name=name)


T = TypeVar("T")  # PyTensor's annotation alias

#: the state keys of each NumPy bit generator: (keys of ``state``, keys of ``state["state"]``)
gen_states_keys: dict[str, tuple[list[str], list[str]]] = {
    "MT19937": (["state"], ["key", "pos"]),
    "PCG64": (["state", "has_uint32", "uinteger"], ["state", "inc"]),
    "Philox": (["state", "buffer", "buffer_pos", "has_uint32", "uinteger"], ["counter", "key"]),
    "SFC64": (["state", "has_uint32", "uinteger"], ["state"]),
}

#: a number for each bit generator name, in that order
numpy_bit_gens: dict[int, str] = dict(enumerate(gen_states_keys))


def as_rng(x: Any) -> Variable:
    """``x`` checked to be a random generator variable (None and NumPy generators are
    refused with what to use instead)."""
    if x is None:
        raise TypeError("rng must not be None: use pt.random.rng() for a symbolic input or "
                        "pt.random.shared_rng() for a shared generator")
    if isinstance(x, np.random.Generator):
        raise TypeError("as_rng does not take a NumPy Generator: wrap it with "
                        "pt.random.shared_rng(generator)")
    if isinstance(getattr(x, "type", None), RandomGeneratorType):
        return x
    raise TypeError(f"Expected a RandomGeneratorVariable, got {type(x).__name__}")
