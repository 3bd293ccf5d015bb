"""Random variables at PyTensor's path: ``opgraph.tensor.random.normal(...)``.

``basic`` holds the distributions, ``op`` the RandomVariable Op, ``type`` the
generator type, ``variable`` the shared generator, ``utils`` RandomStream.
"""

from opgraph.tensor.random import basic, op, type, utils, variable  # noqa: F401
from opgraph.tensor.random.basic import *  # noqa: F403
from opgraph.tensor.random.basic import __all__ as _basic_all
from opgraph.tensor.random.op import RandomVariable, RandomVariableWithCoreShape
from opgraph.tensor.random.type import rng
from opgraph.tensor.random.utils import RandomStream
from opgraph.tensor.random.variable import RandomGeneratorSharedVariable, shared_rng

__all__ = [
    *_basic_all,
    "RandomGeneratorSharedVariable",
    "RandomStream",
    "RandomVariable",
    "RandomVariableWithCoreShape",
    "rng",
    "shared_rng",
]
