"""Random generators seen from xtensor code: their Type, and the casts to and from
the tensor library's generator variables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.tensor.random.type import random_generator_type
from opgraph_xtensor.xtensor.basic import XTypeCastOp
from opgraph_xtensor.xtensor.random.variable import (
    XRandomGeneratorType,
    XRandomGeneratorVariable,
    xrandom_generator_type,
)

__all__ = ["XRandomGeneratorType", "XRandomGeneratorVariable", "rng_to_xrng",
           "xrandom_generator_type", "xrng_to_rng"]


class _RngCast(XTypeCastOp):
    """The same generator under the other Type."""

    __props__ = ("to_x",)

    def __init__(self, to_x: bool) -> None:
        self.to_x = to_x

    def make_node(self, rng: Any) -> Apply:
        out = xrandom_generator_type() if self.to_x else random_generator_type()
        return Apply(self, [rng], [out])

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return [cotangents[0]]


def rng_to_xrng(rng: Variable) -> XRandomGeneratorVariable:
    """A tensor-library generator variable as one that draws xtensors."""
    if isinstance(rng.type, XRandomGeneratorType):
        return rng
    return _RngCast(True)(rng)


def xrng_to_rng(xrng: Variable) -> Variable:
    """An xtensor generator variable as the tensor library's."""
    if not isinstance(xrng.type, XRandomGeneratorType):
        return xrng
    return _RngCast(False)(xrng)
