"""Random variables at PyTensor's path: ``opgraph.tensor.random.normal(...)``.

``basic`` holds the distributions, ``op`` the RandomVariable Op, ``type`` the
generator type, ``variable`` the shared generator, ``utils`` RandomStream.
"""

from opgraph.tensor.random import basic, op, type, utils, variable  # noqa: F401
from opgraph.tensor.random.basic import *  # noqa: F403
from opgraph.tensor.random.op import RandomVariable, default_rng  # noqa: F401
from opgraph.tensor.random.utils import RandomStream  # noqa: F401
from opgraph.tensor.random.variable import RandomGeneratorSharedVariable, shared_rng  # noqa: F401

__all__ = [n for n in dir() if not n.startswith("_")]
