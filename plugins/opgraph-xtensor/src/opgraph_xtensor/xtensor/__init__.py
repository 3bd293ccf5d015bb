"""opgraph-xtensor: tensors with named dims (xarray's semantics), at ``opgraph.xtensor``.

Build graphs with dims by name (``x.sum("time")``, ``x.isel(city=0)``,
``x + y`` aligned by name); the ``lower_xtensor`` rewrites turn them into
ordinary tensor graphs that every backend runs and the gradient machinery
differentiates.  xarray is needed only to compare results in tests.
"""

from __future__ import annotations

import opgraph_xtensor.xtensor.grad_arithmetic
import opgraph_xtensor.xtensor.methods
import opgraph_xtensor.xtensor.symbolic  # noqa: F401  (as_symbolic of DataArrays)
from opgraph_xtensor.xtensor import linalg, math, random, signal
from opgraph_xtensor.xtensor.basic import as_xtensor, rename
from opgraph_xtensor.xtensor.math import dot, where
from opgraph_xtensor.xtensor.shape import broadcast, concat, full_like, ones_like, zeros_like
from opgraph_xtensor.xtensor.type import (
    XTensorConstant,
    XTensorSharedVariable,
    XTensorType,
    XTensorVariable,
    xtensor,
    xtensor_constant,
    xtensor_shared,
)

__all__ = [
    "XTensorConstant",
    "XTensorSharedVariable",
    "XTensorType",
    "XTensorVariable",
    "as_xtensor",
    "broadcast",
    "concat",
    "dot",
    "full_like",
    "linalg",
    "math",
    "ones_like",
    "random",
    "rename",
    "signal",
    "where",
    "xtensor",
    "xtensor_constant",
    "xtensor_shared",
    "zeros_like",
]
