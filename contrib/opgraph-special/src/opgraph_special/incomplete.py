"""The incomplete gamma functions that are not regularised: ``gammal(k, x)`` (lower,
gamma(k) * P(k, x)) and ``gammau(k, x)`` (upper, gamma(k) * Q(k, x)), as scalar Ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import opgraph.scalar as ps
from opgraph.graph.basic import Variable
from opgraph.scalar.gradhelpers import const_like
from opgraph_special.scalar import SpecialOp, _sc

__all__ = ["GammaL", "GammaU", "gammal", "gammau"]


def _integrand(k: Variable, x: Variable, like: Variable) -> Variable:
    """exp(-x) x^(k-1): the derivative of the lower function in x."""
    one = const_like(1, like)
    return ps.exp(ps.sub(ps.mul(ps.sub(k, one), ps.log(x)), x))


class GammaL(SpecialOp):
    """Lower incomplete gamma gamma(k, x) = integral_0^x t^(k-1) e^-t dt (gradient in x)."""

    nin = 2
    scipy_name = "gammainc"  # the dtype rule; the value is scaled by gamma(k) below

    def __init__(self, name: str | None = None) -> None:
        super().__init__(name=name or "gammal")

    def numpy_fn(self, k: Any, x: Any) -> Any:
        sc = _sc()
        return sc.gammainc(k, x) * sc.gamma(k)

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        k, x = inputs
        return [None, _integrand(k, x, output)]


class GammaU(SpecialOp):
    """Upper incomplete gamma Gamma(k, x) = integral_x^inf t^(k-1) e^-t dt (gradient in x)."""

    nin = 2
    scipy_name = "gammaincc"

    def __init__(self, name: str | None = None) -> None:
        super().__init__(name=name or "gammau")

    def numpy_fn(self, k: Any, x: Any) -> Any:
        sc = _sc()
        return sc.gammaincc(k, x) * sc.gamma(k)

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        k, x = inputs
        return [None, ps.neg(_integrand(k, x, output))]


gammal = GammaL()
gammau = GammaU()
