"""Tensor math: an Elemwise for every scalar op (``pt.exp``, ``pt.add`` ...),
reductions (sum, prod, max, min, all, any, mean, var, std, argmax, argmin)
and products (dot, matmul, outer).

PyTensor keeps them all in ``tensor.math``; opgraph defines the elementwise
functions in ``opgraph.tensor.ufuncs``, the reductions in
``opgraph.tensor.reduction`` and the products in ``opgraph.tensor.products``
(each built on the one before), and this module re-exports them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph import faces as _faces
from opgraph.tensor import ufuncs as _ufuncs
from opgraph.tensor.arrays import allclose, isclose, median, nan_to_num, ptp  # noqa: F401
from opgraph.tensor.contractions import batched_dot, batched_tensordot, tensordot  # noqa: F401
from opgraph.tensor.math_names import (  # noqa: F401 - PyTensor's tensor.math names too
    ceil_intdiv,
    conjugate,
    cov,
    deg2rad,
    dense_dot,
    divmod,
    equal,
    expit,
    greater,
    greater_equal,
    iround,
    isfinite,
    isneginf,
    isposinf,
    largest,
    less,
    less_equal,
    log1pexp,
    logaddexp,
    matvec,
    not_equal,
    rad2deg,
    sgn,
    smallest,
    variadic_add,
    variadic_mul,
    vecdot,
    vecmat,
)
from opgraph.tensor.products import *  # noqa: F403
from opgraph.tensor.products import __all__ as _products_all
from opgraph.tensor.products import _dot, _matmul  # noqa: F401 - PyTensor's names for Dot()...
from opgraph.tensor.reduction import *  # noqa: F403
from opgraph.tensor.reduction import ProdWithoutZeros  # noqa: F401 - PyTensor's tensor.math name
from opgraph.tensor.reduction import __all__ as _reduction_all
from opgraph.tensor.special import log_softmax, logsumexp, softmax  # noqa: F401
from opgraph.tensor.type import TOLERANCES
from opgraph.tensor.ufuncs import *  # noqa: F403
from opgraph.tensor.ufuncs import __all__ as _ufuncs_all
from opgraph.tensor.ufuncs import _clip, _conj, isnan  # noqa: F401

__all__ = _ufuncs_all + _reduction_all + _products_all

# PyTensor's per-dtype cast Ops (``_convert_to_float32``...), defined with ``cast``.
globals().update(
    (name, value) for name, value in vars(_ufuncs).items() if name.startswith("_convert_to_")
)

def _allclose(a: Any, b: Any, rtol: float | None = None, atol: float | None = None) -> bool:
    """``np.allclose`` with the tolerances of the less precise of the two dtypes.

    The comparison PyTensor's tests use for results computed in float32 or float16.
    """
    a, b = np.asarray(a), np.asarray(b)
    tols = [TOLERANCES.get(x.dtype.name, TOLERANCES["float64"]) for x in (a, b)]
    atol = float(np.max([t[0] for t in tols])) if atol is None else atol
    rtol = float(np.max([t[1] for t in tols])) if rtol is None else rtol
    return bool(np.allclose(a, b, atol=atol, rtol=rtol))


# The elementwise ``isnan`` Op under PyTensor's name for it.
isnan_ = isnan


def __getattr__(name: str) -> Any:
    """Names a plugin serves for ``opgraph.tensor`` (``erf``...), as in PyTensor's module."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = _faces.provided_name("opgraph.tensor", name)
    globals()[name] = value
    return value


