"""PyTensor's older path for the shared generator variable (see ``variable``)."""

from opgraph.tensor.random.variable import (
    RandomGeneratorSharedVariable,
    randomgen_constructor,
    shared_rng,
)

__all__ = ["RandomGeneratorSharedVariable", "randomgen_constructor", "shared_rng"]
