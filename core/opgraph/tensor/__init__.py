"""The tensor library: ``import opgraph.tensor as pt`` gives PyTensor's names.

Types and constructors (``pt.dmatrix``, ``pt.vector``), operators on
variables, elementwise math, reductions, dot, shape and indexing ops.
"""

from __future__ import annotations

import importlib as _importlib
from typing import Any as _Any

from opgraph import faces as _faces

# PyTensor also exposes the differentiation entry points on the tensor namespace.
from opgraph.autodiff.derived import hessian, jacobian  # noqa: F401
from opgraph.autodiff.reverse import grad  # noqa: F401
from opgraph.graph.basic import Variable  # noqa: F401 - PyTensor exposes it here too
from opgraph.graph.op import Op  # noqa: F401 - PyTensor exposes it here too

# The tensor Ops' batching rules (jacobian/hessian), registered in the autodiff table.
from opgraph.tensor import batching as _batching  # noqa: F401
from opgraph.tensor.type import *  # noqa: F403
from opgraph.tensor.type import TensorType  # noqa: F401
from opgraph.tensor.variable import (  # noqa: F401
    TensorConstant,
    TensorVariable,
    as_tensor,
    as_tensor_variable,
    constant,
)


def _reexport(module_name: str) -> None:
    """Re-export a tensor module's ``__all__``."""
    module = _importlib.import_module(f"opgraph.tensor.{module_name}")
    for name in getattr(module, "__all__", ()):
        globals()[name] = getattr(module, name)


for _name in (
    "elemwise",
    "math",
    "shape",
    "basic",
    "subtensor",
    "special",
    "ifelse",
    "extra_ops",
    "sort",
    "indexing_along",
    "arrays",
    "contractions",
    "einsum",
    "math_names",
):
    _reexport(_name)
del _name

# pprint's tensor spellings, added to the global table when pprint is first used.
# The tensor batching rules of vectorize_graph / jacobian, registered with the graph layer.
import opgraph.autodiff.vectorize as _vectorize  # noqa: E402, F401
import opgraph.tensor.printers as _printers  # noqa: E402, F401

# ``pt.random.normal(...)``, as in PyTensor; also registers shared(Generator).
from opgraph.tensor import random  # noqa: E402, F401
from opgraph.tensor.blockwise import Blockwise  # noqa: E402, F401
from opgraph.tensor.functional import vectorize  # noqa: E402, F401
from opgraph.tensor.pad import pad  # noqa: E402, F401
from opgraph.tensor.type_other import NoneConst  # noqa: E402, F401

__all__ = [n for n in globals() if not n.startswith("_") and n != "annotations"] + sorted(
    _faces.NAME_FACES[__name__]
)


def __getattr__(name: str) -> _Any:
    """Names a plugin provides (``pt.erf`` from opgraph-special), resolved on first use."""
    value = _faces.provided_name(__name__, name)
    if not isinstance(value, _faces.MissingPluginName):
        globals()[name] = value
    return value
