"""Random generators seen from xtensor code: their Type, and the casts to and from
the tensor library's generator variables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.tensor.random.type import RandomGeneratorType, random_generator_type
from opgraph_xtensor.xtensor.basic import XTypeCastOp
from opgraph_xtensor.xtensor.random.variable import (
    XRandomGeneratorType,
    XRandomGeneratorVariable,
    xrandom_generator_type,
)

__all__ = ["RNGToXRNG", "XRNGToRNG", "XRandomGeneratorType", "XRandomGeneratorVariable",
           "as_rng", "rng_to_xrng", "xrandom_generator_type", "xrng_to_rng"]


class _RngCast(XTypeCastOp):
    """The same generator under the other Type; subclasses say which way."""

    __props__ = ()
    source: type = RandomGeneratorType
    target: Any = xrandom_generator_type

    def make_node(self, rng: Any) -> Apply:
        if not isinstance(getattr(rng, "type", None), self.source):
            raise TypeError(f"{type(self).__name__} expects a variable of "
                            f"{self.source.__name__}, got {getattr(rng, 'type', type(rng))}")
        return Apply(self, [rng], [self.target()])

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return [cotangents[0]]


class RNGToXRNG(_RngCast):
    """A tensor-library generator variable seen as one that draws xtensors."""

    source = RandomGeneratorType
    target = xrandom_generator_type


class XRNGToRNG(_RngCast):
    """An xtensor generator variable seen as the tensor library's."""

    source = XRandomGeneratorType
    target = random_generator_type


def rng_to_xrng(rng: Variable) -> XRandomGeneratorVariable:
    """A tensor-library generator variable as one that draws xtensors."""
    if isinstance(rng.type, XRandomGeneratorType):
        return rng
    return RNGToXRNG()(rng)


def xrng_to_rng(xrng: Variable) -> Variable:
    """An xtensor generator variable as the tensor library's."""
    if not isinstance(xrng.type, XRandomGeneratorType):
        return xrng
    return XRNGToRNG()(xrng)


def as_rng(x: Any) -> XRandomGeneratorVariable:
    """``x`` as an xtensor generator variable (a tensor-library one is cast); None and NumPy
    generators are refused with what to use instead."""
    if x is None:
        raise TypeError("rng must not be None: use xtensor.random.rng() for a symbolic input "
                        "or xtensor.random.shared_rng() for a shared one")
    if isinstance(x, np.random.Generator):
        raise TypeError("as_rng does not take a NumPy Generator: wrap it with "
                        "xtensor.random.shared_rng(generator)")
    if isinstance(getattr(x, "type", None), (XRandomGeneratorType, RandomGeneratorType)):
        return rng_to_xrng(x)
    raise TypeError(f"as_rng expects a random generator variable, got {type(x).__name__}")
