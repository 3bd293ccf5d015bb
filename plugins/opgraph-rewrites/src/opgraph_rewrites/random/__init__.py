"""Rewrites of random variables (PyTensor's ``tensor.random.rewriting``)."""

from opgraph_rewrites.random.basic import (
    RandomMakeInplace,
    local_dimshuffle_rv_lift,
    local_rv_size_lift,
    local_subtensor_rv_lift,
    random_make_inplace,
    sidestep_unused_rng_consumer,
)

__all__ = [
    "RandomMakeInplace",
    "local_dimshuffle_rv_lift",
    "local_rv_size_lift",
    "local_subtensor_rv_lift",
    "random_make_inplace",
    "sidestep_unused_rng_consumer",
]
