"""The tensor library: ``import opgraph.tensor as pt`` gives PyTensor's names.

Types and constructors (``pt.dmatrix``, ``pt.vector``), operators on
variables, elementwise math, reductions, dot, shape and indexing ops.
"""

from __future__ import annotations

import sys as _sys
from collections.abc import Sequence as _Sequence
from typing import Any as _Any

import numpy as _np
from numpy.typing import ArrayLike as _ArrayLike

from opgraph import faces as _faces
from opgraph.autodiff import arith as _autodiff_arith

# PyTensor also exposes the differentiation entry points on the tensor namespace.
from opgraph.autodiff.derived import hessian, jacobian  # noqa: F401
from opgraph.autodiff.reverse import grad  # noqa: F401
from opgraph.graph.basic import Variable
from opgraph.graph.op import Op  # noqa: F401 - PyTensor exposes it here too

# Modules whose ``__all__`` this namespace re-exports, in order (a later one wins a name).
from opgraph.tensor import arrays as _arrays
from opgraph.tensor import basic as _basic

# The tensor Ops' batching rules (jacobian/hessian), registered in the autodiff table.
from opgraph.tensor import batching as _batching  # noqa: F401
from opgraph.tensor import contractions as _contractions
from opgraph.tensor import einsum as _einsum
from opgraph.tensor import elemwise as _elemwise
from opgraph.tensor import extra_ops as _extra_ops
from opgraph.tensor import ifelse as _ifelse
from opgraph.tensor import indexing_along as _indexing_along
from opgraph.tensor import math as _math
from opgraph.tensor import math_names as _math_names
from opgraph.tensor import operators as _operators  # noqa: F401 - fills the operator table

# pprint's tensor spellings, added to the global table when pprint is first used.
from opgraph.tensor import printers as _printers  # noqa: F401

# Imported before the re-exports: loading the submodule binds ``reshape`` here, and the
# loop below rebinds it to the function (PyTensor's namespace has the same two).
from opgraph.tensor import reshape as _reshape
from opgraph.tensor import shape as _shape
from opgraph.tensor import sort as _sort
from opgraph.tensor import special as _special
from opgraph.tensor import subtensor as _subtensor
from opgraph.tensor.blockwise import Blockwise  # noqa: F401
from opgraph.tensor.functional import vectorize  # noqa: F401

# How the gradient drivers build terms of tensor variables (autodiff/arith.py owns the table).
from opgraph.tensor.grad_arithmetic import TENSOR_ARITHMETIC as _TENSOR_ARITHMETIC
from opgraph.tensor.type import *  # noqa: F403
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import (  # noqa: F401
    TensorConstant,
    TensorVariable,
    as_tensor,
    as_tensor_variable,
    constant,
)

for _module in (
    _elemwise,
    _math,
    _reshape,
    _shape,
    _basic,
    _subtensor,
    _special,
    _ifelse,
    _extra_ops,
    _sort,
    _indexing_along,
    _arrays,
    _contractions,
    _einsum,
    _math_names,
):
    for _name in getattr(_module, "__all__", ()):
        globals()[_name] = getattr(_module, _name)
del _module, _name

# ``pt.random.normal(...)``, as in PyTensor (also registers shared(Generator)), and
# PyTensor's other submodules bound on ``pytensor.tensor`` (``pt.signal.convolve1d``...).
# Bound after the re-exports so the submodule, not a function of the same name, is
# ``pt.random``; linalg, optimize and rewriting come from plugins through ``__getattr__``.
from opgraph.graph.basic import Constant  # noqa: E402, F401 - PyTensor's pt.Constant
from opgraph.tensor import (  # noqa: E402, F401
    blas,
    blas_c,
    interpolate,
    random,
    signal,
    utils,
    xlogx,
)
from opgraph.tensor.interpolate import interp, interpolate1d  # noqa: E402, F401
from opgraph.tensor.pad import pad  # noqa: E402, F401
from opgraph.tensor.subtensor_more import flip, slice_at_axis  # noqa: E402, F401
from opgraph.tensor.type_other import (  # noqa: E402, F401 - PyTensor's pt names
    NoneConst,
    NoneSliceConst,
    make_slice,
    none_type_t,
    slicetype,
)

# NumPy's constants, which PyTensor's namespace re-exports (``pt.inf``, ``pt.pi``).
inf = _np.inf
"""Positive infinity (NumPy's ``np.inf``), as PyTensor's ``pt.inf``."""
nan = _np.nan
"""Not a number (NumPy's ``np.nan``)."""
pi = _np.pi
"""The constant pi (NumPy's ``np.pi``)."""
e = _np.e
"""Euler's number e (NumPy's ``np.e``)."""
euler_gamma = _np.euler_gamma
"""The Euler-Mascheroni constant (NumPy's ``np.euler_gamma``)."""
newaxis = _np.newaxis
"""None: a new length-1 axis in an index (``x[:, pt.newaxis]``), as NumPy's."""

TensorLike = Variable | _Sequence[Variable] | _ArrayLike
"""What ``as_tensor_variable`` accepts: a Variable, a sequence of them, or array-like data."""

_autodiff_arith.register_gradient_arithmetic(TensorType, _TENSOR_ARITHMETIC, default=True)
_autodiff_arith.register_tensor_library(_sys.modules[__name__])

__all__ = [n for n in globals() if not n.startswith("_") and n != "annotations"] + sorted(
    _faces.NAME_FACES[__name__]
)


def __getattr__(name: str) -> _Any:
    """Names a plugin provides (``pt.erf`` from opgraph-special), resolved on first use."""
    value = _faces.provided_name(__name__, name)
    if not isinstance(value, _faces.MissingPluginName):
        globals()[name] = value
    return value
