"""Random generators seen from xtensor code: their Type, and the casts to and from
the tensor library's generator variables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from opgraph.graph.basic import Apply, Variable
from opgraph.tensor.random.type import AbstractRandomGeneratorType, random_generator_type
from opgraph_xtensor.xtensor.basic import XTypeCastOp
from opgraph_xtensor.xtensor.random.variable import XRandomGeneratorVariable

__all__ = ["XRandomGeneratorType", "rng_to_xrng", "xrandom_generator_type", "xrng_to_rng"]


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
