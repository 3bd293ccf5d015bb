"""Random variables with named dims (PyTensor's ``xtensor.random``): the distributions of
:mod:`.basic`, the generator variables of :mod:`.variable` and the casts of :mod:`.type`."""

from __future__ import annotations

from opgraph_xtensor.xtensor.random.basic import *  # noqa: F403
from opgraph_xtensor.xtensor.random.basic import __all__ as _basic_all
from opgraph_xtensor.xtensor.random.type import (
    XRandomGeneratorType,
    as_rng,
    rng_to_xrng,
    xrandom_generator_type,
    xrng_to_rng,
)
from opgraph_xtensor.xtensor.random.variable import rng, shared_rng

__all__ = [*_basic_all, "XRandomGeneratorType", "as_rng", "rng", "rng_to_xrng", "shared_rng",
           "xrandom_generator_type", "xrng_to_rng"]
